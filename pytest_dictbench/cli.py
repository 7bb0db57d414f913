"""dictbench: the few jobs that are not tests.

    dictbench hash SUITE            refresh the sha256 of every [[files]] entry
    dictbench synth SUITE           render each case's script to FLAC audio (extra: synth)

Benchmark runs themselves are ``pytest --product=NAME``.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import tomli_w

from .errors import DictbenchError
from .files import atomic_write
from .jsonl import read_jsonl
from .suites import MANIFEST, data_files, inside, load_suite, read_toml

__all__ = ["main", "spoken_form"]

#: How the synthesiser says a bracketed tag of a verbatim transcript.
SPOKEN_TAGS = {"uh": "uh", "um": "um", "laughter": "ha ha", "cough": "ahem"}
_TAG = re.compile(r"\[([^\]]+)\]")


def spoken_form(verbatim: str) -> str:
    """What to say for a verbatim transcript: fillers spoken, sounds approximated or
    dropped, cut-off markers removed (``th*`` -> ``th``)."""
    text = _TAG.sub(lambda m: SPOKEN_TAGS.get(m.group(1).lower(), ""), verbatim)
    return re.sub(r"\s+", " ", text.replace("*", "")).strip()


def _script(case: Any) -> str:
    data = case.data
    if "script" in data:
        return str(data["script"])
    if "verbatim" in data:
        return spoken_form(str(data["verbatim"]))
    return str(data.get("reference", ""))


#: A ``[[files]]`` table header line (a comment may follow it; one that merely mentions
#: ``[[files]]`` is no header).
_FILES_HEADER = re.compile(r"^[ \t]*\[\[[ \t]*files[ \t]*\]\][ \t]*(#.*)?$", re.MULTILINE)
_TABLE_HEADER = re.compile(r"^[ \t]*\[")


def _manifest_head(path: Path) -> str:
    """``suite.toml`` up to its ``[[files]]`` tables, which must come last."""
    text = path.read_text(encoding="utf-8-sig")
    header = _FILES_HEADER.search(text)
    if header is None:
        return text.rstrip() + "\n"
    index = header.start()
    after = [line.strip() for line in text[index:].splitlines()
             if _TABLE_HEADER.match(line) and not _FILES_HEADER.match(line)]
    if after:
        raise DictbenchError(f"{after[0]} follows the [[files]] tables; move it above them "
                             "so that dictbench can rewrite the file list", path=path)
    return text[:index].rstrip() + "\n"


def write_files_table(suite_dir: Path, entries: Sequence[dict[str, Any]]) -> bool:
    """Rewrite the trailing ``[[files]]`` tables of ``suite.toml``, atomically.

    Returns False, leaving the file untouched byte for byte, when it already lists
    exactly ``entries``.
    """
    manifest = suite_dir / MANIFEST
    if read_toml(manifest).get("files") == list(entries):
        return False
    body = tomli_w.dumps({"files": list(entries)})
    atomic_write(manifest, _manifest_head(manifest) + "\n" + body)
    read_toml(manifest)  # the result must still parse
    return True


def cmd_hash(args: argparse.Namespace) -> int:
    from .audio.io import sha256_file

    suite = load_suite(Path(args.suite))
    listed = {f.path: f for f in suite.files}
    raw = {e["path"]: e for e in read_toml(suite.root / MANIFEST).get("files", [])}
    found = {p.relative_to(suite.root).as_posix() for p in data_files(suite)}
    paths = [*listed, *sorted(found - set(listed))]  # listed files keep their order
    entries = []
    for rel in paths:
        entry = dict(raw.get(rel, {"path": rel}))
        entry["sha256"] = sha256_file(suite.root / rel)
        entries.append(entry)
    changed = write_files_table(suite.root, entries)
    print(f"{suite.root / MANIFEST}: {len(entries)} file(s) hashed"
          f"{'' if changed else ', already up to date (file left as it was)'}")
    return 0


def cmd_synth(args: argparse.Namespace) -> int:
    from .audio.synth import synth_suite_cases

    suite = load_suite(Path(args.suite))
    cases_path = suite.root / suite.manifest.get("cases", "cases.jsonl")
    out = inside(suite.root, args.out, what="--out folder", where=suite.root / MANIFEST)
    results = synth_suite_cases(
        suite.cases, suite.locale, out, canary=suite.canary,
        seed=args.seed, text_of=_script, rate=args.rate, target_lufs=args.lufs,
        silence_ms=args.silence_ms)
    by_case = {r["case_id"]: r for r in results}
    rows = [obj for _, obj in read_jsonl(cases_path, DictbenchError)]
    for row in rows:
        row["audio"] = Path(by_case[row["id"]]["path"]).relative_to(suite.root).as_posix()
    atomic_write(cases_path, "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    from .audio.io import sha256_file

    entries = [{"path": cases_path.relative_to(suite.root).as_posix(),
                "sha256": sha256_file(cases_path)}]
    for r in results:
        entries.append({"path": Path(r["path"]).relative_to(suite.root).as_posix(),
                        "sha256": r["sha256"], "case_id": r["case_id"], "voice": r["voice"],
                        "duration": r["duration"]})
    write_files_table(suite.root, entries)
    seconds = sum(r["duration"] for r in results)
    print(f"{suite.root}: {len(results)} files, {seconds:.1f} s of audio (seed {args.seed})")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="dictbench", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    hashing = sub.add_parser("hash", help="refresh the sha256 of the suite's data files")
    hashing.add_argument("suite", help="suite folder")
    hashing.set_defaults(run=cmd_hash)
    synth = sub.add_parser("synth", help="render each case's script to audio")
    synth.add_argument("suite", help="suite folder")
    synth.add_argument("--out", default="audio",
                       help="folder inside the suite (default: %(default)s)")
    synth.add_argument("--seed", type=int, default=20261129, help="voice assignment seed")
    synth.add_argument("--rate", type=int, default=16000, help="sample rate (default: %(default)s)")
    synth.add_argument("--lufs", type=float, default=-23.0, help="loudness target")
    synth.add_argument("--silence-ms", type=float, default=300.0,
                       help="silence added at both ends (default: %(default)s)")
    synth.set_defaults(run=cmd_synth)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.run(args))
    except DictbenchError as exc:
        print(f"dictbench: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
