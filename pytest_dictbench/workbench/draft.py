"""``dictbench draft`` and ``dictbench refine``: a draft suite from a folder of recordings.

``draft`` converts every recording soundfile can read to 16-bit FLAC inside the new suite
(the canary in its comment tag), transcribes it with a product's adapter, asks the judge
model for key points (one per ``per_seconds`` of audio, at least 3), and writes
``suite.toml`` and ``cases.jsonl`` with every case ``"status": "draft"`` and the
manifest digests. ``refine`` asks again for the key points of every case whose reference
changed since its key points were drafted, and marks those cases draft again.
"""

from __future__ import annotations

import hashlib
import re
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import tomli_w

from ..adapters.base import AdapterOptions
from ..audio.io import AudioError, read_audio
from ..errors import DictbenchError, JudgeError
from ..hashes import refresh_hashes
from ..judge.settings import JudgeSettings, parse_judge_settings
from ..model import Case
from ..products import load_product
from ..suites import MANIFEST, load_suite, read_toml
from .drafter import Drafter, keypoint_count
from .store import DRAFT, read_cases, save_cases, suite_root

__all__ = ["DEFAULT_PRODUCT", "DraftResult", "draft_suite", "load_judge_table",
           "refine_suite"]

#: The product that transcribes drafts unless another is named (local, English only).
DEFAULT_PRODUCT = "whisper-tiny"
#: Method of drafted suites (cases carry ``reference`` and ``key_points``).
DRAFT_METHOD = "keypoints"


@dataclass
class DraftResult:
    """What a draft or refine did: cases written, files skipped, problems per case."""

    root: Path
    cases: list[str] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)
    problems: list[tuple[str, str]] = field(default_factory=list)
    refined: list[str] = field(default_factory=list)

    def lines(self) -> list[str]:
        out = [f"{name}: not a readable recording, skipped ({why})"
               for name, why in self.skipped]
        out += [f"case {case}: {why}" for case, why in self.problems]
        return out


def text_sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def load_judge_table(path: Path) -> tuple[dict[str, Any], JudgeSettings]:
    """The ``[judge]`` table of a TOML file (as ``dictbench_judge_config`` holds it)."""
    table = read_toml(path, JudgeError).get("judge")
    if not isinstance(table, dict):
        raise JudgeError("no [judge] table", path=path)
    return table, parse_judge_settings(table, path=path)


def _case_id(stem: str, taken: set[str]) -> str:
    base = re.sub(r"[^A-Za-z0-9._-]+", "-", stem).strip("-._") or "case"
    if not base[0].isalnum():
        base = "c" + base
    name, n = base[:100], 2
    while name in taken:
        name, n = f"{base[:100]}-{n}", n + 1
    taken.add(name)
    return name


def _suite_id(folder: Path) -> str:
    return re.sub(r"[^a-z0-9._-]+", "-", folder.name.lower()).strip("-._") or "draft"


def _manifest(suite_id: str, locale: str, canary: str, private: bool,
              judge: Mapping[str, Any] | None) -> str:
    head: dict[str, Any] = {
        "id": suite_id, "version": "0.1.0", "title": f"{suite_id} (drafted)",
        "method": DRAFT_METHOD, "locale": locale, "canary": canary,
        "description": "Drafted by dictbench draft; every case needs review "
                       "(dictbench review) before it is a benchmark item.",
    }
    if private:
        head["private"] = True
    if judge:
        head["judge"] = dict(judge)
    return tomli_w.dumps(head)


def _transcribe(rows: list[dict[str, Any]], root: Path, product_name: str, products: Path,
                result: DraftResult) -> None:
    """Fill each row's ``reference`` with the product's transcript."""
    from ..adapters import builtin_adapters

    product = load_product(product_name, products)
    factories = builtin_adapters()
    if product.adapter not in factories:
        raise DictbenchError(f"product {product_name!r} uses adapter {product.adapter!r}, "
                             "which the workbench cannot run", path=product.path)
    suite = load_suite(root)
    adapter = factories[product.adapter](product, suite, AdapterOptions(warmup=False))
    for row in rows:
        try:
            output = adapter.get(Case(row["id"], row), 1)
        except DictbenchError as exc:
            result.problems.append((row["id"], f"no transcript: {exc}"))
            continue
        if output is None or output.is_error or output.status != "complete":
            why = (output.error or output.status) if output else "no output"
            result.problems.append((row["id"], f"no transcript: {why}"))
            continue
        row["reference"] = output.text.strip()


