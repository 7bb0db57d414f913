"""The HTML page's figures drawn side by side by report helpers, while the page goes on.

A :class:`FigureRequests` is the :class:`.plots.Drawer` of :func:`.html.render_html`
in a large run. Each figure is asked of the least busy helper at once and a placeholder
(an HTML comment with a random nonce) stands in its place, so the page, the Markdown
page and the JSON are made while the helpers draw; :meth:`FigureRequests.fill` then puts
each figure where its placeholder stands, as :func:`.html.render_html` would have put it
(through :func:`..text.visible.visible`). The page is the same, byte for byte. A figure
whose helper fails or is gone is drawn here, where a real error raises as itself.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from typing import Any

from ..text.visible import visible
from . import plots
from .helper import ReportHelper
from .sections import MetricGroups

__all__ = ["FigureRequests"]


class FigureRequests:
    """A drawer that hands each figure to a helper and fills the page in later."""

    def __init__(self, helpers: Sequence[ReportHelper]) -> None:
        self.helpers = list(helpers)
        self._nonce = secrets.token_hex(8)
        #: Placeholder -> (helper, its ticket or ``None``, the drawing and its arguments).
        self._asked: dict[str, tuple[ReportHelper | None, int | None, str, tuple[Any, ...]]] = {}

    def scores_svg(self, rows: Sequence[Mapping[str, Any]], colors: Mapping[str, str],
                   prefix: str) -> str:
        return self._ask("scores_svg", rows, colors, prefix)

    def bars_svg(self, groups: MetricGroups, colors: Mapping[str, str], prefix: str) -> str:
        return self._ask("bars_svg", groups, colors, prefix)

    def forest_svg(self, comparisons: Sequence[Mapping[str, Any]], prefix: str) -> str:
        return self._ask("forest_svg", comparisons, prefix)

    def _ask(self, name: str, *args: Any) -> str:
        helper = min((h for h in self.helpers if h.alive), key=lambda h: h.busy,
                     default=None)
        ticket = helper.ask_figure(name, args) if helper is not None else None
        placeholder = f"<!--dictbench-figure-{self._nonce}-{len(self._asked)}-->"
        self._asked[placeholder] = (helper, ticket, name, args)
        return placeholder

    def fill(self, page: str) -> str:
        """``page`` with every placeholder replaced by its figure, as the page shows it."""
        for placeholder, (helper, ticket, name, args) in self._asked.items():
            svg = helper.figure(ticket) if helper is not None and ticket is not None else None
            if svg is None:
                svg = getattr(plots, name)(*args)
            if page.count(placeholder) != 1:
                raise RuntimeError(f"the page lost the place of figure {placeholder}")
            page = page.replace(placeholder, visible(svg))
        self._asked.clear()
        return page
