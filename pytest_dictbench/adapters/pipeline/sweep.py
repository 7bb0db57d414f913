"""Sweeps: one file declares recognisers x refining models x instruction files.

``products/<matrix>.toml`` with a ``[sweep]`` table expands into one ``pipeline``
product per combination, named ``<matrix>.<recogniser>.<model label>.<template stem>``
(sorted in that order), so ``pytest --product=<matrix>`` runs them all and every report
row says what it was. See ``docs/refine.md`` for the format.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from ...errors import ProductError
from ...model import Product
from ...products import load_product
from ...redact import register_settings_secrets, secret_source
from ...suites import read_toml

__all__ = ["expand_sweep", "load_products", "load_recogniser", "one_namespace"]

_TOP = {"name", "version", "description", "sweep", "settings", "environment"}
_SWEEP = {"asr", "models", "templates"}
_LABEL = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]*$")


def load_products(name: str, folder: Path) -> list[Product]:
    """``folder/<name>.toml`` as products: one, or every combination of a sweep.

    A pipeline runs in its recogniser's capture group (unless it names its own), so
    under xdist the recogniser is captured once, on one worker.
    """
    path = folder / f"{name}.toml"
    if path.is_file():
        data = read_toml(path, ProductError)
        if "sweep" in data:
            return expand_sweep(data, path)
    return [_grouped(load_product(name, folder))]


def _grouped(product: Product) -> Product:
    if product.adapter != "pipeline" or "capture_group" in product.settings:
        return product
    asr = product.settings.get("asr")
    name = asr.get("product") if isinstance(asr, Mapping) else None
    if not isinstance(name, str):
        return product  # the adapter reports the problem
    recogniser = load_recogniser(product, name)
    if recogniser.adapter == "cache":
        return product
    group = str(recogniser.settings.get("capture_group", recogniser.name))
    return dataclasses.replace(product, settings={**product.settings, "capture_group": group})


def load_recogniser(product: Product, name: str) -> Product:
    """The recogniser ``name`` of pipeline ``product``; an error names the pipeline."""
    try:
        return load_product(name, product.path.parent)
    except ProductError as exc:
        raise ProductError(f"[asr] of pipeline {product.name!r}: {exc}",
                           path=product.path) from None


def _strings(sweep: Mapping[str, Any], key: str, path: Path) -> list[str]:
    values = sweep.get(key)
    if not isinstance(values, list) or not values or not all(
            isinstance(v, str) and v for v in values):
        raise ProductError(f"[sweep] {key} must be a non-empty list of strings", path=path)
    if len(set(values)) != len(values):
        raise ProductError(f"[sweep] {key} lists a value twice", path=path)
    return values


def _models(sweep: Mapping[str, Any], path: Path) -> list[tuple[str, dict[str, Any]]]:
    models = sweep.get("models")
    if not isinstance(models, list) or not models or not all(
            isinstance(m, Mapping) for m in models):
        raise ProductError("[sweep] needs one or more [[sweep.models]] tables", path=path)
    out = []
    for index, model in enumerate(models, start=1):
        register_settings_secrets(model)  # its api_key_env: known before names are made
        label = model.get("label", model.get("model"))
        source = secret_source(label) if isinstance(label, str) else None
        if source is not None:  # CF1: the label would be printed in every node id
            raise ProductError(f"[[sweep.models]] {index}: the label (default: the model) "
                               f"holds the value of {source}; give a label", path=path)
        if not isinstance(label, str) or not _LABEL.match(label):
            raise ProductError(f"[[sweep.models]] {index}: label {label!r} must be letters, "
                               "digits, '-' or '_' (it goes into product names)", path=path)
        if "template" in model or "template_file" in model or "name" in model:
            raise ProductError(f"[[sweep.models]] {label}: the instructions come from "
                               "[sweep] templates, the step name from the label", path=path)
        out.append((label, {k: v for k, v in model.items() if k != "label"}))
    labels = [label for label, _ in out]
    if len(set(labels)) != len(labels):
        raise ProductError("[[sweep.models]] labels must be unique", path=path)
    return out


def expand_sweep(data: Mapping[str, Any], path: Path) -> list[Product]:
    """The products of a sweep file's matrix (see the module docstring)."""
    unknown = sorted(set(data) - _TOP)
    if unknown:
        raise ProductError(f"sweep file has unknown key(s) {', '.join(unknown)}", path=path)
    sweep = data["sweep"]
    if not isinstance(sweep, Mapping) or sorted(set(sweep) - _SWEEP):
        raise ProductError(f"[sweep] takes only {', '.join(sorted(_SWEEP))}", path=path)
    name, version = data.get("name"), data.get("version")
    if name != path.stem or not isinstance(version, str) or not version:
        raise ProductError("a sweep file needs name (its file name) and version", path=path)
    settings = dict(data.get("settings", {}))
    if {"asr", "refine"} & set(settings):
        raise ProductError("[settings] of a sweep cannot hold asr or refine", path=path)
    register_settings_secrets(settings)
    recognisers = _strings(sweep, "asr", path)
    templates = _strings(sweep, "templates", path)
    stems = [Path(t).stem for t in templates]
    if len(set(stems)) != len(stems) or not all(_LABEL.match(s) for s in stems):
        raise ProductError("[sweep] templates need unique file stems of letters, digits, "
                           "'-' or '_' (they go into product names)", path=path)
    products = []
    for asr in recognisers:
        for label, model in _models(sweep, path):
            for template, stem in zip(templates, stems, strict=True):
                product = f"{name}.{asr}.{label}.{stem}"
                clash = path.parent / f"{product}.toml"
                if clash.exists():
                    raise ProductError(
                        f"product {product!r} is both an entry of the sweep {path} and "
                        f"the product file {clash}: sweep entries and product files share "
                        "one namespace; rename or remove one", path=path)
                step = {**model, "name": label, "template_file": template}
                products.append(_grouped(Product(
                    name=product, version=version, adapter="pipeline",
                    path=path.parent / f"{product}.toml",
                    settings={**settings, "asr": {"product": asr}, "refine": [step]},
                    environment=dict(data.get("environment", {})),
                    description=f"sweep {name}: {asr} refined by {label} with {template}")))
    return sorted(products, key=lambda p: p.name)


def one_namespace(groups: Iterable[Sequence[Product]]) -> list[Product]:
    """The products of every ``--product`` value, each once: the same product reached
    twice is kept once; two products of one name from different files are an error
    naming both (the option order never decides which runs)."""
    seen: dict[str, Product] = {}
    for group in groups:
        for product in group:
            first = seen.setdefault(product.name, product)
            if first.path.resolve() != product.path.resolve():
                raise ProductError(f"two products named {product.name!r}: {first.path} and "
                                   f"{product.path}; product names must be unique in a run")
    return list(seen.values())
