"""A product's ``[pricing]`` is refused at load when a figure in it cannot be a list
price, naming the file and the key (J14): an absurd price, a date that is not a calendar
date, a source that is not an http(s) address."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_dictbench.errors import ProductError
from pytest_dictbench.products import load_product

GOOD = {"usd_per_audio_minute": "0.006", "snapshot_date": '"2026-01-31"',
        "source_url": '"https://example.com/pricing"'}


def _load(tmp_path: Path, **pricing: str):
    values = {**GOOD, **pricing}
    lines = "".join(f"{key} = {value}\n" for key, value in values.items() if value)
    (tmp_path / "p.toml").write_text(
        f'name = "p"\nversion = "1"\nadapter = "cache"\n[pricing]\n{lines}', encoding="utf-8")
    return load_product("p", tmp_path)


@pytest.mark.parametrize(("key", "value", "why"), [
    ("usd_per_audio_minute", "1e308", "above"),
    ("usd_per_audio_minute", "1e6", "above"),
    ("snapshot_date", '"2026-13-01"', "not a calendar date"),
    ("snapshot_date", '"2026-02-30"', "not a calendar date"),
    ("source_url", '"javascript:alert(1)"', "http"),
    ("source_url", '"ftp://example.com/prices"', "http"),
    ("source_url", '"https://"', "host"),
    ("source_url", '"https://user:secret@example.com/prices"', "user-info"),
])
def test_an_impossible_pricing_value_is_refused_naming_file_and_key(
        tmp_path: Path, key: str, value: str, why: str) -> None:
    with pytest.raises(ProductError, match=rf"p\.toml.*pricing\.{key}.*{why}"):
        _load(tmp_path, **{key: value})


def test_a_sound_pricing_table_loads(tmp_path: Path) -> None:
    pricing = _load(tmp_path, snapshot_date='"2028-02-29"', source_url='"http://x.test/p"'
                    ).pricing
    assert pricing == {"usd_per_audio_minute": 0.006, "snapshot_date": "2028-02-29",
                       "source_url": "http://x.test/p"}
