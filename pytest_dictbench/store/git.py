"""The benchmark project's git commit and whether its tree was dirty (argv lists, no
shell, a short timeout; ``None`` outside a git checkout or without git)."""

from __future__ import annotations

import subprocess
from pathlib import Path

__all__ = ["git_state", "resolve_ref"]


def _git(root: Path, *args: str) -> str | None:
    try:
        done = subprocess.run(["git", "-C", str(root), *args], capture_output=True,
                              text=True, timeout=10, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def git_state(root: Path) -> tuple[str | None, bool | None]:
    """``(commit, dirty)`` of the checkout holding ``root``."""
    commit = _git(root, "rev-parse", "--verify", "HEAD")
    if commit is None:
        return None, None
    status = _git(root, "status", "--porcelain", "--untracked-files=no")
    return commit, (bool(status) if status is not None else None)


def resolve_ref(root: Path, ref: str) -> str | None:
    """The commit a git ref (branch, tag, ``HEAD~1``, a short hash) names, or None."""
    if ref.startswith("-"):
        return None
    return _git(root, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}")
