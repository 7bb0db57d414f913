"""Rootdir and ini file when a dictbench option's value is written after a space.

pytest finds the rootdir and the ini file before it loads plugins from entry points,
so at that moment ``--dictbench-report /abs/dir`` is an unknown option followed by a
free argument, and ``/abs/dir`` is taken for a test path: the rootdir becomes
``/abs/dir`` and the project's ini file (with ``dictbench_products`` and
``dictbench_suites``) is not found. ``--dictbench-report=/abs/dir`` never had the
problem. Once the plugin is loaded, :func:`redetermine_setup` runs pytest's own search
again on the real free arguments and, when the outcome differs, puts the right rootdir
and ini file in place before anything reads them (conftests, ini values, collection).
"""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from _pytest.config.findpaths import determine_setup

__all__ = ["redetermine_setup"]


def _value_options(parser: pytest.Parser) -> set[str]:
    """Long option names of the dictbench group that take a value."""
    group = parser.getgroup("dictbench")
    names: set[str] = set()
    for option in group.options:
        if option.attrs().get("action") in ("store_true", "store_false"):
            continue
        names.update(name for name in option.names() if name.startswith("--"))
    return names


def _spaced_values(args: Sequence[str], options: set[str]) -> bool:
    """Whether some dictbench option in ``args`` has its value as the next argument."""
    return any(arg in options for arg in args[:-1])


def _determine(config: pytest.Config, args: Sequence[str]) -> tuple[Path, Path | None, Any]:
    """pytest's rootdir/ini search on ``args`` (keyword names differ across versions)."""
    ns = config.known_args_namespace
    offered = {"inifile": None, "args": list(args), "rootdir_cmd_arg": ns.rootdir or None,
               "invocation_dir": config.invocation_params.dir,
               "override_ini": getattr(ns, "override_ini", None)}
    accepted = inspect.signature(determine_setup).parameters
    found = determine_setup(**{k: v for k, v in offered.items() if k in accepted})
    return found[0], found[1], found[2]


def redetermine_setup(config: pytest.Config, parser: pytest.Parser, args: Sequence[str]
                      ) -> None:
    """Correct the rootdir and ini file found while dictbench's options were unknown."""
    ns = config.known_args_namespace
    if ns.inifilename or not _spaced_values(args, _value_options(parser)):
        return
    rootpath, inipath, inicfg = _determine(config, ns.file_or_dir)
    if (rootpath, inipath) == (config.rootpath, config.inipath):
        return
    old_cut = str(config.inipath.parent) if config.inipath else str(config.rootpath)
    config._rootpath = rootpath  # type: ignore[attr-defined]
    config._inipath = inipath  # type: ignore[attr-defined]
    setattr(config, "_inicfg" if hasattr(config, "_inicfg") else "inicfg", inicfg)
    config._inicache.clear()  # type: ignore[attr-defined]
    parser.extra_info["rootdir"] = str(rootpath)
    parser.extra_info["inifile"] = str(inipath)
    if ns.confcutdir == old_cut:
        ns.confcutdir = str(inipath.parent) if inipath else str(rootpath)
