"""A pipeline's ``[[refine]]`` steps: their settings, read and checked, and templates.

A step names a language model reached through one of the judges' clients
(``client = "anthropic" | "openai"``) or the Gemini API (``client = "gemini"``,
:mod:`.gemini_client`), the instruction it is given (``template`` or
``template_file``, with ``{text}`` and optionally ``{context}``, ``{genre}``,
``{locale}``) and its sampling settings. Every problem is a
:class:`~pytest_dictbench.errors.ProductError` naming the product file and the step.

Doubled braces are no escape: ``{{text}}`` is refused (a one-pass fill would put the
text inside the outer braces). Other brace forms (``{0}``, ``{text!r}``,
``{context[0]}``) are not placeholders and are sent as written. A ``template_file`` is
read only from inside the products folder (a path or symlink leading out is refused,
as for ``refine_cache``), its UTF-8 BOM dropped; any template holds at most
:data:`MAX_TEMPLATE_BYTES` bytes.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...errors import ProductError
from ...jsonl import read_text
from ...redact import key_url_problem, public_url, secret_source

__all__ = ["CLIENTS", "MAX_TEMPLATE_BYTES", "PLACEHOLDERS", "RefineStep", "fill_template",
           "read_steps"]

#: Clients a step may use: the judges' two, and the Gemini API.
CLIENTS = ("anthropic", "openai", "gemini")

#: What a template may contain in braces; ``{text}`` is required.
PLACEHOLDERS = ("text", "context", "genre", "locale")

_KNOWN = frozenset({"name", "client", "model", "base_url", "api_key_env", "template",
                    "template_file", "temperature", "max_tokens", "price_in_per_mtok",
                    "price_out_per_mtok"})
_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")
#: A placeholder with a brace doubled on either side: ``{{text}}``, ``{{text}``, ``{text}}``.
_DOUBLED = re.compile(r"\{\{[A-Za-z_][A-Za-z0-9_]*\}|\{[A-Za-z_][A-Za-z0-9_]*\}\}")
#: The most a template may hold (64 KiB): an instruction, not a document.
MAX_TEMPLATE_BYTES = 65536


@dataclass(frozen=True)
class RefineStep:
    """One rewrite by a language model."""

    #: Label in reports (``refine1``, ``refine2``... by default).
    name: str
    client: str
    model: str
    #: The instruction, with ``{text}`` where the text to rewrite goes.
    template: str
    base_url: str | None = None
    api_key_env: str | None = None
    temperature: float | None = None
    max_tokens: int = 1024
    #: US dollars per million tokens, for the step's cost (0: not priced).
    price_in_per_mtok: float = 0.0
    price_out_per_mtok: float = 0.0

    def key_settings(self) -> dict[str, Any]:
        """What changes the rewrite (endpoint, key and prices do not): part of the cache key."""
        return {"client": self.client, "model": self.model, "template": self.template,
                "temperature": self.temperature, "max_tokens": self.max_tokens}


def fill_template(template: str, values: Mapping[str, str]) -> str:
    """``template`` with each ``{name}`` replaced by ``values[name]``, in one pass (a value
    that itself contains ``{text}`` is left as it is)."""
    return _PLACEHOLDER.sub(lambda m: values.get(m.group(1), m.group(0)), template)


def _check_template(template: str, where: str, path: Path) -> None:
    size = len(template.encode("utf-8"))
    if size > MAX_TEMPLATE_BYTES:
        raise ProductError(f"{where}: template is {size:,} bytes; a template may hold at "
                           f"most {MAX_TEMPLATE_BYTES:,}", path=path)
    doubled = _DOUBLED.search(template)
    if doubled:
        raise ProductError(f"{where}: template has a placeholder in doubled braces "
                           f"({doubled.group(0)}): doubled braces are no escape; write "
                           "{text} to fill it in, or drop the placeholder", path=path)
    names = _PLACEHOLDER.findall(template)
    unknown = sorted(set(names) - set(PLACEHOLDERS))
    if unknown:
        raise ProductError(f"{where}: template has unknown placeholder(s) "
                           f"{', '.join('{' + n + '}' for n in unknown)} (known: "
                           f"{', '.join('{' + n + '}' for n in PLACEHOLDERS)})", path=path)
    if "text" not in names:
        raise ProductError(f"{where}: template has no {{text}}: the model would never see "
                           "the recognised text", path=path)


def _number(raw: Mapping[str, Any], name: str, where: str, path: Path, default: Any,
            kind: type = float) -> Any:
    value = raw.get(name, default)
    if value is None or value is default:
        return value
    ok = isinstance(value, int | float) and not isinstance(value, bool)
    if kind is int:
        ok = isinstance(value, int) and not isinstance(value, bool) and value > 0
    if not ok or value < 0:
        wanted = "a whole number > 0" if kind is int else "a number >= 0"
        raise ProductError(f"{where}: {name} must be {wanted}, got {value!r}", path=path)
    return kind(value)


def _string(raw: Mapping[str, Any], name: str, where: str, path: Path,
            required: bool = False) -> str | None:
    value = raw.get(name)
    if value is None and not required:
        return None
    if not isinstance(value, str) or not value.strip():
        raise ProductError(f"{where}: {name} must be a non-empty string, got {value!r}",
                           path=path)
    return value


def _read_template(relative: str, where: str, path: Path) -> str:
    """A ``template_file``: inside the products folder, at most the size limit."""
    root = path.parent.resolve()
    file = (root / relative).resolve()
    if Path(relative).is_absolute() or not file.is_relative_to(root):
        raise ProductError(f"{where}: template_file {relative!r} leaves the products folder "
                           f"({root})", path=path)
    if file.is_file() and file.stat().st_size > MAX_TEMPLATE_BYTES + 3:  # a BOM aside
        raise ProductError(f"{where}: template_file {relative!r} is "
                           f"{file.stat().st_size:,} bytes; a template may hold at most "
                           f"{MAX_TEMPLATE_BYTES:,}", path=path)
    return read_text(file, ProductError)


def read_step(raw: Any, index: int, path: Path) -> RefineStep:
    """One ``[[refine]]`` table as a :class:`RefineStep` (``index`` counts from 1)."""
    where = f"[[refine]] step {index}"
    if not isinstance(raw, Mapping):
        raise ProductError(f"{where} must be a table, got {raw!r}", path=path)
    unknown = sorted(set(raw) - _KNOWN)
    if unknown:
        raise ProductError(f"{where}: unknown key(s) {', '.join(unknown)} (known: "
                           f"{', '.join(sorted(_KNOWN))})", path=path)
    for field in ("name", "model"):  # shown in messages and reports: never a key
        source = secret_source(str(raw.get(field, "")))
        if source is not None:
            raise ProductError(f"{where}: {field} holds the value of {source} (a key); "
                               "name the model, and the key's variable in api_key_env",
                               path=path)
    name = _string(raw, "name", where, path) or f"refine{index}"
    where = f"[[refine]] step {index} ({name})"
    client = _string(raw, "client", where, path, required=True)
    if client not in CLIENTS:
        raise ProductError(f"{where}: client must be one of {', '.join(CLIENTS)}, got "
                           f"{client!r}", path=path)
    if ("template" in raw) == ("template_file" in raw):
        raise ProductError(f"{where}: give exactly one of template and template_file",
                           path=path)
    if "template" in raw:
        template = _string(raw, "template", where, path, required=True)
    else:
        relative = _string(raw, "template_file", where, path, required=True)
        template = _read_template(str(relative), where, path)
    assert template is not None and client is not None
    _check_template(template, where, path)
    base_url = _string(raw, "base_url", where, path)
    problem = key_url_problem(base_url) if base_url else None
    if problem:
        raise ProductError(f"{where}: base_url {public_url(str(base_url))!r}: {problem}",
                           path=path)
    return RefineStep(
        name=name, client=client, model=str(_string(raw, "model", where, path, required=True)),
        template=template, base_url=base_url,
        api_key_env=_string(raw, "api_key_env", where, path),
        temperature=_number(raw, "temperature", where, path, None),
        max_tokens=_number(raw, "max_tokens", where, path, 1024, int),
        price_in_per_mtok=_number(raw, "price_in_per_mtok", where, path, 0.0),
        price_out_per_mtok=_number(raw, "price_out_per_mtok", where, path, 0.0))


def read_steps(raw: Any, path: Path) -> tuple[RefineStep, ...]:
    """Every ``[[refine]]`` step, in order; at least one, names unique."""
    if not isinstance(raw, list) or not raw:
        raise ProductError("a pipeline needs at least one [[refine]] step", path=path)
    steps = tuple(read_step(entry, i, path) for i, entry in enumerate(raw, start=1))
    names = [s.name for s in steps]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise ProductError(f"[[refine]] step name(s) used twice: {', '.join(twice)}",
                           path=path)
    return steps
