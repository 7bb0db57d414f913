"""A suite's common set: the cases every compared product could take. Pure: no pytest.

A suite may cap the audio its cases may have (``[limits] max_audio_s`` in
``suite.toml``), and a product the audio it takes (``[limits] max_audio_s`` in its
product file, else its cloud provider's documented longest audio for its model, as in
the provider tables of ``adapters/providers``). A case longer than the suite's cap is
left out for every product; a case longer than a product's limit is left out for that
product, and so for every comparison and rank of the suite: products are compared and
ranked only on the cases all of them could take. A case's length is its ``duration_s``,
else its ``[[files]]`` entry's ``duration``; a case of unknown length is kept (nothing
shows it is over a limit).

Without any limit the common set is every case and nothing changes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .model import Case, Product, Suite
from .pricing import case_durations

__all__ = ["CommonSet", "common_set", "over_limit", "product_limit"]

#: Adapter kinds that are not cloud providers (no provider table to read).
_LOCAL_ADAPTERS = frozenset({"cache", "command", "http", "whisper", "python", "pipeline",
                             "results-csv", "desktop"})


@dataclass(frozen=True)
class CommonSet:
    """The cases every product could take, and why the others were left out."""

    cases: frozenset[str]
    total: int
    #: ``(case id, length in s, products it was left out for, why)`` in case order.
    left_out: tuple[tuple[str, float, tuple[str, ...], str], ...] = ()
    #: Per product, the cases its own limit (or the suite's cap) left out.
    lost: Mapping[str, int] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {"cases": len(self.cases), "of": self.total,
                "left_out": [{"case_id": c, "audio_s": s, "for": list(p), "reason": why}
                             for c, s, p, why in self.left_out],
                "lost": dict(self.lost)}


def product_limit(product: Product | None) -> tuple[float, str] | None:
    """``(seconds, where it comes from)``: the product file's ``[limits] max_audio_s``,
    else its provider's documented longest audio for its model; ``None`` when neither."""
    if product is None:
        return None
    declared = product.limits.get("max_audio_s")
    if declared is not None:
        return float(declared), f"{product.name}'s [limits] max_audio_s"
    if product.adapter in _LOCAL_ADAPTERS:
        return None
    from .adapters.providers import PROVIDERS  # only for a cloud provider product

    provider = PROVIDERS.get(product.adapter)
    if provider is None:
        return None
    model = product.settings.get("model", provider.default_model)
    limits = provider.limits.get(str(model)) or provider.limits.get("*")
    if limits is None or limits.max_seconds is None:
        return None
    text = limits.max_seconds_text or f"{limits.max_seconds:g}-second audio"
    return float(limits.max_seconds), f"{provider.title}'s documented {text} limit"


def _lengths(suite: Suite) -> dict[str, float]:
    lengths = {c: float(d) for c, d in case_durations(suite).items() if d is not None}
    for entry in suite.files:
        if entry.case_id is not None and entry.duration is not None:
            lengths.setdefault(entry.case_id, float(entry.duration))
    return lengths


def _length(suite: Suite, case: Case) -> float | None:
    if case.get("duration_s") is not None:
        return float(case.get("duration_s"))
    for entry in suite.files:
        if entry.case_id == case.id and entry.duration is not None:
            return float(entry.duration)
    return None


def over_limit(suite: Suite, product: Product | None, case: Case) -> str | None:
    """Why ``product`` cannot take ``case`` (its audio is longer than the suite's cap or
    the product's limit), or ``None``: the item is then not captured, and the common set
    leaves the case out of the suite's comparisons and ranks."""
    cap = (suite.manifest.get("limits") or {}).get("max_audio_s")
    limit = product_limit(product)
    if cap is None and limit is None:
        return None
    seconds = _length(suite, case)
    if seconds is None:
        return None
    if cap is not None and seconds > float(cap):
        return f"{seconds:g} s is over the suite's [limits] max_audio_s of {float(cap):g} s"
    if limit is not None and seconds > limit[0]:
        return f"{seconds:g} s is over {limit[1]} of {limit[0]:g} s"
    return None


def common_set(suite: Suite, products: Mapping[str, Product | None],
               case_ids: Sequence[str]) -> CommonSet | None:
    """The common set of ``case_ids`` for ``products`` (by name), or ``None`` when no
    limit applies to this suite and these products."""
    cap = (suite.manifest.get("limits") or {}).get("max_audio_s")
    limits = {name: product_limit(p) for name, p in sorted(products.items())}
    limits = {name: lim for name, lim in limits.items() if lim is not None}
    if cap is None and not limits:
        return None
    lengths = _lengths(suite)
    left_out = []
    lost = dict.fromkeys(products, 0)
    for case in sorted(case_ids):
        seconds = lengths.get(case)
        if seconds is None:
            continue
        if cap is not None and seconds > float(cap):
            left_out.append((case, seconds, tuple(sorted(products)),
                             f"{seconds:g} s is over the suite's [limits] max_audio_s of "
                             f"{float(cap):g} s"))
            for name in products:
                lost[name] += 1
            continue
        over = [(name, lim) for name, lim in limits.items() if seconds > lim[0]]
        if over:
            why = "; ".join(f"over {src} of {lim:g} s" for _, (lim, src) in over)
            left_out.append((case, seconds, tuple(n for n, _ in over), f"{seconds:g} s is {why}"))
            for name, _ in over:
                lost[name] += 1
    out = {c for c, *_ in left_out}
    return CommonSet(frozenset(c for c in case_ids if c not in out), len(case_ids),
                     tuple(left_out), {k: v for k, v in sorted(lost.items()) if v})
