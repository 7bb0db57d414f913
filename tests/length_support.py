"""Helpers for the audio length tests: bytes in a temporary file, and the check that a
length counter never raises."""

from __future__ import annotations

import contextlib
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any


@contextlib.contextmanager
def temporary_file(data: bytes, name: str) -> Iterator[Path]:
    """``data`` as the file ``name`` in a temporary folder, removed after (for property
    tests, which cannot take ``tmp_path``)."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / name
        path.write_bytes(data)
        yield path


def check_length_of_any_bytes(count: Callable[[Path], Any], data: bytes, name: str) -> None:
    """``count`` (an audio length counter) given ``data`` as file ``name`` answers None or
    a plausible (samples, rate), and never raises."""
    with temporary_file(data, name) as path:
        found = count(path)
        assert found is None or (found[0] >= 0 and found[1] > 0)
