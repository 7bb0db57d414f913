"""A small rig package in the methodology's format, written into a test folder."""

from __future__ import annotations

import csv
import hashlib
import io
import json
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from pytest_dictbench.rig.rows import COLUMNS

REFERENCES = {
    "dict-en": "Send the draft to Ana before noon.\n",
    "meet": "Shall we start?\nYes, the agenda is short.\n",
    "fix": "Call Ben at 9:15.\n",
}
SEED = "Call Ken at 9:51.\n"
TURNS = [{"turn": 1, "speaker": "speaker_a", "text": "Shall we start?"},
         {"turn": 2, "speaker": "speaker_b", "text": "Yes, the agenda is short."}]


def write_package(root: Path, *, ready: bool = True, products: Iterable[str] = ("app1", "app2"),
                  template: str | None = None, audio: bytes = b"not really audio",
                  warmup: bool = False) -> Path:
    """The package in ``root``; returns the manifest path. With ``ready`` the audio
    fixtures name hashed WAV files (``audio`` bytes), as an open gate requires; with
    ``warmup`` a dedicated warm-up recording (the same bytes) is declared too."""
    products = list(products)
    files: dict[str, bytes] = {
        "methodology.md": b"Our test methodology.\n",
        "results-template.csv": (template if template is not None else
                                 ",".join(COLUMNS) + "\n").encode(),
        "fixtures/seeds/fix.txt": SEED.encode(),
        "fixtures/segments/meet.json": json.dumps({"turns": TURNS}).encode(),
    }
    for fid, text in REFERENCES.items():
        files[f"fixtures/references/{fid}.txt"] = text.encode()
    if ready:
        files["fixtures/audio/dict-en.wav"] = audio
        files["fixtures/audio/meet.wav"] = audio
    if warmup:
        files["fixtures/audio/warmup.wav"] = audio
    for rel, data in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(data)
    digest = {rel: hashlib.sha256(data).hexdigest() for rel, data in files.items()}

    def audio(fid: str) -> dict[str, Any]:
        rel = f"fixtures/audio/{fid}.wav"
        return {"audio_path": rel, "audio_sha256": digest[rel]} if ready else {
            "audio_path": None, "audio_sha256": None}

    transcript = ["raw_transcript", "elapsed_seconds"]
    manifest = {
        "schema_version": "1.0.0", "benchmark_id": "tiny-rig", "methodology_version": "1.0.0",
        "methodology_path": "methodology.md", "results_template_path": "results-template.csv",
        "execution_gate": {"ready": ready, "blocking_items": [] if ready else
                           ["Record the audio.", "Hash it."]},
        "products": products,
        "integrity": {"algorithm": "sha256",
                      "files": [{"path": p, "sha256": d} for p, d in digest.items()]},
        "protocol": {
            "required_repetitions": 3,
            "run_order": {f"block_{i}": products for i in (1, 2, 3)},
            "default_profile": "default", "profiles": {"default": "d", "local_only": "l"},
            **({"warmup_audio_path": "fixtures/audio/warmup.wav"} if warmup else {}),
            "eligible_status": "complete",
            "same_environment_fields": ["hardware", "macos_version", "test_profile"],
            "required_metadata_fields": ["app_version", "plan", "test_profile",
                                         "processing_path", "privacy_mode",
                                         "app_language_setting", "tested_at", "hardware",
                                         "macos_version", "price_snapshot",
                                         "pricing_source_url"]},
        "ranking": {"minimum_apps": 2, "overall_score": False},
        "fixtures": [
            {"id": "dict-en", "workflow": "dictation", "locale": "en-US",
             "reference_path": "fixtures/references/dict-en.txt", **audio("dict-en"),
             "required_repetitions": 3, "required_fields": transcript, "metrics": []},
            {"id": "meet", "workflow": "meeting", "locale": "en-US",
             "reference_path": "fixtures/references/meet.txt",
             "segments_path": "fixtures/segments/meet.json", **audio("meet"),
             "required_repetitions": 3, "metrics": [],
             "required_fields": [*transcript, "capture_complete", "speaker_turns_correct",
                                 "speaker_turns_total"]},
            {"id": "fix", "workflow": "correction", "locale": "en-US",
             "reference_path": "fixtures/references/fix.txt",
             "seed_path": "fixtures/seeds/fix.txt", "required_repetitions": 3, "metrics": [],
             "required_fields": ["final_transcript", "correction_seconds", "edit_actions"]},
        ],
    }
    path = root / "benchmark-manifest-v1.json"
    path.write_text(json.dumps(manifest, indent=2), encoding="utf-8")
    return path


def edit_manifest(path: Path, change: Callable[[dict[str, Any]], Any]) -> Path:
    """The package manifest at ``path`` rewritten with ``change`` applied; ``path``."""
    manifest = json.loads(path.read_text())
    change(manifest)
    path.write_text(json.dumps(manifest))
    return path


def row(app: str = "app1", fixture: str = "dict-en", rep: int = 1, status: str = "complete",
        **cells: str) -> dict[str, str]:
    """A complete row with every required field (override any cell)."""
    base = dict.fromkeys(COLUMNS, "")
    base.update(benchmark_version="1.0.0", status=status, app_id=app,
                run_id=f"{app}-{fixture}-{rep}", fixture_id=fixture, repetition=str(rep),
                app_version="2.0", plan="free", test_profile="default",
                processing_path="on_device", privacy_mode="local",
                app_language_setting="English", tested_at="2026-11-20T10:00:00Z",
                hardware="Mac14,7", macos_version="15.1 (24B83)", price_snapshot="USD 0",
                pricing_source_url="https://example.com/price")
    if fixture == "fix":
        base.update(final_transcript="Call Ben at 9:15.", correction_seconds="10.5",
                    edit_actions="3")
    else:
        base.update(raw_transcript=REFERENCES[fixture].strip(), elapsed_seconds="2.5")
    if fixture == "meet":
        base.update(capture_complete="true", speaker_turns_correct="2",
                    speaker_turns_total="2")
    base.update(cells)
    return base


def csv_text(rows: Iterable[Mapping[str, str]], header: Iterable[str] = COLUMNS,
             newline: str = "\n") -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator=newline)
    header = list(header)
    writer.writerow(header)
    for r in rows:
        writer.writerow([r.get(c, "") for c in header])
    return out.getvalue()
