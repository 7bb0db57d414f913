"""Products under test: ``products/<name>.toml`` and their output files."""

from __future__ import annotations

import difflib
from datetime import date
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from .errors import OutputError, ProductError
from .files import NOT_REGULAR
from .jsonl import read_jsonl
from .model import Output, Product, Suite
from .redact import register_settings_secrets
from .schemas import validate
from .suites import DEFAULT_MAX_TEXT_CHARS, check_text_sizes, read_toml

__all__ = ["load_product", "output_from_line", "outputs_file", "product_location",
           "read_outputs"]


def product_location(value: str, folder: Path, cwd: Path) -> tuple[str, Path]:
    """``(name, folder)`` of a ``--product`` value: a name looked up in the products
    ``folder``, or a product file path (``products/acme.toml``, relative to ``cwd``)."""
    if value.endswith(".toml") or "/" in value or "\\" in value:
        path = (cwd / value).resolve()
        return path.name.removesuffix(".toml"), path.parent
    return value, folder


def load_product(name: str, folder: Path) -> Product:
    """Load ``folder/<name>.toml``; a missing or invalid file raises :class:`ProductError`."""
    path = folder / f"{name}.toml"
    if path.exists() and not path.is_file():
        raise ProductError(NOT_REGULAR, path=path)
    if not path.is_file():
        known = sorted(p.stem for p in folder.glob("*.toml") if p.is_file()) \
            if folder.is_dir() else []
        close = difflib.get_close_matches(name, known, n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""  # CF38
        raise ProductError(
            f"product {name!r} not found{hint} (known: {', '.join(known) or 'none'})",
            path=path)
    data = read_toml(path, ProductError, dates=False)
    validate(data, "product.schema.json", ProductError, path=path)
    _check_pricing(data.get("pricing", {}), path)
    if data["name"] != name:
        raise ProductError(f"name {data['name']!r} does not match the file name", path=path)
    settings = _pipeline_settings(data, path)
    register_settings_secrets(settings)
    outputs = str(settings.get("outputs", name))
    if Path(outputs).is_absolute() or not (folder / outputs).resolve().is_relative_to(
            folder.resolve()):
        raise ProductError(f"[settings] outputs {outputs!r} leaves the products folder",
                           path=path)
    return Product(
        name=name, version=data["version"], adapter=data["adapter"], path=path,
        settings=settings, environment=data.get("environment", {}),
        pricing=data.get("pricing", {}), workflows=tuple(data.get("workflows", ())),
        description=data.get("description", ""), limits=data.get("limits", {}),
        claims=tuple(data.get("claims", ())),
    )


#: The highest list price a product may declare, US dollars per audio minute: anything
#: above is a typo (a person transcribes for a few dollars a minute).
MAX_USD_PER_AUDIO_MINUTE = 1000.0


def _check_pricing(pricing: dict[str, Any], path: Path) -> None:
    """Refuse a ``[pricing]`` figure that cannot be a list price (the schema has checked
    the types): a price above :data:`MAX_USD_PER_AUDIO_MINUTE`, a snapshot date that is
    not a calendar date, a source that is not an http(s) address with a host and no
    user-info. Errors name the file and ``pricing.<key>``."""
    def refuse(key: str, why: str) -> ProductError:
        return ProductError(f"pricing.{key} {pricing[key]!r} {why}", path=path)

    if pricing.get("usd_per_audio_minute", 0) > MAX_USD_PER_AUDIO_MINUTE:
        raise refuse("usd_per_audio_minute",
                     f"is above {MAX_USD_PER_AUDIO_MINUTE:g} US dollars per audio minute")
    if "snapshot_date" in pricing:
        try:
            date.fromisoformat(pricing["snapshot_date"])
        except ValueError:
            raise refuse("snapshot_date", "is not a calendar date (YYYY-MM-DD)") from None
    if "source_url" in pricing:
        url = urlsplit(pricing["source_url"].strip())
        if url.scheme not in ("http", "https"):
            raise refuse("source_url", "is not an http or https address")
        if not url.hostname:
            raise refuse("source_url", "has no host")
        if "@" in url.netloc:
            raise refuse("source_url", "has user-info (user:password@); a price page "
                         "needs none, and it would be written into reports")


def _pipeline_settings(data: dict[str, Any], path: Path) -> dict[str, Any]:
    """``[settings]``, with a pipeline's ``[asr]`` and ``[[refine]]`` tables in it (they
    are that adapter's settings; see ``docs/refine.md``)."""
    settings = dict(data.get("settings", {}))
    for table in ("asr", "refine"):
        if table not in data:
            continue
        if data["adapter"] != "pipeline":
            raise ProductError(f"[{table}] belongs to adapter 'pipeline', not "
                               f"{data['adapter']!r}", path=path)
        if table in settings:
            raise ProductError(f"{table} is given both as a table and in [settings]",
                               path=path)
        settings[table] = data[table]
    return settings


def outputs_file(product: Product, suite: Suite) -> Path:
    """``<outputs folder>/<suite id>.jsonl``, refused when it (or a symlink on the way)
    leads out of the products folder, as an outputs folder that leaves it is."""
    path = product.outputs_dir / f"{suite.id}.jsonl"
    if not path.resolve().is_relative_to(product.path.parent.resolve()):
        raise OutputError(f"the outputs file leads out of the products folder (to "
                          f"{path.resolve()})", path=path)
    return path


def output_from_line(obj: dict[str, Any], origin: str) -> Output:
    """An :class:`Output` from one validated output line (``id`` is an alias of ``case_id``)."""
    fields = dict(obj)
    case_id = fields.pop("case_id", None) or fields.pop("id")
    fields.pop("id", None)
    status = fields.pop("status", "complete")
    text = fields.pop("text", None)
    return Output(
        case_id=case_id, text=text or "", repetition=fields.pop("repetition", 1),
        status=status, latency_ms=fields.pop("latency_ms", None),
        error=fields.pop("error", None), meta=fields, origin=origin,
    )


def read_outputs(path: Path, suite: Suite, *, tolerate_torn_tail: bool = False,
                 repetitions: int | None = None,
                 max_text_chars: int = DEFAULT_MAX_TEXT_CHARS) -> dict[tuple[str, int], Output]:
    """Read a product's outputs for ``suite``, keyed by (case id, repetition).

    Raises :class:`OutputError` naming ``file:line`` for malformed lines, schema
    violations, unknown case ids, a repetition beyond ``repetitions`` (when given: the
    repetitions the run scores), a complete output without text, and two outputs for
    the same case and repetition, and a text longer than ``max_text_chars``.
    """
    known = {case.id for case in (*suite.cases, *suite.drafts)}
    outputs: dict[tuple[str, int], Output] = {}
    for number, obj in read_jsonl(path, OutputError, tolerate_torn_tail=tolerate_torn_tail):
        validate(obj, "output.schema.json", OutputError, path=path, line=number)
        output = output_from_line(obj, f"{path}:{number}")
        try:
            check_text_sizes(obj.get("text"), max_text_chars, OutputError, path=path,
                             line=number, what=f"case {output.case_id!r}: ")
        except OutputError as exc:  # that one item is an error; the rest is scored
            output = Output(case_id=output.case_id, text="", repetition=output.repetition,
                            status="error", error=str(exc), origin=output.origin)
        if output.case_id not in known:
            raise OutputError(f"unknown case id {output.case_id!r} for suite {suite.id!r}",
                              path=path, line=number)
        if repetitions is not None and output.repetition > repetitions:
            raise OutputError(
                f"case {output.case_id!r}: repetition {output.repetition}, but suite "
                f"{suite.id!r} is run with {repetitions} (see --repetitions)",
                path=path, line=number)
        if output.status == "complete" and obj.get("text") is None and not output.error:
            raise OutputError(f"case {output.case_id!r}: a complete output needs 'text'",
                              path=path, line=number)
        key = (output.case_id, output.repetition)
        if key in outputs:
            raise OutputError(
                f"second output for case {output.case_id!r} repetition {output.repetition} "
                f"(first at {outputs[key].origin})", path=path, line=number)
        outputs[key] = output
    return outputs
