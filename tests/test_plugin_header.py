"""The pytest header of a benchmark run names its suites and products."""

from __future__ import annotations

import pytest


def test_the_header_names_suites_and_products(mini: pytest.Pytester, write_product) -> None:
    write_product("p2")
    result = mini.runpytest("--product=p1", "--product=p2")
    result.stdout.fnmatch_lines(["dictbench: suites cases/mini; products p1, p2"])


def test_the_header_names_suites_given_as_arguments(mini: pytest.Pytester) -> None:
    result = mini.runpytest("--product=p1", "cases/mini")
    result.stdout.fnmatch_lines(["dictbench: suites cases/mini; products p1"])


def test_an_inactive_run_has_no_dictbench_header(mini: pytest.Pytester) -> None:
    mini.makepyfile(test_plain="def test_x():\n    pass\n")
    result = mini.runpytest("test_plain.py")
    result.stdout.no_fnmatch_line("dictbench: suites*")
