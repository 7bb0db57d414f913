"""The documentation site (mkdocs.yml, docs/): it builds in strict mode, so a broken link,
a missing anchor, a page left out of the navigation or a nav entry without its page
fails; and the README's first command is the one the site's first tutorial page runs."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_the_site_builds_strictly(tmp_path: Path) -> None:
    pytest.importorskip("mkdocs", reason="the docs extra: pip install -e '.[docs]'")
    pytest.importorskip("material", reason="the docs extra: pip install -e '.[docs]'")
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file",
         str(ROOT / "mkdocs.yml"), "--site-dir", str(tmp_path / "site")],
        capture_output=True, text=True, cwd=ROOT, env={"NO_MKDOCS_2_WARNING": "1",
                                                       "PATH": "/usr/bin:/bin"}, check=False)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "site" / "tutorial" / "first-run" / "index.html").is_file()


def test_every_docs_page_is_in_the_navigation() -> None:
    """Said here without mkdocs too: a page missing from mkdocs.yml's nav is named."""
    nav = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    listed = set(re.findall(r":\s+([\w/.-]+\.md)\s*$", nav, flags=re.MULTILINE))
    pages = {p.relative_to(ROOT / "docs").as_posix() for p in (ROOT / "docs").rglob("*.md")}
    assert pages - listed == set(), "add these pages to mkdocs.yml's nav"
    assert listed - pages == set(), "these nav entries have no page"


def test_the_readme_and_the_tutorial_show_the_same_first_command() -> None:
    def first_command(text: str) -> str:
        return next(line for line in text.splitlines() if line.startswith("pip install"))

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    tutorial = (ROOT / "docs" / "tutorial" / "first-run.md").read_text(encoding="utf-8")
    assert first_command(readme) == first_command(tutorial)
    assert "bash .ci/run" in readme and "reports/dictbench.html" in readme
