"""The pytest plugin: activation, collection of suites, built-in registrations (its options
are declared in plugin/options.py).

dictbench is inert unless ``--product`` (benchmark items) or ``--dictbench-verify``
(integrity checks) is given: no collection of suites, no output, no report files.
"""

from __future__ import annotations

from collections.abc import Generator, Iterable, Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from ..adapters import PROVIDER_KINDS, builtin_adapters
from ..adapters.base import AdapterFactory
from ..adapters.pipeline.sweep import load_products, one_namespace
from ..child import wait_for_children
from ..errors import DictbenchError, ProductError
from ..heap import HeldHeap
from ..methods.base import Method
from ..methods.builtin import builtin_methods
from ..model import Product
from ..products import product_location
from ..redact import scrub, secret_source
from ..registry import Registry
from ..rig.package import is_package
from ..suites import MANIFEST, read_toml
from ..text.visible import visible
from . import capture_estimate, capture_plan, hookspecs
from .collect import CaseItem, SuiteCollector, split_item_id
from .estimate import JudgeEstimate
from .keys import PLUGIN_NAME as KEYS_PLUGIN
from .keys import MissingKeys
from .options import add_options, ini_folder
from .progress import CaptureProgress
from .rootdir import redetermine_setup
from .session import HEAP_KEY, SESSION_KEY, DictbenchSession, is_worker
from .split import PLUGIN_NAME as SPLIT_PLUGIN
from .split import SplitPlugin
from .terminate import Termination
from .verify import VerifyCollector

#: Name under which the ``--judge-estimate`` plugin is registered.
ESTIMATE_PLUGIN = "dictbench-judge-estimate"
#: The run's SIGTERM/SIGHUP handlers (plugin/terminate.py).
_TERMINATION = pytest.StashKey[Termination]()


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    pluginmanager.add_hookspecs(hookspecs)


def pytest_addoption(parser: pytest.Parser) -> None:
    add_options(parser)


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(early_config: pytest.Config, parser: pytest.Parser,
                                  args: list[str]) -> None:
    """``--dictbench-report DIR`` (with a space) must not move the rootdir to DIR; the
    run's held heap is let go by a cleanup registered now, before pytest's own plugins
    configure, so it runs after their cleanups: pytest's end-of-run full collections
    (unraisableexception's) skip the objects the run holds (see ``heap.HeldHeap`` for
    what that costs: cyclic garbage of the run's objects is freed later)."""
    redetermine_setup(early_config, parser, args)
    early_config.stash[HEAP_KEY] = heap = HeldHeap()
    early_config.add_cleanup(heap.let_go)


def _refuse_secret_name(product: Product) -> None:
    """A product name is printed by pytest in node ids: one holding a key is refused
    (without quoting it, nor its file, whose name is the product's); so is a ``model``
    setting, which names the product in reports and messages."""
    source = secret_source(product.name)
    if source is not None:
        raise ProductError(f"a product name holds the value of {source} (a key); it would "
                           "be printed and written in node ids: rename the product (a "
                           "sweep: give the model a label)", path=product.path.parent)
    model = product.settings.get("model")
    source = secret_source(model) if isinstance(model, str) else None
    if source is not None:
        raise ProductError(f"[settings] model holds the value of {source} (a key): name "
                           "the model, and the key's variable in api_key_env",
                           path=product.path)


