"""Deprecated path: the hookspecs live in :mod:`pytest_dictbench.plugin.hookspecs`."""

from .plugin.hookspecs import *  # noqa: F403  (re-exported for plugins that import this path)
