"""What a run cost: ASR list price from a product's ``[pricing]`` plus the judges' spend.

Descriptive only: no score or rank reads these figures. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .methods.base import ItemRecord
from .model import Product, Suite

__all__ = ["cost_summary"]


def _audio_seconds(record: ItemRecord, suite: Suite) -> float | None:
    """Audio length of an item: measured at capture, else the case's ``duration_s``."""
    if record.get("audio_duration_s"):
        return float(record["audio_duration_s"])
    try:
        duration = suite.case(record["case_id"]).get("duration_s")
    except KeyError:
        return None
    return float(duration) if duration is not None else None


def cost_summary(records: Sequence[ItemRecord], suite: Suite, product: Product | None,
                 judge_cost_usd: float) -> dict[str, Any]:
    """ASR cost, judge cost, total and cost per audio hour of one product on one suite.

    Every item sent to the product (scored or errored) is billed; untested ones are not.
    ``asr_cost_usd`` is ``None`` and ``missing`` says why when the product has no price
    or an item has no known audio length.
    """
    billed = [r for r in records if r["status"] != "not_tested"]
    durations = [_audio_seconds(r, suite) for r in billed]
    known = [d for d in durations if d is not None]
    audio_s = sum(known)
    pricing: Mapping[str, Any] = product.pricing if product else {}
    missing = []
    if "usd_per_audio_minute" not in pricing:
        missing.append("no [pricing] usd_per_audio_minute")
    if len(known) < len(durations):
        missing.append(f"{len(durations) - len(known)} items without an audio duration")
    asr = None if missing else float(pricing["usd_per_audio_minute"]) * audio_s / 60.0
    total = None if asr is None else asr + judge_cost_usd
    hours = audio_s / 3600.0
    return {
        "audio_seconds": audio_s,
        "asr_cost_usd": asr,
        "judge_cost_usd": judge_cost_usd,
        "total_cost_usd": total,
        "usd_per_audio_hour": total / hours if total is not None and hours else None,
        "price_snapshot_date": pricing.get("snapshot_date"),
        "price_source_url": pricing.get("source_url"),
        "missing": missing,
    }