def is_active(config: pytest.Config) -> bool:
    return (bool(config.getoption("dictbench_products", None))
            or bool(config.getoption("dictbench_results", None)) or is_verify(config))


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
        cwd = config.invocation_params.dir
        places = dict.fromkeys(product_location(value, folder, cwd)
                               for value in config.getoption("dictbench_products"))
        products = one_namespace(load_products(name, where) for name, where in places)
        for product in products:  # every product's keys are registered by now
            _refuse_secret_name(product)
        report = config.getoption("dictbench_report")
        report_dir = (config.invocation_params.dir / report) if report else (
            config.rootpath / "reports")
        session = DictbenchSession(config, registry, products, report_dir.resolve())
    except DictbenchError as exc:
        raise pytest.UsageError(f"dictbench: {exc}") from None
    config.stash[SESSION_KEY] = session
    config.pluginmanager.register(session, "dictbench-session")
    config.stash[_TERMINATION] = termination = session.termination
    termination.install()  # SIGTERM/SIGHUP end the captures' process groups first
    estimate = config.getoption("dictbench_judge_estimate")
    judge_estimate = JudgeEstimate(session, estimate or "local")
    if estimate:
        if getattr(config.option, "numprocesses", None) or is_worker(config):
            raise pytest.UsageError("dictbench: --judge-estimate runs in one process; "
                                    "drop -n")
        config.pluginmanager.register(judge_estimate, ESTIMATE_PLUGIN)
    config.pluginmanager.register(capture_plan.CapturePlan(), capture_plan.PLUGIN_NAME)
    if not getattr(config.option, "numprocesses", None) and not is_worker(config) \
            and not config.getoption("dictbench_capture_estimate") \
            and not config.option.collectonly:
        config.pluginmanager.register(MissingKeys(session.options),
                                      KEYS_PLUGIN)  # one usage error per missing key
    if config.getoption("dictbench_capture_estimate"):
        if getattr(config.option, "numprocesses", None) or is_worker(config):
            raise pytest.UsageError("dictbench: --capture-estimate runs in one process; drop -n")
        config.pluginmanager.register(capture_estimate.CaptureEstimatePlugin(
            config.getoption("dictbench_recapture"), judge_estimate,
            show_judge=not estimate), capture_estimate.PLUGIN_NAME)
    half = config.getoption("dictbench_split", None)
    if half:
        config.pluginmanager.register(
            SplitPlugin(half, config.getoption("dictbench_split_seed")), SPLIT_PLUGIN)
    if not config.pluginmanager.hasplugin("xdist"):
        config.addinivalue_line("markers", "xdist_group(name): capture group of a live "
                                "product (scheduling needs pytest-xdist)")
    live = [p.name for p in products if p.adapter != "cache"]
    dist = getattr(config.option, "dist", "no")  # pytest-xdist's mode; "no" without it
    if live and not session.worker and dist == "each":
        raise pytest.UsageError(
            f"dictbench: --dist each runs every item on every worker, so live product(s) "
            f"{', '.join(live)} would capture each item once per worker, at the same time; "
            "use -n N (dictbench keeps each capture group on one worker)")
    interval = config.getoption("dictbench_progress")
    if live and interval and not session.worker:
        config.pluginmanager.register(CaptureProgress(
            config, live, interval,
            lambda nodeid: _item_product(nodeid, [p.name for p in products])),
            "dictbench-progress")
    if dist != "no" and not session.worker:
        # the controller of an xdist run (where xdist starts its DSession): capture
        # groups on one worker each, in order; a crashed worker's item an error (loaded
        # only then: a serial run does not import xdist's schedulers)
        from . import scheduler

        config.pluginmanager.register(scheduler.XdistHooks(config), "dictbench-scheduling")

    if config.args_source != pytest.Config.ArgsSource.ARGS:
        suites = config.getini("dictbench_suites")
        if not suites:
            raise pytest.UsageError("dictbench: no suite paths given and the ini option "
                                    "'dictbench_suites' is empty")
        config.args = [str(p) for p in suites]


def pytest_report_header(config: pytest.Config) -> str | None:
    """``dictbench: suites cases/mini; products p1, p2`` under pytest's own header, which
    names only the ini's testpaths."""
    session = config.stash.get(SESSION_KEY, None)
    if session is None or session.worker:
        return None
    where = config.invocation_params.dir
    suites = ", ".join(dict.fromkeys(
        _relative_to((where / arg.split("::")[0]).resolve(), config.rootpath)
        for arg in config.args)) or "none"
    kind = "verify suites" if is_verify(config) else "suites"
    products = ", ".join(p.name for p in session.products)
    return "\n".join([f"dictbench: {kind} {suites}" + (f"; products {products}" if products
                                                       else ""), *_elsewhere(session.products)])


def _elsewhere(products: Iterable[Product]) -> list[str]:
    """One line per cloud provider product whose ``base_url`` is not its kind's
    documented root: where its key and audio go, said before the first request (PV4)."""
    lines = []
    for product in products:
        base_url = product.settings.get("base_url")
        if product.adapter not in PROVIDER_KINDS or not isinstance(base_url, str):
            continue
        from ..adapters.providers import PROVIDERS  # only a run with such a product

        provider = PROVIDERS[product.adapter]
        try:
            parts = urlsplit(base_url)
            host = parts.netloc.rpartition("@")[2]  # never user info: it may hold a key
        except ValueError:
            continue  # refused when the adapter loads
        if parts.hostname != urlsplit(provider.default_base_url).hostname:
            lines.append(scrub(f"dictbench: {product.name} sends its key and audio to "
                               f"{parts.scheme}://{host}, not to {provider.title}'s "
                               f"documented {provider.default_base_url}"))
    return lines


