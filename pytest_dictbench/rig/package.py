"""A rig methodology package (``benchmark-manifest-*.json`` and its files) read as a suite.

The manifest's fixtures become the suite's cases (reference, seed and meeting turns read
from their files), ``integrity.files`` its listed files (checked by
``--dictbench-verify``), and the whole manifest is kept as ``suite.manifest["package"]``
for the ``rig`` method. Structural problems are :class:`SuiteError`\\ s naming the file.
"""

from __future__ import annotations

import csv
import hashlib
import io
import math
import os
import re
import stat
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..errors import SuiteError
from ..jsonl import parse_json, read_text
from ..model import Case, Suite, SuiteFile
from ..suites import inside
from ..text.normalize import strict_text as file_text
from .protocol import WORKFLOWS, gate_open
from .rows import COLUMNS

__all__ = ["FIXTURE_KEYS", "PACKAGE_GLOB", "is_package", "load_package", "package_manifest",
           "unknown_keys", "verify_package"]

#: File names collected as rig packages.
PACKAGE_GLOB = "benchmark-manifest-*.json"
_SHA256 = re.compile(r"[0-9a-f]{64}")
#: A BCP 47 tag as manifests write it: language, then optional script, region, variants.
_BCP47 = re.compile(r"[A-Za-z]{2,3}(-[A-Za-z]{4})?(-([A-Za-z]{2}|[0-9]{3}))?"
                    r"(-([A-Za-z0-9]{5,8}|[0-9][A-Za-z0-9]{3}))*")
_HASH_CHUNK = 1 << 20


def is_package(path: Path) -> bool:
    """Whether ``path`` names a rig package manifest."""
    return path.match(PACKAGE_GLOB)


def package_manifest(path: Path) -> Path | None:
    """The package manifest ``path`` names: the manifest itself, or a folder with no
    ``suite.toml`` that holds exactly one ``benchmark-manifest-*.json`` (``dictbench hash
    cases/mac-rig``); None when ``path`` is no package. A folder holding several
    manifests is refused, naming them."""
    if is_package(path):
        return path
    if not path.is_dir() or (path / "suite.toml").exists():
        return None
    found = sorted(path.glob(PACKAGE_GLOB))
    if len(found) > 1:
        raise SuiteError("the folder holds several rig package manifests ("
                         f"{', '.join(f.name for f in found)}); name the one to use", path=path)
    return found[0] if found else None


def _fail(message: str, path: Path) -> SuiteError:
    return SuiteError(message, path=path)


def _integrity(manifest: Mapping[str, Any], root: Path, path: Path) -> dict[str, str]:
    integrity = manifest.get("integrity")
    if not isinstance(integrity, dict) or integrity.get("algorithm") != "sha256":
        raise _fail("integrity.algorithm must be 'sha256'", path)
    files = integrity.get("files")
    if not isinstance(files, list):
        raise _fail("integrity.files must be a list", path)
    declared: dict[str, str] = {}
    for number, entry in enumerate(files, 1):
        if not isinstance(entry, dict):
            raise _fail(f"integrity.files[{number}] must be an object {{path, sha256}}", path)
        rel, digest = entry.get("path"), entry.get("sha256")
        if not isinstance(rel, str) or not rel:
            raise _fail(f"integrity.files[{number}] has no path", path)
        if not isinstance(digest, str) or not _SHA256.fullmatch(digest):
            raise _fail(f"integrity file {rel!r}: sha256 must be 64 lower-case hex digits",
                        path)
        if rel in declared:
            raise _fail(f"integrity file {rel!r} is listed twice", path)
        inside(root, rel, what="integrity file", where=path)
        declared[rel] = digest
    return declared


