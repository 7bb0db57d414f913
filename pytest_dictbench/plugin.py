"""The pytest plugin: options, activation, collection of suites, built-in registrations.

dictbench is inert unless ``--product`` (benchmark items) or ``--dictbench-verify``
(integrity checks) is given: no collection of suites, no output, no report files.
"""

from __future__ import annotations

from collections.abc import Generator, Iterable, Mapping
from pathlib import Path
from typing import Any

import pytest

from . import hookspecs
from .adapters import BUILTIN_ADAPTERS
from .adapters.base import AdapterFactory
from .adapters.cache import CacheAdapter
from .collect import CaseItem, SuiteCollector
from .errors import DictbenchError
from .judging import JUDGE_MODES
from .methods.base import Method
from .methods.error_rate import ErrorRate
from .methods.rubric import RubricMethod
from .methods.verbatim import Verbatim
from .products import load_product
from .registry import Registry
from .session import SESSION_KEY, DictbenchSession, ini_folder
from .stats import DEFAULT_RESAMPLES
from .suites import MANIFEST
from .verify import VerifyCollector


def _at_least(minimum: int) -> Any:
    """An argparse type: an integer no smaller than ``minimum``."""

    def parse(text: str) -> int:
        value = int(text)
        if value < minimum:
            raise ValueError(text)
        return value

    parse.__name__ = f"integer >= {minimum}"
    return parse


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    pluginmanager.add_hookspecs(hookspecs)


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("dictbench", "speech-to-text and dictation benchmarks")
    group.addoption(
        "--product", action="append", dest="dictbench_products", metavar="NAME", default=[],
        help="Run the benchmark suites against product NAME (products/NAME.toml); "
        "may be repeated. Activates dictbench.")
    group.addoption(
        "--dictbench-verify", action="store_true", dest="dictbench_verify", default=False,
        help="Collect the integrity checks of the suites (manifest, sha256, canary, cases, "
        "audio specification, execution gate) instead of benchmark items.")
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
        "misses. Default: %(default)r.")
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
        "--dictbench-baseline", dest="dictbench_baseline", metavar="PATH", default=None,
        help="A previous run's dictbench.json (items.jsonl beside it) or its folder: each "
        "product is compared with itself there, on the same items.")
    group.addoption(
        "--dictbench-max-drop", dest="dictbench_max_drop", metavar="POINTS", type=float,
        default=0.0,
        help="With --dictbench-baseline, fail the run when a product's score drop is "
        "statistically resolved and larger than POINTS. Default: %(default)r.")
    group.addoption(
        "--dictbench-min-score", dest="dictbench_min_score", metavar="S", type=float,
        default=None, help="Fail the run when a product's suite score is below S.")
    group.addoption(
        "--dictbench-max-text-chars", dest="dictbench_max_text_chars", metavar="N",
        type=_at_least(1), default=None,
        help="Longest reference or output text, in characters; longer ones are refused "
        "naming file:line. Default: ini dictbench_max_text_chars, else 200000.")
    parser.addini("dictbench_judge_config", "A TOML file whose [judge] table configures the "
                  "judges of suites that declare none (relative to the ini file).",
                  default="")
    parser.addini("dictbench_judge_dir", "Folder of the judge verdict cache and the human "
                  "decisions file adjudications.jsonl.", default="judges")
    parser.addini("dictbench_suites", "Suites run by 'pytest --product=X' without paths.",
                  type="paths", default=[])
    parser.addini("dictbench_products", "Folder of product files (relative to the ini file).",
                  default="products")
    parser.addini("dictbench_max_text_chars", "Longest reference or output text, in "
                  "characters (--dictbench-max-text-chars).", default="")
    parser.addini("dictbench_junit_properties", "Write dictbench.* testcase properties "
                  "into JUnit XML.", type="bool", default=True)


def is_active(config: pytest.Config) -> bool:
    return bool(config.getoption("dictbench_products", None)) or is_verify(config)


