"""The HTML page's comparison part of a suite: paired comparisons, the suite's corrected
score gaps, the per-component comparisons with their sentences, where each competitor
wins, and the vendor claims kept apart. Pure."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .comparison_text import component_table, corrected_table, pair_sentences, resolved_head
from .html_parts import comparisons_table, esc, plain_table
from .wins import claims_table, win_sentences, wins_basis

__all__ = ["comparison_parts"]


def comparison_parts(suite: Mapping[str, Any], forest: str, scope: str = "") -> list[str]:
    """The parts in page order; ``forest`` is the drawn comparisons figure ("" if none),
    ``scope`` the sentence saying which pairs were compared ("" when all were)."""
    comparisons = suite.get("comparisons", [])
    parts = ["<h3>Paired comparisons</h3>"]
    if comparisons:
        if scope:
            parts.append(f"<p>{esc(scope)}</p>")
        if forest:
            parts.append(f'<div class="figs">{forest}</div>')
        parts.append(comparisons_table(comparisons, resolved_head(suite)))
        corrected = corrected_table(suite)
        if corrected:
            parts += plain_table(corrected, 4)
        by_component = component_table(suite)
        if by_component:
            parts += plain_table(by_component, 4)
            parts += [f"<p>{esc(text)}</p>" for text in pair_sentences(suite)]
    else:
        parts.append('<p class="empty">No pair of products scored the same items.</p>')
    wins = win_sentences(suite)
    if wins:
        parts += [f"<h3>Where each competitor wins ({esc(wins_basis(suite))})</h3>",
                  "<ul>" + "".join(f"<li>{esc(text)}</li>" for text in wins) + "</ul>"]
    claims = claims_table(suite)
    if claims:
        parts += ['<div class="note claims">', *plain_table(claims), "</div>"]
    return parts
