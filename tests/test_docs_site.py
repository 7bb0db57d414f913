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


def test_every_link_of_the_readme_leads_to_a_file() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    targets = re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", readme)
    assert targets and [t for t in targets if not (ROOT / t).exists()] == []


def test_the_readme_and_the_tutorial_show_the_same_first_command() -> None:
    def first_command(text: str) -> str:
        return next(line for line in text.splitlines() if line.startswith("pip install"))

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    tutorial = (ROOT / "docs" / "tutorial" / "first-run.md").read_text(encoding="utf-8")
    assert first_command(readme) == first_command(tutorial)
    assert "bash .ci/run" in readme and "reports/dictbench.html" in readme


def test_cf28_the_sdist_ships_the_docs_and_the_changelog(tmp_path: Path) -> None:
    """Built from a copy of the tracked files (an egg-info left in the checkout would
    list them whatever MANIFEST.in says)."""
    import shutil
    import tarfile

    tracked = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True,
                             check=False)
    if tracked.returncode != 0:
        pytest.skip("not a git checkout")
    source = tmp_path / "src"
    for name in tracked.stdout.decode().split("\0"):
        if name and not name.startswith(("cases/", "products/", "examples/")) \
                and (ROOT / name).is_file():
            (source / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(ROOT / name, source / name)
    for name in ("MANIFEST.in", "mkdocs.yml"):  # new files of this checkout, maybe untracked
        if (ROOT / name).is_file():
            shutil.copyfile(ROOT / name, source / name)
    subprocess.run([sys.executable, "-c", "import sys; from setuptools import build_meta as b;"
                    " b.build_sdist(sys.argv[1])", str(tmp_path)], cwd=source, check=True,
                   capture_output=True)
    (sdist,) = tmp_path.glob("*.tar.gz")
    with tarfile.open(sdist) as archive:
        names = {name.split("/", 1)[1] for name in archive.getnames() if "/" in name}
    assert {"CHANGELOG.md", "mkdocs.yml", "docs/tutorial/first-run.md", "docs/formats.md"} \
        <= names