def _check_protocol(manifest: Mapping[str, Any], path: Path) -> None:
    for key in ("protocol", "ranking"):
        if not isinstance(manifest.get(key, {}), dict):
            raise _fail(f"{key} must be an object", path)
    if not isinstance(manifest.get("protocol", {}).get("run_order", {}), dict):
        raise _fail("protocol.run_order must be an object of blocks", path)
    gate = manifest.get("execution_gate")
    if not isinstance(gate, dict) or not isinstance(gate.get("ready"), bool):
        raise _fail("execution_gate.ready must be true or false", path)
    blocking = gate.get("blocking_items", [])
    if not isinstance(blocking, list) or not all(isinstance(b, str) for b in blocking):
        raise _fail("execution_gate.blocking_items must be a list of texts", path)
    minimum = manifest.get("ranking", {}).get("minimum_apps", 2)
    if not isinstance(minimum, int) or isinstance(minimum, bool) or minimum < 1:
        raise _fail("ranking.minimum_apps must be a positive integer", path)
    products = manifest.get("products")
    if not isinstance(products, list) or not products or \
            not all(isinstance(p, str) for p in products) or len(set(products)) != len(products):
        raise _fail("products must be a non-empty list of unique product ids", path)
    if manifest.get("ranking", {}).get("overall_score") is not False:
        raise _fail("ranking.overall_score must be false: the methodology has no overall "
                    "score", path)
    faults = (manifest.get("disclosure") or {}).get("intended_faults", [])
    if not isinstance(manifest.get("disclosure", {}), dict) or not isinstance(faults, list) \
            or not all(isinstance(f, str) for f in faults):
        raise _fail("disclosure.intended_faults must be a list of item names", path)
    protocol = manifest.get("protocol", {})
    if protocol.get("eligible_status") != "complete":
        raise _fail("protocol.eligible_status must be 'complete'", path)
    repetitions = protocol.get("required_repetitions")
    if not isinstance(repetitions, int) or isinstance(repetitions, bool) or repetitions < 1:
        raise _fail("protocol.required_repetitions must be a positive integer", path)
    for block in range(1, repetitions + 1):
        order = protocol.get("run_order", {}).get(f"block_{block}")
        if not isinstance(order, list) or sorted(order) != sorted(products):
            raise _fail(f"protocol.run_order.block_{block} must list every product exactly "
                        "once", path)
    if not isinstance(protocol.get("profiles", {}), dict):
        raise _fail("protocol.profiles must be a table of profile names", path)
    calibration = protocol.get("calibration", {})
    if not isinstance(calibration, dict):
        raise _fail("protocol.calibration must be an object", path)
    for key in ("level_tolerance_db", "onset_tolerance_ms"):
        value = calibration.get(key, 0)
        if isinstance(value, bool) or not isinstance(value, int | float) or \
                not math.isfinite(value) or value < 0:
            raise _fail(f"protocol.calibration.{key} must be a number >= 0", path)


def _fixture_case(number: int, fixture: Mapping[str, Any], declared: Mapping[str, str],
                  gate_ready: bool, root: Path, path: Path) -> Case:
    fid = fixture.get("id")
    where = f"fixture {fid!r}"
    if fixture.get("workflow") not in WORKFLOWS:
        raise _fail(f"{where}: workflow must be one of {', '.join(WORKFLOWS)}", path)
    locale = fixture.get("locale")
    if not isinstance(locale, str) or not locale:
        raise _fail(f"{where}: locale is missing", path)
    if not _BCP47.fullmatch(locale):
        hint = f" (write {locale.replace('_', '-')!r})" if "_" in locale else ""
        raise _fail(f"{where}: locale {locale!r} is not a BCP 47 tag{hint}", path)
    reps = fixture.get("required_repetitions")
    if not isinstance(reps, int) or isinstance(reps, bool) or reps < 1:
        raise _fail(f"{where}: required_repetitions must be a positive integer", path)
    if not isinstance(fixture.get("required_fields"), list):
        raise _fail(f"{where}: required_fields must be a list", path)
    for key in ("reference_path", "seed_path", "segments_path", "audio_path", "audio_sha256"):
        if fixture.get(key) is not None and not isinstance(fixture[key], str):
            raise _fail(f"{where}: {key} must be a path text or null", path)
    if not all(isinstance(name, str) for name in fixture["required_fields"]):
        raise _fail(f"{where}: required_fields must be a list of column names", path)
    data: dict[str, Any] = dict(fixture)
    for key, target in (("reference_path", "reference"), ("seed_path", "seed"),
                        ("segments_path", "turns")):
        rel = fixture.get(key)
        if key == "reference_path" and not rel:
            raise _fail(f"{where}: reference_path is missing", path)
        if not rel:
            continue
        if rel not in declared:
            raise _fail(f"{where}: {key} {rel!r} is not in integrity.files", path)
        file = inside(root, rel, what=f"{where} {key}", where=path)
        text = file_text(read_text(file, SuiteError))
        data[target] = text if target != "turns" else _turns(text, file)
    audio = fixture.get("audio_path")
    if audio:
        if audio not in declared:
            raise _fail(f"{where}: audio_path {audio!r} is not in integrity.files", path)
        if fixture.get("audio_sha256") != declared[audio]:
            raise _fail(f"{where}: audio_sha256 differs from its integrity entry", path)
        data["audio"] = audio
    elif gate_ready and fixture["workflow"] != "correction":
        raise _fail(f"execution_gate.ready is true but {where} has no hashed audio", path)
    if fixture["workflow"] == "correction" and "seed" not in data:
        raise _fail(f"{where}: a correction fixture needs seed_path", path)
    return Case(id=fid, data=data, line=number)


