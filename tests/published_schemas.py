"""Requests checked against the providers' own request schemas, stored verbatim.

``tests/published/specs/`` holds excerpts of the providers' OpenAPI and Swagger files:
the blocks the adapters' requests use, copied line for line with every block they
``$ref`` (tests/published/README.md names each source and commit). This module reads
them as the specs mean them and validates a request against them:

- a component is its block (``#/components/schemas/X``, ``#/definitions/X``);
- ``allOf`` parts that are objects merge, as OpenAPI tools read them: their properties
  and required names together, and ``additionalProperties: false`` on any part closes
  the merged whole (read literally by JSON Schema, AssemblyAI's ``TranscriptParams``
  would refuse every property but ``audio_url``);
- ``oneOf`` is read as ``anyOf``: Deepgram's spec writes "a known model, or any
  string" as ``oneOf`` an enum and a string, which a known value matches twice;
- query parameters become an object of their schemas, closed to names the spec does not
  list (a test's rule: an unknown parameter is a mistake);
- multipart and query values arrive as text: each is read as its schema's type
  (numbers, booleans, JSON objects), and a ``name[]`` field repeated is one array;
- a property the spec marks ``deprecated`` and the request sends is an error.
"""

from __future__ import annotations

import copy
import functools
import json
from pathlib import Path
from typing import Any

import jsonschema
import yaml

SPECS = Path(__file__).with_name("published") / "specs"

__all__ = ["check_form", "check_json", "check_query", "spec"]


@functools.cache
def spec(name: str) -> dict[str, Any]:
    """The stored excerpt ``specs/<name>.yaml``."""
    loaded: dict[str, Any] = yaml.safe_load((SPECS / f"{name}.yaml").read_text("utf-8"))
    return loaded


def _resolve(root: dict[str, Any], schema: Any) -> Any:
    while isinstance(schema, dict) and "$ref" in schema:
        target: Any = root
        for part in schema["$ref"].lstrip("#/").split("/"):
            target = target[part.replace("~1", "/").replace("~0", "~")]
        if not isinstance(target, dict):
            return target
        schema = {**target, **{k: v for k, v in schema.items() if k != "$ref"}}
    return schema


def _merge_all_of(root: dict[str, Any], schema: Any) -> Any:
    """``schema`` with its object ``allOf`` parts merged (see module doc), recursively."""
    if isinstance(schema, list):
        return [_merge_all_of(root, s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    schema = {("anyOf" if k == "oneOf" else k): _merge_all_of(root, v) if k != "example" else v
              for k, v in schema.items()}
    parts = [_resolve(root, p) for p in schema.get("allOf", ())]
    if parts and all(isinstance(p, dict) and (p.get("type") == "object" or "properties" in p)
                     for p in parts):
        merged = {k: v for k, v in schema.items() if k != "allOf"}
        properties: dict[str, Any] = dict(merged.get("properties", {}))
        required: list[str] = list(merged.get("required", []))
        closed = merged.get("additionalProperties") is False
        for part in parts:
            part = _merge_all_of(root, part)
            properties.update(part.get("properties", {}))
            required += [r for r in part.get("required", []) if r not in required]
            closed = closed or part.get("additionalProperties") is False
        merged.update(type="object", properties=properties)
        if required:
            merged["required"] = required
        if closed:
            merged["additionalProperties"] = False
        return merged
    return schema


def _validator(name: str, pointer: str) -> tuple[dict[str, Any], jsonschema.Validator]:
    root = copy.deepcopy(spec(name))
    merged = _merge_all_of(root, root)
    top = _resolve(merged, {"$ref": pointer})
    document = {**merged, **top}
    return document, jsonschema.Draft202012Validator(document)


def _types(root: dict[str, Any], schema: Any) -> set[str]:
    """The JSON types a schema allows (through ``$ref``, ``anyOf``, ``oneOf``)."""
    schema = _resolve(root, schema)
    if not isinstance(schema, dict):
        return set()
    found: set[str] = set()
    kind = schema.get("type")
    found.update([kind] if isinstance(kind, str) else kind or [])
    if "enum" in schema:
        found.update(type(v).__name__.replace("str", "string").replace("bool", "boolean")
                     for v in schema["enum"])
    for key in ("anyOf", "oneOf", "allOf"):
        for sub in schema.get(key, ()):
            found |= _types(root, sub)
    return found


def _read(root: dict[str, Any], schema: Any, text: str) -> Any:
    """A text value as its schema's type."""
    types = _types(root, schema)
    if text[:1] in "{[" or "string" not in types:
        try:
            return json.loads(text)
        except ValueError:
            return text
    return text


def _typed(root: dict[str, Any], schema: dict[str, Any],
           pairs: list[tuple[str, str]]) -> dict[str, Any]:
    properties = _resolve(root, schema).get("properties", {})
    out: dict[str, Any] = {}
    for raw, value in pairs:
        name = raw.removesuffix("[]")
        prop = properties.get(name, {})
        if "array" in _types(root, prop):
            items = _resolve(root, prop).get("items", {})
            if isinstance(_resolve(root, prop).get("anyOf"), list):
                items = next((_resolve(root, s).get("items", {}) for s in prop["anyOf"]
                              if "items" in _resolve(root, s)), items)
            out.setdefault(name, []).append(_read(root, items, value))
        else:
            out[name] = _read(root, prop, value)
    return out


def _deprecated(root: dict[str, Any], schema: Any, instance: Any, at: str) -> list[str]:
    schema = _resolve(root, schema)
    if not isinstance(instance, dict) or not isinstance(schema, dict):
        return []
    found = []
    for name, value in instance.items():
        prop = _resolve(root, schema.get("properties", {}).get(name))
        if isinstance(prop, dict):
            if prop.get("deprecated"):
                found.append(f"{at}{name}: deprecated by the spec")
            found += _deprecated(root, prop, value, f"{at}{name}/")
    return found


def _check(name: str, pointer: str, instance: Any,
           document: dict[str, Any] | None = None) -> None:
    if document is None:
        document, validator = _validator(name, pointer)
    else:
        validator = jsonschema.Draft202012Validator(document)
    errors = [f"{'/'.join(map(str, e.absolute_path)) or '(root)'}: {e.message}"
              for e in validator.iter_errors(instance)]
    errors += _deprecated(document, document, instance, "")
    assert not errors, f"{name} {pointer}: " + "; ".join(errors)


def check_json(name: str, pointer: str, body: Any) -> None:
    """A JSON body conforms to the spec's schema at ``pointer``."""
    _check(name, pointer, body)


def check_form(name: str, pointer: str, fields: list[tuple[str, str]],
               files: list[str]) -> None:
    """A multipart body (its text fields and file part names) conforms to the schema."""
    document, _ = _validator(name, pointer)
    instance = _typed(document, document, fields)
    instance.update({part: "<binary>" for part in files})
    _check(name, pointer, instance, document)


def check_query(name: str, pointer: str, query: list[tuple[str, str]]) -> None:
    """A query string conforms to the parameters list at ``pointer`` (``in: query``)."""
    raw = copy.deepcopy(spec(name))
    root = _merge_all_of(raw, raw)
    parameters = [_resolve(root, p) for p in _resolve(root, {"$ref": pointer})]
    wanted = [p for p in parameters if p.get("in") == "query"]
    document = {**root, "type": "object", "additionalProperties": False,
                "properties": {p["name"]: {**p.get("schema", {}),
                                           **({"deprecated": True} if p.get("deprecated")
                                              else {})} for p in wanted},
                "required": [p["name"] for p in wanted if p.get("required")]}
    instance = _typed(document, document, query)
    _check(name, pointer, instance, document)