def is_verify(config: pytest.Config) -> bool:
    return bool(config.getoption("dictbench_verify", False))


@pytest.hookimpl(trylast=True)  # after xdist has settled its --dist mode
def pytest_configure(config: pytest.Config) -> None:
    if not is_active(config):
        return
    hook = config.hook
    if is_verify(config) and config.getoption("dictbench_products"):
        raise pytest.UsageError("dictbench: --dictbench-verify checks suites; run it "
                                "without --product")
    try:
        registry = Registry.build(hook.pytest_dictbench_methods(),
                                  hook.pytest_dictbench_adapters())
        folder = ini_folder(config, config.getini("dictbench_products"))
        names = dict.fromkeys(config.getoption("dictbench_products"))
        products = [load_product(name, folder) for name in names]
        report = config.getoption("dictbench_report")
        report_dir = (config.invocation_params.dir / report) if report else (
            config.rootpath / "reports")
        session = DictbenchSession(config, registry, products, report_dir.resolve())
    except DictbenchError as exc:
        raise pytest.UsageError(f"dictbench: {exc}") from None
    config.stash[SESSION_KEY] = session
    config.pluginmanager.register(session, "dictbench-session")
    if not config.pluginmanager.hasplugin("xdist"):
        config.addinivalue_line("markers", "xdist_group(name): capture group of a live "
                                "product (scheduling needs pytest-xdist)")
    if any(p.adapter != "cache" for p in products):
        # Live products keep each capture group on one worker, in order: the controller
        # schedules by group, and workers (which re-parse the command line, where the
        # mode is "load") are told to tag their items' node ids with the group.
        if getattr(config.option, "dist", "no") == "load":
            config.option.dist = "loadgroup"
        if getattr(config, "workerinput", {}).get("dictbench_loadgroup"):
            config.option.loadgroup = True

    if config.args_source != pytest.Config.ArgsSource.ARGS:
        suites = config.getini("dictbench_suites")
        if not suites:
            raise pytest.UsageError("dictbench: no suite paths given and the ini option "
                                    "'dictbench_suites' is empty")
        config.args = [str(p) for p in suites]


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """xdist: tell each worker whether the controller schedules by capture group."""
    node.workerinput["dictbench_loadgroup"] = (
        getattr(node.config.option, "dist", "no") == "loadgroup")


def pytest_unconfigure(config: pytest.Config) -> None:
    session = config.stash.get(SESSION_KEY, None)
    if session is not None:
        config.pluginmanager.unregister(session)
        del config.stash[SESSION_KEY]


#: Real paths of the suite manifests collected so far in this process.
_COLLECTED = pytest.StashKey[set[Path]]()


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.File | None:
    if file_path.name != MANIFEST or not is_active(parent.config):
        return None
    seen = parent.config.stash.setdefault(_COLLECTED, set())
    if file_path.resolve() in seen:  # the same suite reached again through a symlink
        return None
    seen.add(file_path.resolve())
    if is_verify(parent.config):
        return VerifyCollector.from_parent(parent, path=file_path)
    return SuiteCollector.from_parent(parent, path=file_path)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]
                              ) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """Point skip reports of case items at the case's line instead of plugin code."""
    report = yield
    if isinstance(item, CaseItem) and report.skipped and isinstance(report.longrepr, tuple):
        path, line, _ = item.reportinfo()
        report.longrepr = (str(path), (line or 0) + 1, report.longrepr[2])
    return report


# -- built-in registrations (ordinary hook implementations, like any other plugin's) ----


def pytest_dictbench_methods() -> Iterable[Method]:
    return [ErrorRate(), RubricMethod(), Verbatim()]


def pytest_dictbench_adapters() -> Mapping[str, AdapterFactory]:
    return {"cache": CacheAdapter, **BUILTIN_ADAPTERS}


@pytest.hookimpl(trylast=True)
def pytest_dictbench_generate_report(config: pytest.Config, records: Any) -> dict[str, Any]:
    return config.stash[SESSION_KEY].summarize(records)
