"""An item's record: the plain-JSON object of its line in ``items.jsonl``, from which
every report is built (suite tables, intervals, ranks, the gate, JUnit properties)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..adapters.streaming.summary import desktop_timings
from ..judge.records import output_hash
from ..model import ItemLike, ItemResult, Output
from ..private import is_private, redact_record

__all__ = ["item_record", "record_verdict"]


def record_verdict(status: str, provisional: int) -> str:
    """``pass``, ``fail``, ``provisional`` (a passing score still waiting for a
    judgement: skipped in pytest, never counted as passed) or the status itself."""
    verdict = {"passed": "pass", "failed": "fail"}.get(status, status)
    return "provisional" if provisional and verdict == "pass" else verdict


def _streaming(output: Output | None) -> dict[str, Any]:
    """A streaming session's figures, or a desktop capture's timings under their names."""
    if output is None:
        return {}
    if isinstance(output.meta.get("streaming"), dict):
        return {"streaming": output.meta["streaming"]}
    if isinstance(output.meta.get("desktop"), dict):
        timings = desktop_timings(output.meta["desktop"])
        return {"streaming": timings} if timings else {}
    return {}


def item_record(item: ItemLike, status: str, *, suite_path: str,
                result: ItemResult | None = None, output: Output | None = None,
                message: str = "", extra: Mapping[str, Any] | None = None
                ) -> dict[str, Any]:
    """The record of one item (``suite_path``: its suite's folder relative to the
    rootdir); its keys stand in the line's order already (``natural_record`` then
    copies nothing). A private suite's record is redacted."""
    suite, case = item.suite, item.case
    text = output.text if output else None
    group = {k: case.data[k] for k in ("genre", "short", "source", "tags") if k in case.data}
    # a completed capture with no text; a rejected request is an error, not empty
    empty = bool(output is not None and output.status == "complete"
                 and not output.is_error and not output.text.strip())
    record = {
        "audio_duration_s": output.meta.get("audio_duration_s") if output else None,
        "canary_leak": bool(text and suite.canary and suite.canary in text),
        "case": group,
        "case_id": case.id,
        "empty": empty,
        "flags": {k: v for k, v in output.meta.items() if isinstance(v, bool)}
        if output else {},
        "latency_ms": output.latency_ms if output else None,
        "message": (result.message if result else message) or message,
        "metrics": dict(result.metrics) if result else {},
        "output_status": output.status if output else None,
        "product": item.product.name,
        "provisional": result.provisional if result else 0,
        "repetition": item.repetition,
        "rtf": output.meta.get("rtf") if output else None,
        "rules": {r.rule: r.to_json() for r in result.rules} if result else {},
        "score": result.score if result else None,
        "status": status,
        "suite": suite.id,
        "suite_path": suite_path,
        "text": text,
        "text_sha256": output_hash(text) if text is not None else None,
        **({"environment": output.meta["environment"]}
           if output and isinstance(output.meta.get("environment"), dict) else {}),
        **({"offline_audit": output.meta["offline_audit"]}
           if output and "offline_audit" in output.meta else {}),
        **({"asr_cost_usd": output.meta["provider"]["cost_usd"]}  # a cloud capture's
           if output and isinstance(output.meta.get("provider"), dict)  # own cost
           and "cost_usd" in output.meta["provider"] else {}),
        **_streaming(output),
        **({"asr_cost_unknown": output.meta["provider"]["cost_unknown"]}  # and why not
           if output and isinstance(output.meta.get("provider"), dict)
           and isinstance(output.meta["provider"].get("cost_unknown"), str) else {}),
        **_provider_facts(output.meta.get("provider") if output else None),
        **({"pipeline": output.meta["pipeline"]}  # raw, refined and each refine step
           if output and isinstance(output.meta.get("pipeline"), dict) else {}),
        **(extra or {}),
    }
    record["verdict"] = record_verdict(status, record["provisional"])  # CF6
    stderr = output.meta.get("stderr") if output is not None and record["empty"] else None
    if isinstance(stderr, str) and stderr.strip():  # why the command wrote nothing
        record["message"] = "; ".join(filter(None, [
            record["message"], f"stderr: {stderr.strip().splitlines()[-1]}"]))
    return redact_record(record, suite) if is_private(suite) else record


def _provider_facts(facts: Any) -> dict[str, Any]:
    """A cloud capture's model version (as the provider named it: Deepgram's model info,
    Gemini's ``modelVersion``, AssemblyAI's ``speech_model_used``, OpenAI's ``model``)
    and where its price came from, for the product's summary."""
    if not isinstance(facts, Mapping):
        return {}
    out: dict[str, Any] = {}
    version = next((facts[k] for k in ("model_version", "speech_model_used", "model")
                    if isinstance(facts.get(k), str)), None)
    info = facts.get("model_info")
    if version is None and isinstance(info, list) and info:
        version = "; ".join(" ".join(str(v) for v in (i.get("name"), i.get("version"))
                                     if v) for i in info if isinstance(i, Mapping))
    if version:
        out["provider_model"] = version
    for key, name in (("retry_waits_s", "provider_retries"),
                      ("rate_limit_holds_s", "provider_holds")):
        if isinstance(facts.get(key), list) and facts[key]:
            out[name] = len(facts[key])
    price = facts.get("price")
    if isinstance(price, Mapping):
        out["asr_price"] = {k: price.get(k) for k in ("snapshot_date", "source_url")}
    return out
