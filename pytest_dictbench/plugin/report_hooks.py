"""The report hooks, called one implementation at a time: a plugin that raises, or
returns the wrong type, is named and left out, and the built-in report is still written."""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any

import pytest

__all__ = ["generate_report", "update_report"]


def _describe(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"


def _impls(config: pytest.Config, name: str) -> list[Any]:
    """The hook's implementations in the order pluggy calls them (wrappers left out)."""
    impls = getattr(config.hook, name).get_hookimpls()
    return [i for i in reversed(impls) if not (i.hookwrapper or getattr(i, "wrapper", False))]


def _call(impl: Any, kwargs: Mapping[str, Any]) -> Any:
    return impl.function(*(kwargs[arg] for arg in impl.argnames))


def generate_report(config: pytest.Config, records: Sequence[Mapping[str, Any]],
                    problems: list[str]) -> dict[str, Any]:
    """The first report body an implementation of ``pytest_dictbench_generate_report``
    gives; one that raises or gives something other than a report (an object with a
    ``suites`` list) is named in ``problems`` and skipped, down to the built-in one."""
    kwargs = {"config": config, "records": records}
    for impl in _impls(config, "pytest_dictbench_generate_report"):
        try:
            report = _call(impl, kwargs)
        except Exception as exc:  # a plugin's failure must not cost the built-in report
            problems.append(f"pytest_dictbench_generate_report of plugin {impl.plugin_name} "
                            f"failed ({_describe(exc)}); the built-in report was used")
            continue
        if report is None:
            continue
        if not isinstance(report, dict) or not isinstance(report.get("suites"), list):
            problems.append(f"pytest_dictbench_generate_report of plugin {impl.plugin_name} "
                            f"returned {type(report).__name__}, not a report (a dict with a "
                            "'suites' list); the built-in report was used")
            continue
        return report
    raise RuntimeError("no pytest_dictbench_generate_report implementation gave a report")


def update_report(config: pytest.Config, report: dict[str, Any], problems: list[str]
                  ) -> dict[str, Any]:
    """``report`` after every ``pytest_dictbench_update_report`` implementation; the
    changes of one that raises are undone, and it is named in ``problems``."""
    kwargs: dict[str, Any] = {"config": config}
    for impl in _impls(config, "pytest_dictbench_update_report"):
        kept = copy.deepcopy(report)
        kwargs["report"] = report
        try:
            _call(impl, kwargs)
        except Exception as exc:
            problems.append(f"pytest_dictbench_update_report of plugin {impl.plugin_name} "
                            f"failed ({_describe(exc)}); the reports were written without "
                            "its changes")
            report = kept
    return report
