"""Live runs on a rig package.

A live product (any adapter but ``cache``) may capture a rig package only while its
``execution_gate`` is ready, and only under a product name the package lists. Each
live item records the same ``rig`` fields an imported row has: the product's declared
plan, profile, processing path, privacy mode, language setting and price (from its
``[environment]`` table), and the *detected* hardware and OS of the capture (see
:mod:`..environment`), which form the cohorts. A declared value that differs from the
detected one is kept in the record (``environment_disagreements``) and reported.
Correction fixtures are ``unsupported`` live (a person edits and is timed) and meeting
fixtures ``not_tested`` (speaker-turn attribution of live captures comes later).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from ..collect import CaseItem
from ..environment import disagreements
from ..errors import DictbenchError
from ..model import Product, Suite
from .results import COLUMNS

__all__ = ["RigLiveItem", "check_live"]

#: Fields a product's ``[environment]`` table may declare for rig rows.
DECLARED = ("plan", "test_profile", "processing_path", "privacy_mode",
            "app_language_setting", "price_snapshot", "pricing_source_url")


def check_live(suite: Suite, products: Sequence[Product]) -> None:
    """Refuse live capture while the gate is closed, and unknown product names."""
    package = suite.manifest["package"]
    live = [p for p in products if p.adapter != "cache"]
    gate = package["execution_gate"]
    if live and not gate["ready"]:
        blocking = "; ".join(gate.get("blocking_items", ())) or "none listed"
        raise DictbenchError(
            f"execution gate of rig package {suite.id!r} is closed: live capture by "
            f"{', '.join(p.name for p in live)} is blocked until these items are done: "
            f"{blocking}", path=suite.root / suite.manifest["cases"])
    unknown = [p.name for p in products if p.name not in package["products"]]
    if unknown:
        raise DictbenchError(
            f"product(s) {', '.join(unknown)} not listed in the package's products "
            f"({', '.join(package['products'])})", path=suite.root / suite.manifest["cases"])


def _status(record_status: str, output_status: str | None) -> str:
    if record_status in ("passed", "failed"):
        return "complete"
    if record_status == "not_tested":
        return output_status if output_status in ("unsupported", "blank") else "not_tested"
    return "invalid" if output_status == "invalid" else "failed"


class RigLiveItem(CaseItem):
    """A fixture captured live by a product; recorded with the rig row fields."""

    def _rig(self, status: str, output_status: str | None) -> dict[str, Any]:
        suite, case, product = self.suite, self.case.data, self.product
        declared = product.environment
        env = dict(self.output.meta.get("environment", {})) if self.output else {}
        cells = dict.fromkeys(COLUMNS, "")
        cells.update({k: str(declared[k]) for k in DECLARED if k in declared})
        profile = cells["test_profile"] or str(suite.manifest["package"].get(
            "protocol", {}).get("default_profile", "default"))
        text = self.output.text if self.output else ""
        latency = self.output.latency_ms if self.output else None
        row_status = _status(status, output_status)
        cells.update(
            benchmark_version=suite.version, status=row_status, app_id=product.name,
            run_id=f"{product.name}-{profile}-{self.case.id}-r{self.repetition}",
            fixture_id=self.case.id, repetition=str(self.repetition),
            app_version=product.version, test_profile=profile,
            hardware=env.get("hardware", ""), macos_version=env.get("macos_version", ""),
            tested_at=str(self.output.meta.get("started_utc", "")) if self.output else "",
            elapsed_seconds="" if latency is None else f"{latency / 1000:.3f}")
        if row_status == "complete":
            cells["final_transcript" if case["workflow"] == "correction"
                  else "raw_transcript"] = text
        rig = {**cells, "status": "blank" if row_status == "" else row_status,
               "workflow": case["workflow"], "locale": case["locale"]}
        found = disagreements(dict(declared), env) if env else []
        if found:
            rig["environment_disagreements"] = found
        return rig

    def _prepare(self) -> None:
        workflow = self.case.data["workflow"]
        if workflow in ("correction", "meeting"):
            why = ("a correction is timed on an operator's edits" if workflow == "correction"
                   else "speaker-turn attribution of live captures is not built yet")
            status = "unsupported" if workflow == "correction" else "not_tested"
            self._record("not_tested", message=f"{status}: {why}",
                         extra={"output_status": status})
            pytest.skip(f"{status}: {self.case.id} from {self.product.name}: {why}")
        super()._prepare()

    def _record(self, status: str, **fields: Any) -> None:
        extra = dict(fields.pop("extra", None) or {})
        output = fields.get("output") or self.output
        output_status = extra.get("output_status") or (output.status if output else None)
        extra["rig"] = self._rig(status, output_status)
        super()._record(status, extra=extra, **fields)