def _check_template(path: Path) -> None:
    """The blank results template: exactly the 28 columns, and no complete row."""
    records = list(csv.reader(io.StringIO(read_text(path, SuiteError), newline="")))
    if not records or tuple(records[0]) != COLUMNS:
        raise SuiteError(f"the results template's header is not the {len(COLUMNS)} "
                         "results columns", path=path)
    status = COLUMNS.index("status")
    for number, record in enumerate(records[1:], 2):
        if len(record) > status and record[status].strip() == "complete":
            raise SuiteError(f"row {number}, column status: the blank results template "
                             "holds a complete row", path=path)


def _turns(text: str, path: Path) -> list[dict[str, Any]]:
    """The reference turns of a segments file, each checked: a speaker the file lists
    (when it lists ``speakers``), non-blank speaker and text, turn numbers 1, 2, 3, ...
    in order when given, and no turn repeated."""
    data = parse_json(text, SuiteError, path)
    turns = data.get("turns") if isinstance(data, dict) else None
    if not isinstance(turns, list) or not turns:
        raise SuiteError("meeting segments need a non-empty 'turns' list", path=path)
    speakers = data.get("speakers")
    if speakers is not None and (not isinstance(speakers, list) or not all(
            isinstance(s, str) and s.strip() for s in speakers)):
        raise SuiteError("'speakers' must be a list of non-empty texts", path=path)
    seen: dict[tuple[Any, Any], int] = {}
    for index, turn in enumerate(turns, 1):
        if not isinstance(turn, dict):
            raise SuiteError(f"turn {index}: must be an object", path=path)
        for key in ("speaker", "text"):
            if not isinstance(turn.get(key), str) or not turn[key].strip():
                raise SuiteError(f"turn {index}: {key} must be a non-empty text", path=path)
        if speakers is not None and turn["speaker"] not in speakers:
            raise SuiteError(f"turn {index}: speaker {turn['speaker']!r} is not in the "
                             f"file's speakers ({', '.join(speakers)})", path=path)
        key = (turn["speaker"], " ".join(turn["text"].split()))
        if key in seen and seen[key] == index - 1:
            raise SuiteError(f"turn {index} repeats turn {seen[key]}", path=path)
        seen[key] = index
        if "turn" in turn and turn["turn"] != index:
            raise SuiteError(f"turn {index}: turn numbers must run 1, 2, 3, ... in order "
                             f"(found {turn['turn']!r})", path=path)
    return turns


def load_package(path: Path) -> Suite:
    """The suite of the package whose manifest is ``path``."""
    root = path.parent
    manifest = parse_json(read_text(path, SuiteError), SuiteError, path)
    if not isinstance(manifest, dict):
        raise _fail("the manifest must be a JSON object", path)
    for key in ("benchmark_id", "schema_version"):
        if not isinstance(manifest.get(key), str) or not manifest[key]:
            raise _fail(f"{key} must be a non-empty string", path)
    _check_protocol(manifest, path)
    declared = _integrity(manifest, root, path)
    for key in ("methodology_path", "results_template_path"):
        if manifest.get(key) is not None and manifest[key] not in declared:
            raise _fail(f"{key} {manifest[key]!r} is not in integrity.files", path)
    if manifest.get("results_template_path"):
        _check_template(inside(root, manifest["results_template_path"],
                               what="results template", where=path))
    fixtures = manifest.get("fixtures")
    if not isinstance(fixtures, list) or not fixtures:
        raise _fail("fixtures must be a non-empty list", path)
    cases, seen = [], set()
    for number, fixture in enumerate(fixtures, 1):
        if not isinstance(fixture, dict) or not isinstance(fixture.get("id"), str) \
                or not fixture["id"] or fixture["id"] in seen:
            raise _fail(f"fixture {number}: ids must be non-empty and unique", path)
        seen.add(fixture["id"])
        cases.append(_fixture_case(number, fixture, declared,
                                   manifest["execution_gate"]["ready"], root, path))
    gate = manifest["execution_gate"]
    extra: dict[str, Any] = {}
    spec = manifest["protocol"].get("audio_specification")
    if isinstance(spec, dict):
        extra["audio"] = _audio_table(spec)
    warmup = manifest["protocol"].get("warmup_audio_path")
    if warmup is not None:
        if warmup not in declared or warmup in {c.data.get("audio") for c in cases}:
            raise _fail("protocol.warmup_audio_path must be a file in integrity.files that "
                        "no fixture measures", path)
        extra["warmup_audio"] = warmup
    return Suite(
        id=manifest["benchmark_id"], version=manifest["schema_version"],
        title=str(manifest.get("title", manifest["benchmark_id"])), method="rig",
        locale=cases[0].data["locale"], canary=str(manifest.get("canary", "")), root=root,
        cases=tuple(cases), files=tuple(SuiteFile(p, d) for p, d in declared.items()),
        repetitions=manifest["protocol"]["required_repetitions"],
        manifest={"cases": path.name, "manifest_file": path.name, "package": manifest,
                  "normalization": "rig-v1",
                  "execution_gate": {"ready": gate_open(manifest),
                                     "blocking_items": list(gate.get("blocking_items", ()))},
                  **extra},
    )