def _key_points(row: dict[str, Any], drafter: Drafter, per_seconds: float, locale: str,
                result: DraftResult) -> bool:
    reference = row.get("reference", "")
    if not reference.strip():
        return False
    count = keypoint_count(float(row.get("duration_s", 0.0)), per_seconds)
    try:
        points = drafter.key_points(reference, count, locale)
    except JudgeError as exc:
        result.problems.append((row["id"], f"no key points: {exc}"))
        return False
    row["key_points"] = [{"id": f"k{n}", **p} for n, p in enumerate(points, start=1)]
    row.setdefault("drafted", {})["reference_sha256"] = text_sha256(reference)
    row["status"] = DRAFT
    return True


def draft_suite(folder: Path, out: Path, *, product: str = DEFAULT_PRODUCT,
                products: Path = Path("products"), per_seconds: float = 15.0,
                locale: str = "en-US", judge_config: Path | None = None,
                private: bool = False, drafter: Drafter | None = None) -> DraftResult:
    """Write a draft suite at ``out`` from the recordings in ``folder``."""
    from ..audio.synth import _write_flac  # the one FLAC writer with a canary tag

    if not folder.is_dir():
        raise DictbenchError("not a folder of recordings", path=folder)
    if out.exists() and any(out.iterdir()):
        raise DictbenchError("the output folder exists and is not empty", path=out)
    if per_seconds <= 0:
        raise DictbenchError(f"--per-seconds must be positive, got {per_seconds}")
    judge_table, settings = load_judge_table(judge_config) if judge_config else (None, None)
    if drafter is None:
        if settings is None:
            raise JudgeError("key points are drafted by the judge model: give "
                             "--judge-config FILE with a [judge] table")
        drafter = Drafter.from_settings(settings)
    result = DraftResult(out)
    canary = f"DICTBENCH-CANARY {_suite_id(out)} {uuid.uuid4()}"
    rows: list[dict[str, Any]] = []
    taken: set[str] = set()
    for path in sorted(p for p in folder.iterdir() if p.is_file()):
        try:
            samples, rate = read_audio(path)
        except AudioError as exc:
            result.skipped.append((path.name, str(exc).replace(str(path), path.name)))
            continue
        case_id = _case_id(path.stem, taken)
        rel = f"audio/{case_id}.flac"
        _write_flac(out / rel, samples, rate, canary)
        rows.append({"id": case_id, "canary": canary, "status": DRAFT, "audio": rel,
                     "duration_s": round(len(samples) / rate, 3), "reference": "",
                     "key_points": [], "drafted": {"product": product, "source": path.name}})
    if not rows:
        raise DictbenchError("no readable recording in the folder", path=folder)
    out.mkdir(parents=True, exist_ok=True)
    (out / MANIFEST).write_text(_manifest(_suite_id(out), locale, canary, private,
                                          judge_table), encoding="utf-8")
    save_cases(out, rows, None)
    _transcribe(rows, out, product, products, result)
    for row in rows:
        _key_points(row, drafter, per_seconds, locale, result)
    save_cases(out, rows, read_cases(out).fingerprint)
    refresh_hashes(out)  # a new suite: every file it holds was written just now
    result.cases = [r["id"] for r in rows]
    return result


def refine_suite(suite: Path, *, per_seconds: float = 15.0, judge_config: Path | None = None,
                 drafter: Drafter | None = None) -> DraftResult:
    """Re-derive the key points of cases whose reference changed since their draft."""
    root = suite_root(suite)
    manifest = read_toml(root / MANIFEST)
    if drafter is None:
        if judge_config is not None:
            settings = load_judge_table(judge_config)[1]
        elif isinstance(manifest.get("judge"), dict):
            settings = parse_judge_settings(manifest["judge"], path=root / MANIFEST)
        else:
            raise JudgeError("the suite declares no [judge] table: give --judge-config FILE",
                             path=root / MANIFEST)
        drafter = Drafter.from_settings(settings)
    snapshot = read_cases(root)
    rows = [dict(r) for r in snapshot.rows]
    result = DraftResult(root, cases=[r["id"] for r in rows])
    for row in rows:
        drafted = row.get("drafted")
        if not isinstance(drafted, dict) or \
                text_sha256(row.get("reference", "")) == drafted.get("reference_sha256"):
            continue  # written by hand, or unchanged since its key points were drafted
        if _key_points(row, drafter, per_seconds, str(manifest.get("locale", "en")), result):
            result.refined.append(row["id"])
    if result.refined:
        save_cases(root, rows, snapshot.fingerprint)
    return result
