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
import math
import os
import re
import shutil
import stat
import tempfile
import unicodedata
import uuid
from collections.abc import Callable, Mapping
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
#: ``dictbench draft --judge``: ``live`` drafts key points with the judge model, ``off``
#: leaves them to be written by hand (no judge configuration or key needed).
JUDGE_MODES = ("live", "off")
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
    #: cases whose hand-edited key points refine left alone (no ``--force``)
    kept: list[str] = field(default_factory=list)
    #: cases whose hand-edited key points refine replaced (``--force``)
    replaced: list[str] = field(default_factory=list)
    #: cases drafted with ``--judge=off``: key points left to write in the review page
    by_hand: list[str] = field(default_factory=list)

    def lines(self) -> list[str]:
        out = [f"{name}: {why}" for name, why in self.skipped]
        out += [f"case {case}: {why}" for case, why in self.problems]
        out += [f"case {case}: its key points were edited by hand, so they are not drafted "
                "again; refine --force replaces them (keeping the old ones in "
                "drafted.previous_key_points)" for case in self.kept]
        out += [f"case {case}: hand-edited key points replaced; the old ones are in "
                "drafted.previous_key_points" for case in self.replaced]
        if self.by_hand:
            out.append(f"{len(self.by_hand)} case(s) without key points (--judge=off): write "
                       f"them in 'dictbench review {self.root}', then approve each case")
        return out

    @property
    def failed(self) -> bool:
        """Whether something was not done: a case's problem, or hand edits kept."""
        return bool(self.problems or self.kept)


def text_sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def text_form(text: str) -> str:
    """A transcript up to formatting: NFKC, whitespace runs as one space, trimmed."""
    return " ".join(unicodedata.normalize("NFKC", text).split())


def points_sha256(points: Any) -> str:
    """The digest of a case's key points as drafted (to tell hand edits later)."""
    import json

    return text_sha256(json.dumps(points, ensure_ascii=False, sort_keys=True))


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
                result: DraftResult, progress: Callable[[str], None] | None = None) -> None:
    """Fill each row's ``reference`` with the product's transcript; ``progress`` gets a
    line per recording as it is transcribed (CF35)."""
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
        if progress is not None:
            progress(f"{row['drafted']['source']}: transcribed "
                     f"({row['duration_s']:.1f} s of audio)")


def _key_points(row: dict[str, Any], drafter: Drafter, per_seconds: float, locale: str,
                result: DraftResult) -> bool:
    reference = row.get("reference", "")
    if not reference.strip():
        return False
    count = keypoint_count(float(row.get("duration_s", 0.0)), per_seconds)
    try:
        points = drafter.key_points(reference, count, locale)
    except JudgeError as exc:
        # the judge client's hint names a pytest option; say what fits here
        why = str(exc).replace("or use --judge=replay",
                               "or draft with --judge=off and add key points by hand in "
                               "'dictbench review'")
        result.problems.append((row["id"], f"no key points: {why}"))
        return False
    row["key_points"] = [{"id": f"k{n}", **p} for n, p in enumerate(points, start=1)]
    drafted = row.setdefault("drafted", {})
    drafted["reference_sha256"] = text_sha256(reference)
    drafted["reference_form_sha256"] = text_sha256(text_form(reference))
    drafted["key_points_sha256"] = points_sha256(row["key_points"])
    row["status"] = DRAFT
    return True


def check_per_seconds(value: float) -> None:
    """Refuse a ``--per-seconds`` that would ask for an absurd number of key points."""
    if not math.isfinite(value) or value < 1:
        raise DictbenchError(f"--per-seconds must be a finite number of seconds, at least 1 "
                             f"(got {value})")


def _check_out(out: Path) -> None:
    if out.exists() and not out.is_dir():
        raise DictbenchError("the output folder exists and is not a folder", path=out)
    if out.exists() and any(out.iterdir()):
        raise DictbenchError("the output folder exists and is not empty", path=out)
    for parent in out.resolve().parents:
        if (parent / MANIFEST).is_file():
            raise DictbenchError(f"the output folder is inside the suite at {parent}; "
                                 "draft a new suite beside it, not in it", path=out)


def _recordings(folder: Path, result: DraftResult) -> list[Path]:
    """The regular files of ``folder`` whose names can be written; every other entry
    (folder, link to a folder, device, unwritable name) is listed as skipped."""
    found = []
    for entry in sorted(os.scandir(folder), key=lambda e: os.fsencode(e.name)):
        shown = os.fsencode(entry.name).decode("utf-8", "backslashreplace")
        try:
            info = os.stat(entry.path)  # a link to a regular file is read
        except OSError as exc:
            result.skipped.append((shown, f"cannot be read, skipped ({exc.strerror})"))
            continue
        if stat.S_ISDIR(info.st_mode):
            what = "a link to a folder" if entry.is_symlink() else "a folder"
            result.skipped.append((f"{shown}/", f"{what}, not searched"))
        elif not stat.S_ISREG(info.st_mode):
            result.skipped.append((shown, "not a regular file (a device, FIFO or socket), "
                                          "skipped"))
        elif shown != entry.name:
            result.skipped.append((shown, "the file name is not valid UTF-8, skipped "
                                          "(rename the file)"))
        else:
            found.append(Path(entry.path))
    return found


