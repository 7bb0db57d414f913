"""The inline stylesheet of ``dictbench.html`` (no external fonts or files)."""

from __future__ import annotations

__all__ = ["CSS"]

#: Latin first, then the CJK families Debian (fonts-noto-cjk), macOS and Windows ship.
_SANS = ('system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, '
         '"Noto Sans", "Noto Sans CJK JP", "Hiragino Sans", "Hiragino Kaku Gothic ProN", '
         '"Yu Gothic", Meiryo, sans-serif')
_MONO = ('ui-monospace, SFMono-Regular, Menlo, Consolas, "DejaVu Sans Mono", '
         '"Noto Sans Mono CJK JP", "Noto Sans CJK JP", monospace')

CSS = f"""
:root {{
  --ink: #1f2937; --muted: #6b7280; --line: #e5e7eb; --soft: #f9fafb;
  --accent: #0b5cad; --good: #047857; --good-bg: #ecfdf5; --bad: #b91c1c;
  --bad-bg: #fef2f2; --warn: #92400e; --warn-bg: #fffbeb;
}}
* {{ box-sizing: border-box; }}
html {{ background: #f3f4f6; }}
body {{ margin: 0; color: var(--ink); font: 14px/1.5 {_SANS}; }}
main {{ max-width: 1200px; margin: 0 auto; padding: 28px 32px 48px; background: #fff;
  min-height: 100vh; }}
h1 {{ font-size: 26px; margin: 0 0 4px; letter-spacing: -0.01em; }}
h2 {{ font-size: 21px; margin: 0 0 6px; }}
h3 {{ font-size: 15px; margin: 26px 0 8px; padding-bottom: 4px;
  border-bottom: 1px solid var(--line); }}
h4 {{ font-size: 13px; margin: 14px 0 6px; color: #374151; }}
p {{ margin: 6px 0; }}
a {{ color: var(--accent); text-decoration: none; }}
a:hover {{ text-decoration: underline; }}
code, .mono {{ font-family: {_MONO}; font-size: 12.5px; }}
td code {{ white-space: nowrap; }}
.lede {{ color: var(--muted); margin-bottom: 16px; }}
.note {{ background: #eff6ff; border: 1px solid #bfdbfe; border-radius: 8px;
  padding: 10px 14px; margin: 14px 0 18px; }}
.note p {{ margin: 3px 0; }}
.warning {{ background: var(--warn-bg); border: 1px solid #fde68a; border-radius: 8px;
  padding: 8px 12px; margin: 10px 0; color: var(--warn); }}
.suite {{ border-top: 3px solid var(--ink); margin-top: 36px; padding-top: 16px; }}
.meta {{ color: var(--muted); }}
.meta b {{ color: var(--ink); font-weight: 600; }}
.badges {{ display: flex; flex-wrap: wrap; gap: 6px; margin: 8px 0 4px; }}
.badge {{ display: inline-block; border-radius: 999px; padding: 1px 10px; font-size: 12px;
  border: 1px solid var(--line); background: var(--soft); white-space: nowrap; }}
.badge.ok {{ color: var(--good); background: var(--good-bg); border-color: #a7f3d0; }}
.badge.bad {{ color: var(--bad); background: var(--bad-bg); border-color: #fecaca; }}
.badge.warn {{ color: var(--warn); background: var(--warn-bg); border-color: #fde68a; }}
.scroll {{ overflow-x: auto; margin: 6px 0 10px; }}
table {{ border-collapse: collapse; font-size: 13px; min-width: 360px; }}
table.full {{ width: 100%; }}
th, td {{ padding: 5px 9px; border-bottom: 1px solid var(--line); text-align: left;
  vertical-align: top; }}
td {{ overflow-wrap: break-word; }}
td .long {{ overflow-wrap: anywhere; }}
th {{ background: var(--soft); font-weight: 600; color: #374151; }}
td details.env {{ margin: 0; border: 0; padding: 0; min-width: 12em; }}
td details.env > summary {{ font-weight: 400; padding: 0; }}
td details.env ul {{ margin: 2px 0 0; padding-left: 14px; }}
.gate {{ border-radius: 8px; padding: 4px 14px 8px; margin: 14px 0; }}
.gate.passed {{ background: var(--good-bg); border: 1px solid #a7f3d0; }}
.gate.failed {{ background: var(--bad-bg); border: 1px solid #fecaca; }}
.gate .verdict {{ font-weight: 700; }}
.gate.passed .verdict {{ color: var(--good); }}
.gate.failed .verdict {{ color: var(--bad); }}
thead tr.group th {{ text-align: center; border-bottom: 0; padding-bottom: 0;
  color: var(--muted); font-weight: 600; }}
td.num, th.num {{ text-align: right; font-variant-numeric: tabular-nums; }}
td.num {{ white-space: nowrap; }}
tbody tr:hover td {{ background: #fafafa; }}
td .why, td .cohort, p.note {{ color: var(--muted); font-size: 12.5px; }}
.rank {{ font-weight: 700; }}
.unranked {{ color: var(--muted); font-style: italic; white-space: nowrap; }}
.yes {{ color: var(--good); font-weight: 600; }}
.no {{ color: var(--muted); }}
.figs {{ display: grid; grid-template-columns: repeat(auto-fill, minmax(440px, 1fr));
  gap: 14px; margin: 10px 0; align-items: start; }}
figure {{ margin: 0; border: 1px solid var(--line); border-radius: 8px; padding: 8px;
  background: #fff; }}
figure svg {{ width: 100%; height: auto; display: block; }}
figure svg * {{ stroke-linejoin: round; stroke-linecap: butt; }}
figcaption {{ color: var(--muted); font-size: 12px; padding: 4px 4px 0; }}
details {{ margin: 8px 0; border: 1px solid var(--line); border-radius: 8px;
  padding: 4px 10px; }}
details > summary {{ cursor: pointer; font-weight: 600; padding: 4px 0; }}
details[open] > summary {{ margin-bottom: 4px; }}
.rules {{ margin: 0; padding: 0; list-style: none; }}
.rules li {{ margin: 0 0 3px; }}
.rule {{ font-weight: 700; font-family: {_MONO}; font-size: 12px; }}
.s {{ display: inline-block; min-width: 18px; text-align: center; border-radius: 4px;
  font-size: 11.5px; font-weight: 700; margin: 0 4px; }}
.s0 {{ background: var(--bad-bg); color: var(--bad); }}
.s1 {{ background: var(--warn-bg); color: var(--warn); }}
.diff {{ font-family: {_MONO}; font-size: 12.5px; white-space: pre-wrap;
  word-break: break-word; }}
.diff del {{ background: #fee2e2; color: #991b1b; text-decoration: line-through; }}
.diff ins {{ background: #dcfce7; color: #166534; text-decoration: none; }}
.empty {{ color: var(--muted); font-style: italic; }}
nav.toc {{ margin: 8px 0 0; }}
nav.toc a {{ margin-right: 14px; }}
footer {{ margin-top: 40px; color: var(--muted); font-size: 12px;
  border-top: 1px solid var(--line); padding-top: 10px; }}
"""
