"""The bundled price table, per-capture costs worked out by hand, and the ready product
templates (each loads and passes its adapter's settings checks, nothing sent)."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest
from adapter_support import live_adapter

from pytest_dictbench.adapters.providers import PROVIDERS
from pytest_dictbench.adapters.providers.prices import Price, bundled_prices, price_for
from pytest_dictbench.errors import ProductError
from pytest_dictbench.products import load_product
from pytest_dictbench.suites import load_suite

ROOT = Path(__file__).resolve().parents[1]
TEMPLATES = ROOT / "products" / "templates"


def test_every_bundled_price_names_a_kind_a_date_and_a_source() -> None:
    prices = bundled_prices()
    assert prices
    for (kind, model), price in prices.items():
        assert kind in PROVIDERS, kind
        assert price.snapshot_date == "2026-12-01" and price.source_url.startswith("https://")
        assert (price.usd_per_audio_minute is None) != (not price.usd_per_million_tokens), model
        # each says whether its figure was read on the provider's own page
        assert price.checked.startswith(("verified: ", "verified in part: ", "unverified: ")), \
            (kind, model, price.checked)


def test_costs_by_hand() -> None:
    minute = Price("deepgram", "nova-3", "d", "u", usd_per_audio_minute=Decimal("0.0043"))
    assert minute.cost(90, {}) == Decimal("0.00645")  # 1.5 min x 0.0043
    assert minute.cost(None, {}) is None  # no billed duration: no cost, not zero
    tokens = Price("gemini", "m", "d", "u", usd_per_million_tokens={
        "input_audio": Decimal("1.00"), "input_text": Decimal("0.30"),
        "output": Decimal("2.50")})
    # 3,200 audio tokens (100 s) + 50 text + 400 output
    assert tokens.cost(None, {"input_audio": 3200, "input_text": 50, "output": 400}) == \
        Decimal("0.004215")
    assert tokens.cost(None, {"cached": 1}) is None  # a token kind without a price


def test_a_products_pricing_replaces_the_bundled_price() -> None:
    own = price_for("deepgram", "nova-3", {"usd_per_audio_minute": 0.01,
                                           "snapshot_date": "2026-01-01"})
    assert own is not None and own.origin == "product"
    assert own.usd_per_audio_minute == Decimal("0.01")
    assert price_for("deepgram", "nova-3", {}).origin == "bundled"  # type: ignore[union-attr]
    assert price_for("deepgram", "unknown-model", {}) is None
    with pytest.raises(ProductError, match="non-negative"):
        price_for("deepgram", "nova-3", {"usd_per_audio_minute": -1})


TEMPLATE_FILES = sorted(TEMPLATES.glob("*.toml"))


@pytest.mark.parametrize("path", TEMPLATE_FILES, ids=[p.stem for p in TEMPLATE_FILES])
def test_each_template_builds_its_adapter_on_the_journal_suite(path: Path) -> None:
    product = load_product(path.stem, TEMPLATES)
    assert product.adapter in PROVIDERS
    assert product.settings["api_key_env"].endswith("_KEY")
    suite = load_suite(ROOT / "cases" / "ja-journal")
    live_adapter(product, suite)
    bundled = bundled_prices().get((product.adapter, str(product.settings.get("model"))))
    if "usd_per_audio_minute" in product.pricing and bundled is not None:
        assert Decimal(str(product.pricing["usd_per_audio_minute"])) == \
            bundled.usd_per_audio_minute


def test_the_templates_cover_the_systems_the_seeds_name() -> None:
    kinds = {load_product(p.stem, TEMPLATES).adapter for p in TEMPLATE_FILES}
    assert kinds == set(PROVIDERS)
    thinking = [load_product(n, TEMPLATES).settings["thinking_budget"]
                for n in ("gemini-2.5-flash-thinking", "gemini-2.5-flash-no-thinking")]
    assert thinking == [-1, 0]