def draft_suite(folder: Path, out: Path, *, product: str = DEFAULT_PRODUCT,
                products: Path = Path("products"), per_seconds: float = 15.0,
                locale: str = "en-US", judge_config: Path | None = None,
                private: bool = False, drafter: Drafter | None = None,
                judge: str = "live", progress: Callable[[str], None] | None = None
                ) -> DraftResult:
    """Write a draft suite at ``out`` from the recordings in ``folder``.

    Everything that can be checked is checked before anything is written (the options,
    the output folder, the judge configuration, the product); the suite is built in a
    hidden folder beside ``out`` and renamed into place at the end, so a failure leaves
    nothing behind. ``judge="off"`` drafts no key points (no judge or key needed).
    """
    from ..audio.synth import _write_flac  # the one FLAC writer with a canary tag

    check_per_seconds(per_seconds)
    if not folder.is_dir():
        raise DictbenchError("not a folder of recordings", path=folder)
    _check_out(out)
    judge_table, settings = load_judge_table(judge_config) if judge_config else (None, None)
    if judge not in JUDGE_MODES:
        raise DictbenchError(f"--judge must be one of {', '.join(JUDGE_MODES)}, not {judge!r}")
    if judge == "off":
        drafter = None
    elif drafter is None:
        if settings is None:
            raise JudgeError("key points are drafted by the judge model: give "
                             "--judge-config FILE with a [judge] table, or --judge=off to "
                             "write them by hand in 'dictbench review'")
        drafter = Drafter.from_settings(settings)
    load_product(product, products)  # an unknown product is refused before any write
    result = DraftResult(out)
    canary = f"DICTBENCH-CANARY {_suite_id(out)} {uuid.uuid4()}"
    out.parent.mkdir(parents=True, exist_ok=True)
    build = Path(tempfile.mkdtemp(prefix=f".{out.name}.", suffix=".drafting", dir=out.parent))
    try:
        rows = _convert(folder, build, canary, product, result, _write_flac)
        (build / MANIFEST).write_text(_manifest(_suite_id(out), locale, canary, private,
                                                judge_table), encoding="utf-8")
        save_cases(build, rows, None)
        _transcribe(rows, build, product, products, result, progress)
        for row in rows:
            if drafter is None:  # --judge=off: transcripts only, key points by hand
                result.by_hand.append(row["id"])
            else:
                _key_points(row, drafter, per_seconds, locale, result)
        save_cases(build, rows, read_cases(build).fingerprint)
        refresh_hashes(build)  # a new suite: every file it holds was written just now
        if out.exists():
            out.rmdir()  # empty, checked above
        os.rename(build, out)
    except BaseException:
        shutil.rmtree(build, ignore_errors=True)
        raise
    result.cases = [r["id"] for r in rows]
    return result


def _convert(folder: Path, build: Path, canary: str, product: str, result: DraftResult,
             write_flac: Any) -> list[dict[str, Any]]:
    """Each readable recording as FLAC in ``build``, with its draft case row."""
    rows: list[dict[str, Any]] = []
    taken: set[str] = set()
    for path in _recordings(folder, result):
        try:
            samples, rate = read_audio(path)
        except AudioError as exc:
            result.skipped.append((path.name, "not a readable recording, skipped ("
                                   + str(exc).replace(str(path), path.name) + ")"))
            continue
        case_id = _case_id(path.stem, taken)
        rel = f"audio/{case_id}.flac"
        write_flac(build / rel, samples, rate, canary)
        rows.append({"id": case_id, "canary": canary, "status": DRAFT, "audio": rel,
                     "duration_s": round(len(samples) / rate, 3), "reference": "",
                     "key_points": [], "drafted": {"product": product, "source": path.name}})
    if not rows:
        raise DictbenchError("no readable recording in the folder", path=folder)
    return rows


def _hand_edited(row: Mapping[str, Any], drafted: Mapping[str, Any]) -> bool:
    """Whether a person changed the key points since they were drafted (without the
    drafted digest, of an older draft: whether a person approved the case)."""
    points = row.get("key_points")
    if not points:
        return False
    if "key_points_sha256" in drafted:
        return points_sha256(points) != drafted["key_points_sha256"]
    return row.get("status") != DRAFT


def refine_suite(suite: Path, *, per_seconds: float = 15.0, judge_config: Path | None = None,
                 drafter: Drafter | None = None, force: bool = False) -> DraftResult:
    """Re-derive the key points of cases whose reference changed since their draft.

    A change of formatting only (:func:`text_form`) keeps the key points. A case whose
    key points were edited by hand is left alone and listed (``result.kept``) unless
    ``force``; then its old points are kept in ``drafted.previous_key_points``.
    """
    check_per_seconds(per_seconds)
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
        reference = row.get("reference", "")
        if not isinstance(drafted, dict) or not isinstance(reference, str) or \
                text_sha256(reference) == drafted.get("reference_sha256") or \
                text_sha256(text_form(reference)) == drafted.get("reference_form_sha256"):
            continue  # written by hand, or unchanged (up to formatting) since drafted
        edited = _hand_edited(row, drafted)
        if edited and not force:
            result.kept.append(row["id"])
            continue
        row["drafted"] = drafted = dict(drafted)
        old = row.get("key_points")
        if _key_points(row, drafter, per_seconds, str(manifest.get("locale", "en")), result):
            result.refined.append(row["id"])
            if edited:
                drafted["previous_key_points"] = old
                result.replaced.append(row["id"])
    if result.refined:
        save_cases(root, rows, snapshot.fingerprint)
    return result