def _digest(path: Path) -> str:
    """sha256 of a regular file, read in chunks; anything else is refused unread."""
    if path.is_symlink():
        raise SuiteError("a listed file is a symbolic link; a package holds its files "
                         "themselves (copy the target in place)", path=path)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise SuiteError(f"cannot read file to hash it: {exc.strerror or exc}",
                         path=path) from None
    with os.fdopen(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise SuiteError("not a regular file (a FIFO, device, socket or folder is "
                             "never read)", path=path)
        digest = hashlib.sha256()
        while chunk := handle.read(_HASH_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


#: The keys a fixture may have (the methodology's, and descriptive ones we keep).
FIXTURE_KEYS = frozenset({
    "id", "workflow", "locale", "language", "title", "description", "duration_seconds",
    "reference_path", "seed_path", "segments_path", "audio_path", "audio_sha256",
    "required_repetitions", "required_fields", "metrics"})


def unknown_keys(suite: Suite) -> list[str]:
    """A note for each fixture key we do not know (a typo such as ``refrence_path`` would
    otherwise be ignored), each naming its JSON path: ``fixtures[2].colour``."""
    notes = []
    for index, fixture in enumerate(suite.manifest["package"].get("fixtures", [])):
        for key in sorted(set(fixture) - FIXTURE_KEYS):
            notes.append(f"fixtures[{index}].{key} (fixture {fixture.get('id')!r}): "
                         "unknown key, ignored")
    return notes


def verify_package(suite: Suite) -> None:
    """Check every ``integrity.files`` digest, as the methodology's scorer does before it
    scores; the first file that differs (or cannot be read) raises, named with both
    digests."""
    listed = {entry.sha256: entry.path for entry in suite.files}
    for entry in suite.files:
        file = suite.root / entry.path
        actual = _digest(file)
        if actual != entry.sha256:
            other = listed.get(actual)
            swapped = f" (it is the digest listed for {other!r}: swapped entries?)" \
                if other else ""
            raise SuiteError(
                f"{entry.path}: sha256 {actual} does not match the listed {entry.sha256}"
                f"{swapped}: the package changed after it was hashed, so nothing is scored "
                "(restore the file, or run 'dictbench hash' if the change is intended)",
                path=suite.root / suite.manifest["manifest_file"])


#: Tolerances the methodology leaves open; ours, documented in docs/rig.md.
LOUDNESS_TOLERANCE_LU = 0.5
SILENCE_TOLERANCE_MS = 100


def _audio_table(spec: Mapping[str, Any]) -> dict[str, Any]:
    """The package's audio specification as our ``[audio]`` checks."""
    pairs = (("container", "format"), ("sample_rate", "sample_rate_hz"),
             ("channels", "channels"), ("bit_depth", "bit_depth"),
             ("loudness_lufs", "integrated_loudness_lufs"),
             ("true_peak_max_dbtp", "true_peak_max_dbtp"), ("silence_ms", "leading_silence_ms"))
    table: dict[str, Any] = {ours: spec[theirs] for ours, theirs in pairs if theirs in spec}
    if "loudness_lufs" in table:
        table["loudness_lufs"] = float(table["loudness_lufs"])
        table["loudness_tolerance"] = LOUDNESS_TOLERANCE_LU
    if "true_peak_max_dbtp" in table:
        table["true_peak_max_dbtp"] = float(table["true_peak_max_dbtp"])
    if "silence_ms" in table:
        table["silence_tolerance_ms"] = SILENCE_TOLERANCE_MS
    return table
