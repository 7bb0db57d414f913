"""Run-wide values read from command-line options and ini settings: the bootstrap seed,
the text size limit, the default judges and ini-relative folders. A bad ini value is a
usage error that stops the run before anything is collected."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ..errors import JudgeError
from ..judge.settings import parse_judge_settings
from ..stats import DEFAULT_SEED
from ..suites import DEFAULT_MAX_TEXT_CHARS, read_toml

__all__ = ["bootstrap_seed", "ini_folder", "judge_default", "max_text_chars"]


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
    if not text.isdigit():
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
    if not raw.isdigit() or int(raw) < 1:
        raise pytest.UsageError(f"ini dictbench_max_text_chars must be an integer >= 1, "
                                f"got {raw!r}")
    return int(raw)
