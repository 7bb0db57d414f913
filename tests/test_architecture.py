"""The layout's rules (docs/architecture.md): one pytest shell over a pure core."""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "pytest_dictbench"
SHELL_IMPORTS = ("pytest", "_pytest", "xdist")


def _contracts() -> dict[str, dict]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    return {c["id"]: c for c in config["tool"]["importlinter"]["contracts"]}


def _top_level_parts() -> set[str]:
    parts = {p.stem for p in PACKAGE.glob("*.py") if p.name != "__init__.py"}
    parts |= {p.parent.name for p in PACKAGE.glob("*/__init__.py")}
    parts |= {p.name for p in PACKAGE.iterdir()  # namespace folders of modules count too
              if p.is_dir() and any(p.glob("*.py"))}
    return {f"pytest_dictbench.{name}" for name in parts}


def _imported_roots(path: Path) -> set[str]:
    roots = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            roots |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            roots.add(node.module.split(".")[0])
    return roots


def test_import_contracts_are_kept() -> None:
    """The three import-linter contracts of pyproject.toml hold for the package."""
    from importlinter import cli

    code = cli.lint_imports(config_filename=str(ROOT / "pyproject.toml"), no_cache=True,
                            no_logo=True)
    assert code == 0


def test_the_pure_core_contract_names_every_top_level_part_but_the_shell() -> None:
    """A new top-level module cannot slip past the first contract."""
    listed = set(_contracts()["pure-core"]["source_modules"])
    assert listed == _top_level_parts() - {"pytest_dictbench.plugin"}


def test_no_module_outside_the_shell_imports_pytest() -> None:
    """The same rule read directly from the source, without import-linter."""
    offenders = sorted(
        str(path.relative_to(ROOT)) for path in PACKAGE.rglob("*.py")
        if path.relative_to(PACKAGE).parts[0] != "plugin"
        and _imported_roots(path) & set(SHELL_IMPORTS))
    assert offenders == []


def test_nothing_outside_the_shell_imports_it_but_the_old_hookspecs_path() -> None:
    importers = []
    for path in PACKAGE.rglob("*.py"):
        rel = path.relative_to(PACKAGE)
        if rel.parts[0] == "plugin":
            continue
        module = ".".join(("pytest_dictbench", *rel.with_suffix("").parts))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                base = module.split(".")[: -node.level] if node.level else []
                target = ".".join([*base, node.module or ""]).rstrip(".")
                if target.startswith("pytest_dictbench.plugin"):
                    importers.append(module)
    assert importers == ["pytest_dictbench.hookspecs"]


def test_the_old_hookspecs_path_still_serves_every_hook() -> None:
    from pytest_dictbench import hookspecs as old
    from pytest_dictbench.plugin import hookspecs as new

    hooks = {name for name in dir(new) if name.startswith("pytest_dictbench_")}
    assert hooks and all(getattr(old, name) is getattr(new, name) for name in hooks)


def test_the_entry_point_names_the_shell() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    # a loader module with no hook, which loads the shell under its module name (PL17)
    assert config["project"]["entry-points"]["pytest11"] == {
        "dictbench": "pytest_dictbench.plugin_entry"}


def test_the_architecture_page_names_every_top_level_part() -> None:
    """PL18: docs/architecture.md names every module and package directly under
    pytest_dictbench (as `name.py` or `name/`), and the refine pipeline's folder."""
    import re

    page = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    missing = sorted(
        name for name in (p.removeprefix("pytest_dictbench.") for p in _top_level_parts())
        if not re.search(rf"`{re.escape(name)}(\.py|/)", page))
    assert missing == []
    assert "`adapters/pipeline/`" in page
