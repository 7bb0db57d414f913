"""CHANGELOG.md keeps the Keep a Changelog form, and its newest version is the package's."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TYPES = ("Added", "Changed", "Deprecated", "Removed", "Fixed", "Security")


def test_changelog_form_and_version() -> None:
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    releases = re.findall(r"^## \[([^\]]+)\](?: - (\d{4}-\d{2}-\d{2}))?$", text, re.M)
    assert releases[0] == ("Unreleased", "")
    versions = [v for v, _ in releases[1:]]
    assert all(date for _, date in releases[1:]), releases
    assert all(re.fullmatch(r"\d+\.\d+\.\d+", v) for v in versions), versions
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert versions[0] == project["version"]
    assert versions == sorted(versions, key=lambda v: tuple(map(int, v.split("."))),
                              reverse=True)
    headings = re.findall(r"^### (.+)$", text, re.M)
    assert headings and set(headings) <= set(TYPES), set(headings) - set(TYPES)
    # every other line that starts a section is a release
    assert re.findall(r"^## (?!\[).*$", text, re.M) == []
