"""The command-line options and ini settings dictbench adds, and the run-wide values read
from them: the bootstrap seed, the text size limit, the default judges and ini-relative
folders. A bad ini value is a usage error that stops the run before anything is
collected."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ..errors import JudgeError
from ..judge.settings import parse_judge_settings
from ..stats import DEFAULT_RESAMPLES, DEFAULT_SEED
from ..suites import DEFAULT_MAX_TEXT_CHARS, read_toml
from . import capture_estimate
from .judge import JUDGE_MODES
from .split import add_split_options
from .store import add_store_options

__all__ = ["add_options", "bootstrap_seed", "ini_folder", "judge_default", "max_text_chars"]


def _ascii(text: str) -> str:
    """``text`` when it is ASCII: Python's ``int`` and ``float`` also read Arabic-Indic and
    fullwidth digits, which no option takes (one rule with the results CSV: CF10)."""
    if not text.isascii():
        raise ValueError(text)
    return text


def _at_least(minimum: int) -> Any:
    """An argparse type: an integer no smaller than ``minimum``, in ASCII digits."""

    def parse(text: str) -> int:
        value = int(_ascii(text))
        if value < minimum:
            raise ValueError(text)
        return value

    parse.__name__ = f"integer >= {minimum} (ASCII digits)"
    return parse


def _non_negative(text: str) -> float:
    """An argparse type: a finite number >= 0, in ASCII digits."""
    value = float(_ascii(text))
    if not 0 <= value < float("inf"):
        raise ValueError(text)
    return value


_non_negative.__name__ = "number >= 0 (ASCII digits)"


def _number(text: str) -> float:
    """An argparse type: a number in ASCII digits."""
    return float(_ascii(text))


_number.__name__ = "number (ASCII digits)"


def add_options(parser: pytest.Parser) -> None:
    """The command-line options and ini settings dictbench adds to pytest."""
    group = parser.getgroup("dictbench", "speech-to-text and dictation benchmarks")
    group.addoption(
        "--product", action="append", dest="dictbench_products", metavar="NAME", default=[],
        help="Run the benchmark suites against product NAME (products/NAME.toml) or the "
        "product file at a path ending in .toml; may be repeated. A sweep file runs every "
        "product of its matrix (docs/refine.md). Activates dictbench.")
    add_split_options(group)
    group.addoption(
        "--dictbench-verify", action="store_true", dest="dictbench_verify", default=False,
        help="Collect the integrity checks of the suites (manifest, sha256, canary, cases, "
        "audio specification, execution gate) instead of benchmark items.")
    group.addoption(
        "--dictbench-calibration", dest="dictbench_calibration", metavar="DIR", default=None,
        help="Rig imports: folder of the per-block calibration recordings (blocks.csv, "
        "stimulus.wav); rows of a block whose calibration fails are invalid (invalid_rig). "
        "Default: the manifest's protocol.calibration.recordings_dir, if any.")
    group.addoption(
        "--dictbench-results", dest="dictbench_results", metavar="CSV", default=None,
        help="Import a rig results CSV: every row becomes one item of the rig package "
        "collected beside it. Activates dictbench.")
    group.addoption(
        "--dictbench-results-out", dest="dictbench_results_out", metavar="CSV",
        default=None, help="Write the rig items of this run as a 28-column results CSV.")
    group.addoption(
        "--dictbench-report", dest="dictbench_report", metavar="DIR", default=None,
        help="Folder for dictbench.json, items.jsonl and run-info.json. Default: reports/ "
        "under the rootdir.")
    group.addoption(
        "--repetitions", dest="dictbench_repetitions", metavar="N", type=_at_least(1), default=None,
        help="Measured repetitions per case and product. Default: the suite's own.")
    group.addoption(
        "--recapture", action="store_true", dest="dictbench_recapture", default=False,
        help="Live products capture every item again instead of reusing their cache.")
    group.addoption(
        "--dictbench-offline-audit", action="store_true", dest="dictbench_offline_audit",
        default=False,
        help="Capture every live item a second time inside a network namespace with no "
        "network (unshare --net) and record whether it completed and matched; an "
        "'on_device' processing-path claim is verified only by this audit.")
    group.addoption(
        "--dictbench-no-warmup", action="store_false", dest="dictbench_warmup", default=True,
        help="Skip the unscored warm-up capture live products make before measuring.")
    group.addoption(
        "--dictbench-item-failures", dest="dictbench_item_failures", default="fail",
        choices=("fail", "report"),
        help="'fail': an item below its method's gate fails its test; 'report': it is only "
        "reported, so CI gates on the aggregate. Default: %(default)r.")
    group.addoption(
        "--judge", dest="dictbench_judge", default="replay", choices=JUDGE_MODES,
        help="LLM judges for rules that need judgement: 'off' leaves them unjudged, "
        "'replay' uses cached verdicts only (no network), 'live' calls the API for cache "
        "misses, 'batch' submits them as Message Batches and collects them on a later run "
        "(items pending meanwhile are not scored). Default: %(default)r.")
    group.addoption(
        "--judge-batch-wait", dest="dictbench_judge_batch_wait", metavar="SECONDS",
        type=_number, default=0.0,
        help="With --judge=batch, wait up to SECONDS for open batches to end (printing "
        "progress) before leaving their items pending. Default: %(default)r.")
    group.addoption(
        "--judge-estimate", dest="dictbench_judge_estimate", nargs="?", const="local",
        default=None, choices=("local", "api"),
        help="Send nothing and run no item: print the uncached judge requests, their "
        "expected tokens and cost live and in batch. Tokens are estimated locally, or "
        "counted by the API's token counting with =api (a network call, not billed).")
    capture_estimate.add_option(group)
    group.addoption(
        "--judge-audit", dest="dictbench_judge_audit", metavar="N", type=_at_least(0),
        default=0,
        help="With --judge=live, judge N cached items again per judge and report "
        "self-consistency. Default: 0.")
    group.addoption(
        "--dictbench-resamples", dest="dictbench_resamples", metavar="N", type=_at_least(100),
        default=DEFAULT_RESAMPLES,
        help="Bootstrap resamples for intervals and paired comparisons (seeded). "
        "Default: %(default)r.")
    group.addoption(
        "--dictbench-seed", dest="dictbench_seed", metavar="N", type=_at_least(0),
        default=None,
        help="Seed of the bootstrap (intervals and paired comparisons); recorded in "
        "dictbench.json. Default: ini dictbench_seed, else 20261129.")
    group.addoption(
        "--dictbench-baseline", dest="dictbench_baseline", metavar="PATH", default=None,
        help="A previous run's dictbench.json (items.jsonl beside it) or its folder: each "
        "product is compared with itself there, on the same items. From the results store: "
        "store:latest, store:official, store:RUN_ID or store:GIT_REF (docs/store.md).")
    group.addoption(
        "--dictbench-max-drop", dest="dictbench_max_drop", metavar="POINTS", type=_number,
        default=None,
        help="With --dictbench-baseline, fail the run when a product's score drop is "
        "statistically resolved and larger than POINTS. Default: 0.")
    group.addoption(
        "--dictbench-max-drop-abs", dest="dictbench_max_drop_abs", metavar="POINTS",
        type=_non_negative, default=None,
        help="With --dictbench-baseline, fail the run when a product's score drops by more "
        "than POINTS, resolved or not: a guard for a large drop in a few cases, which the "
        "bootstrap cannot resolve (docs/ci.md). Default: off.")
    group.addoption(
        "--dictbench-min-score", dest="dictbench_min_score", metavar="S", type=_number,
        default=None, help="Fail the run when a product's suite score is below S.")
    group.addoption(
        "--dictbench-progress", dest="dictbench_progress", metavar="SECONDS",
        type=_non_negative, default=30.0,
        help="Live products: a progress line per product (items, audio seconds, RTFx, time "
        "left) at most every SECONDS and when it is done; 0 turns it off. "
        "Default: %(default)r.")
    group.addoption(
        "--dictbench-allow-missing", action="store_true", dest="dictbench_allow_missing",
        default=False,
        help="In a gated run (--dictbench-baseline, --dictbench-max-drop or "
        "--dictbench-min-score), accept items without output (not_tested) and gate on "
        "the items that ran. Without it, missing items fail the gate.")
    group.addoption(
        "--dictbench-max-text-chars", dest="dictbench_max_text_chars", metavar="N",
        type=_at_least(1), default=None,
        help="Longest reference or output text, in characters; longer ones are refused "
        "naming file:line. Default: ini dictbench_max_text_chars, else 200000.")
    add_store_options(group, parser)
    parser.addini("dictbench_judge_config", "A TOML file whose [judge] table configures the "
                  "judges of suites that declare none (relative to the ini file).",
                  default="")
    parser.addini("dictbench_judge_dir", "Folder of the judge verdict cache and the human "
                  "decisions file adjudications.jsonl.", default="judges")
    parser.addini("dictbench_seed", "Seed of the bootstrap when --dictbench-seed is not "
                  "given (an integer >= 0).", default="")
    parser.addini("dictbench_suites", "Suites run by 'pytest --product=X' without paths.",
                  type="paths", default=[])
    parser.addini("dictbench_products", "Folder of product files (relative to the ini file).",
                  default="products")
    parser.addini("dictbench_max_text_chars", "Longest reference or output text, in "
                  "characters (--dictbench-max-text-chars).", default="")
    parser.addini("dictbench_junit_properties", "Write dictbench.* testcase properties "
                  "into JUnit XML.", type="bool", default=True)


def judge_default(config: pytest.Config) -> dict[str, Any] | None:
    """The ``[judge]`` table of the TOML file named by ini ``dictbench_judge_config``,
    used by suites whose method has judged rules and which declare no judges."""
    value = config.getini("dictbench_judge_config")
    if not value:
        return None
    path = ini_folder(config, value)
    table = read_toml(path, JudgeError).get("judge")
    if not isinstance(table, dict):
        raise JudgeError("no [judge] table", path=path)
    parse_judge_settings(table, path=path)
    return table


def bootstrap_seed(config: pytest.Config) -> int:
    """``--dictbench-seed``, else ini ``dictbench_seed``, else :data:`DEFAULT_SEED`."""
    value = config.getoption("dictbench_seed", None)
    if value is not None:
        return int(value)
    text = str(config.getini("dictbench_seed") or "").strip()
    if not text:
        return DEFAULT_SEED
    if not (text.isascii() and text.isdigit()):
        where = config.inipath or "ini"
        raise pytest.UsageError(f"{where}: dictbench_seed must be an integer >= 0, got {text!r}")
    return int(text)


def ini_folder(config: pytest.Config, value: str) -> Path:
    """An ini path, relative to the ini file's folder (or the rootdir)."""
    base = config.inipath.parent if config.inipath else config.rootpath
    return (base / value).resolve()


def max_text_chars(config: pytest.Config) -> int:
    """``--dictbench-max-text-chars``, else ini ``dictbench_max_text_chars``, else the
    default; a bad ini value is a usage error."""
    value = config.getoption("dictbench_max_text_chars", None)
    if value is not None:
        return int(value)
    raw = str(config.getini("dictbench_max_text_chars") or "").strip().replace("_", "")
    if not raw:
        return DEFAULT_MAX_TEXT_CHARS
    if not (raw.isascii() and raw.isdigit()) or int(raw) < 1:
        raise pytest.UsageError(f"ini dictbench_max_text_chars must be an integer >= 1, "
                                f"got {raw!r}")
    return int(raw)
