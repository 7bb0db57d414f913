"""What a run cost: ASR list price from a product's ``[pricing]`` plus the judges' spend.

Descriptive only: no score or rank reads these figures. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from decimal import Decimal
from typing import Any

from .methods.base import ItemRecord
from .model import ERROR_STATUSES, Product, Suite
from .private import is_private, public_case_id

__all__ = ["case_durations", "cost_summary", "item_asr_cost"]


def _audio_seconds(record: ItemRecord, durations: Mapping[str, Any]) -> float | None:
    """Audio length of an item: measured at capture, else the case's ``duration_s``."""
    if record.get("audio_duration_s"):
        return float(record["audio_duration_s"])
    duration = durations.get(str(record["case_id"]))
    return float(duration) if duration is not None else None


def item_asr_cost(record: ItemRecord, pricing: Mapping[str, Any],
                  durations: Mapping[str, Any]) -> float | None:
    """One item's ASR cost as :func:`cost_summary` counts it: the capture's own
    ``asr_cost_usd``, else the list price times the item's audio minutes; ``None`` when
    neither is known or the provider rejected the request. ``durations``: from
    :func:`case_durations`."""
    if record.get("output_status") in ERROR_STATUSES or record["status"] == "not_tested":
        return None
    if record.get("asr_cost_usd") is not None:
        return float(Decimal(str(record["asr_cost_usd"])))
    price = pricing.get("usd_per_audio_minute")
    seconds = _audio_seconds(record, durations)
    if price is None or seconds is None:
        return None
    return float(Decimal(str(price)) * Decimal(str(seconds)) / 60)


def case_durations(suite: Suite) -> dict[str, Any]:
    """Declared ``duration_s`` by the id records carry (the keyed id in a private suite)."""
    shown = (lambda c: public_case_id(suite, c)) if is_private(suite) else (lambda c: c)
    return {shown(c.id): c.get("duration_s") for c in suite.cases}


def _captured(billed: Sequence[ItemRecord], key: str) -> Any:
    """The date or source of the price the captures were costed at (a bundled price),
    when every capture names the same one."""
    found = {(r.get("asr_price") or {}).get(key) for r in billed if r.get("asr_price")}
    return found.pop() if len(found) == 1 else None


def _capture_costs(billed: Sequence[ItemRecord], missing: list[str]) -> float | None:
    """The exact sum of the captures' own costs (``asr_cost_usd``, decimal text: what a
    cloud provider billed, priced when it was captured); unknown when any is unknown."""
    costs = [r.get("asr_cost_usd") for r in billed]
    unknown = sum(1 for c in costs if c is None)
    if unknown:
        why = sorted({str(r["asr_cost_unknown"]) for r in billed
                      if r.get("asr_cost_usd") is None and r.get("asr_cost_unknown")})
        missing.append(f"{unknown} of {len(costs)} captures without a known cost"
                       + (f" ({'; '.join(why)})" if why else ""))
        return None
    return float(sum((Decimal(str(c)) for c in costs), Decimal(0)))


def cost_summary(records: Sequence[ItemRecord], suite: Suite, product: Product | None,
                 judge_cost_usd: float | None,
                 judge_missing: Sequence[str] = ()) -> dict[str, Any]:
    """ASR cost, judge cost, total and cost per audio hour of one product on one suite.

    Every item the product transcribed is billed (scored, or errored by a judge); an item
    whose request the provider rejected (output status ``error``, ``failed``,
    ``invalid``) is not, and is counted in ``rejected_requests``; untested ones are not.
    When the captures carry their own cost (cloud providers: billed seconds or tokens at
    the price of the capture), ``asr_cost_usd`` is their exact sum (``asr_cost_basis``
    ``"captures"``); otherwise it is the product's ``[pricing]`` list price times the audio
    minutes (``"list price"``). It is ``None`` and ``missing`` says why when the product
    has no price, an item has no known audio length or a capture's cost is unknown.
    ``judge_cost_usd`` is ``None`` when a judge's cost is unknown (``judge_missing`` says
    why); the total is then unknown too. Sums are exact decimals.
    """
    sent = [r for r in records if r["status"] != "not_tested"]
    billed = [r for r in sent if r.get("output_status") not in ERROR_STATUSES]
    declared = case_durations(suite)
    durations = [_audio_seconds(r, declared) for r in billed]
    known = [d for d in durations if d is not None]
    audio_s = sum(known)
    pricing: Mapping[str, Any] = product.pricing if product else {}
    missing: list[str] = []
    if any("asr_cost_usd" in r for r in billed):
        basis, asr = "captures", _capture_costs(billed, missing)
    else:
        basis = "list price"
        if "usd_per_audio_minute" not in pricing:
            missing.append("no [pricing] usd_per_audio_minute")
        if len(known) < len(durations):
            missing.append(f"{len(durations) - len(known)} items without an audio duration")
        asr = None if missing else float(
            Decimal(str(pricing["usd_per_audio_minute"])) * Decimal(str(audio_s)) / 60)
    missing += [f"judge cost unknown: {why}" for why in judge_missing]
    if judge_cost_usd is None and not judge_missing:
        missing.append("judge cost unknown")
    total = None if asr is None or judge_cost_usd is None else float(
        Decimal(str(asr)) + Decimal(str(judge_cost_usd)))
    hours = audio_s / 3600.0
    return {
        "audio_seconds": audio_s,
        "asr_cost_usd": asr,
        "asr_cost_basis": basis,
        "judge_cost_usd": judge_cost_usd,
        "total_cost_usd": total,
        "usd_per_audio_hour": total / hours if total is not None and hours else None,
        "price_snapshot_date": pricing.get("snapshot_date") or _captured(billed, "snapshot_date"),
        "price_source_url": pricing.get("source_url") or _captured(billed, "source_url"),
        "missing": missing,
        "rejected_requests": len(sent) - len(billed),
    }
