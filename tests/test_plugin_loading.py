"""PL17: the plugin can be named by its module, as pytest's usual ways of naming a
plugin do, besides loading itself from its ``pytest11`` entry point (``dictbench``).

The entry point names a module that holds no hook (``pytest_dictbench.plugin_entry``)
and asks pytest to load ``pytest_dictbench.plugin`` under its module name, which pytest
does once however often it is named. Here the entry point is loaded with ``-p`` (plugin
autoload off), as pytest loads an entry point: ``register(module, name)``.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
ENTRY = "pytest_dictbench.plugin_entry"


def run(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
           "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args],
                          cwd=folder, env=env, capture_output=True, text=True, timeout=120)


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    (tmp_path / "test_one.py").write_text("def test_one():\n    pass\n")
    return tmp_path


def test_the_entry_point_names_the_loader_module() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert config["project"]["entry-points"]["pytest11"] == {"dictbench": ENTRY}


@pytest.mark.parametrize("order", [(ENTRY, "pytest_dictbench.plugin"),
                                   ("pytest_dictbench.plugin", ENTRY)])
def test_naming_the_module_with_p_beside_the_entry_point_works(
        folder: Path, order: tuple[str, str]) -> None:
    """``pytest -p pytest_dictbench.plugin`` in an environment where the entry point
    loads too, in either order: one registration, the options known."""
    result = run(folder, "-p", order[0], "-p", order[1], "--help")
    assert result.returncode == 0, result.stderr
    assert "already registered" not in result.stderr
    assert "--dictbench-split" in result.stdout
    result = run(folder, "-p", order[0], "-p", order[1], "-q")
    assert result.returncode == 0, result.stdout + result.stderr


def test_naming_the_module_in_pytest_plugins_of_a_conftest_works(folder: Path) -> None:
    """``pytest_plugins = ["pytest_dictbench.plugin"]`` in the root conftest."""
    (folder / "conftest.py").write_text('pytest_plugins = ["pytest_dictbench.plugin"]\n')
    result = run(folder, "-p", ENTRY, "-q")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "1 passed" in result.stdout
    result = run(folder, "-q", "--help")  # the conftest alone loads it too
    assert "--dictbench-split" in result.stdout


def test_loading_through_the_entry_point_warns_of_nothing(folder: Path) -> None:
    """The entry module sits outside the plugin package: importing it must not import
    ``pytest_dictbench.plugin`` before pytest marks that for assertion rewriting (every
    run printed a PytestAssertRewriteWarning when it did)."""
    result = run(folder, "-p", ENTRY, "-q", "-W", "error::pytest.PytestAssertRewriteWarning")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "PytestAssertRewriteWarning" not in result.stdout + result.stderr