def _item_product(nodeid: str, products: Iterable[str]) -> str | None:
    parts = split_item_id(nodeid, tuple(products))
    return parts[2] if parts else None


def pytest_unconfigure(config: pytest.Config) -> None:
    wait_for_children()  # the session's helper processes, told to end at its finish
    session = config.stash.get(SESSION_KEY, None)
    termination = config.stash.get(_TERMINATION, None)
    if termination is not None:
        termination.uninstall()
        del config.stash[_TERMINATION]
    for name in (ESTIMATE_PLUGIN, capture_estimate.PLUGIN_NAME, capture_plan.PLUGIN_NAME):
        if config.pluginmanager.has_plugin(name):
            config.pluginmanager.unregister(name=name)
    if session is not None:
        if HEAP_KEY not in config.stash:  # no cleanup lets it go (see above)
            session.heap.let_go()
        config.pluginmanager.unregister(session)
        for name in ("dictbench-scheduling", "dictbench-progress", SPLIT_PLUGIN):
            if config.pluginmanager.has_plugin(name):
                config.pluginmanager.unregister(name=name)
        del config.stash[SESSION_KEY]


#: Suites named on the command line of a run that is not active (see below).
_IDLE_SUITES = pytest.StashKey[list[Path]]()
#: Real paths of the suite manifests collected so far in this process.
_COLLECTED = pytest.StashKey[set[Path]]()


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.File | None:
    rig = is_package(file_path)
    if file_path.name != MANIFEST and not rig:
        return None
    if not is_active(parent.config):
        if not rig and _named_suite(parent.config, file_path):
            parent.config.stash.setdefault(_IDLE_SUITES, []).append(file_path)
        return None
    seen = parent.config.stash.setdefault(_COLLECTED, set())
    if file_path.resolve() in seen:  # the same suite reached again through a symlink
        return None
    seen.add(file_path.resolve())
    if is_verify(parent.config):
        return VerifyCollector.from_parent(parent, path=file_path)
    if rig:  # the rig's modules load only for a run that collects a rig package
        from .rig import RigCollector

        return RigCollector.from_parent(parent, path=file_path)
    return SuiteCollector.from_parent(parent, path=file_path)


def _named_suite(config: pytest.Config, manifest: Path) -> bool:
    """Whether ``manifest`` is a dictbench suite named on the command line (its folder
    or the file itself), so that a run without ``--product`` can say what is missing."""
    if config.args_source != pytest.Config.ArgsSource.ARGS:
        return False
    named = {(config.invocation_params.dir / arg.split("::")[0]).resolve()
             for arg in config.args}
    if manifest.resolve() not in named and manifest.parent.resolve() not in named:
        return False
    try:
        data = read_toml(manifest)
    except DictbenchError:
        return False
    return {"id", "method", "canary"} <= data.keys()


def pytest_report_collectionfinish(config: pytest.Config) -> str | None:
    suites = config.stash.get(_IDLE_SUITES, None)
    if not suites or is_active(config):
        return None
    first = _relative_to(suites[0], config.invocation_params.dir)
    more = f" and {len(suites) - 1} more" if len(suites) > 1 else ""
    return (f"dictbench: {first}{more} is a benchmark suite, collected only with "
            "--product=NAME (or checked with --dictbench-verify)")


def _relative_to(path: Path, folder: Path) -> str:
    try:
        return path.relative_to(folder).as_posix()
    except ValueError:
        return str(path)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]
                              ) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """Point skip reports of case items at the case's line instead of plugin code (with
    control characters of the reason made visible, and secrets scrubbed)."""
    report = yield
    if isinstance(item, CaseItem) and report.skipped and isinstance(report.longrepr, tuple):
        path, line, _ = item.reportinfo()
        report.longrepr = (str(path), (line or 0) + 1, scrub(visible(report.longrepr[2])))
    return report


# -- built-in registrations (ordinary hook implementations, like any other plugin's) ----


def pytest_dictbench_methods() -> Iterable[Method]:
    return builtin_methods()


def pytest_dictbench_adapters() -> Mapping[str, AdapterFactory]:
    return builtin_adapters()


@pytest.hookimpl(trylast=True)
def pytest_dictbench_generate_report(config: pytest.Config, records: Any) -> dict[str, Any]:
    return config.stash[SESSION_KEY].summarize(records)
