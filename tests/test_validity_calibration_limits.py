"""Calibration at the tolerance's edge, and blocks without a recording (issue 26)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import soundfile as sf

from pytest_dictbench.rig.calibration import BlockCalibration
from pytest_dictbench.rig.calibration_check import Tolerance, calibrate_blocks, measure
from pytest_dictbench.rig.rows import COLUMNS, RigRow
from pytest_dictbench.rig.schedule import BlockAttempt

RATE = 48_000


def _stimulus() -> np.ndarray:
    rng = np.random.default_rng(7)
    burst = rng.normal(0.0, 0.05, 2 * RATE)
    silence = np.zeros(RATE // 2)
    return np.concatenate([silence, burst, silence])


def test_exactly_the_level_tolerance_is_accepted(tmp_path: Path) -> None:
    # R38: +0.2 dB measured as 0.2000000075 used to fail ±0.2 dB
    samples = _stimulus()
    sf.write(tmp_path / "s.wav", samples, RATE, subtype="PCM_24")
    sf.write(tmp_path / "b1.wav", samples, RATE, subtype="PCM_24")
    sf.write(tmp_path / "b2.wav", samples * 10 ** (0.2 / 20), RATE, subtype="PCM_24")
    sf.write(tmp_path / "b3.wav", samples * 10 ** (0.21 / 20), RATE, subtype="PCM_24")
    first, edge, over = calibrate_blocks(
        measure(tmp_path / "s.wav"),
        [(f"block_{i}", tmp_path / f"b{i}.wav") for i in (1, 2, 3)], Tolerance(0.2, 20.0))
    assert first.accepted and edge.accepted, edge.failures
    assert not over.accepted
    assert over.failures == ("level +0.210 dB from the first accepted calibration "
                             "(tolerance ±0.2 dB)",)


def _row(rep: int, tested_at: str, status: str = "complete") -> RigRow:
    cells = dict.fromkeys(COLUMNS, "")
    cells.update(status=status, app_id="a", run_id=f"r{rep}", fixture_id="f",
                 repetition=str(rep), tested_at=tested_at)
    return RigRow(number=rep + 1, status=status, app_id="a", fixture_id="f",
                  repetition=rep, test_profile="default", cells=cells)


def test_a_row_whose_block_has_no_calibration_recording_is_invalid(tmp_path: Path) -> None:
    # R39: block_2 has no line in blocks.csv: its rows used to be scored and ranked
    from datetime import datetime

    from pytest_dictbench.rig.calibration_check import CalibrationResult

    attempt = BlockAttempt("block_1", 1, datetime(2026, 11, 23, 9), str(tmp_path / "b1.wav"),
                           network_measured=False)
    verdict = CalibrationResult("block_1", "b1.wav", True, (), 0.0, 0.0)
    calibration = BlockCalibration((attempt,), {attempt.key: verdict})
    rows, _ = calibration.apply([_row(1, "2026-11-23T10:00:00Z"),
                                      _row(2, "2026-11-24T10:00:00Z"),
                                      _row(3, "2026-11-25T10:00:00Z", "not_tested")])
    assert [r.status for r in rows] == ["complete", "invalid", "not_tested"]
    assert rows[1].cells["notes"].startswith(
        "invalid_rig: no calibration recording for block_2")
    assert calibration.missing_blocks(rows) == ["block_2"]


def test_calibration_paths_in_reports_are_relative_to_the_package(tmp_path: Path) -> None:
    # R43: the operator's absolute path used to reach items.jsonl and dictbench.json
    import shutil

    from pytest_dictbench.rig.calibration import calibration_folder, load_calibration
    from pytest_dictbench.rig.package import load_package

    root = tmp_path / "rig"
    shutil.copytree(Path(__file__).resolve().parent.parent / "cases" / "mac-rig", root)
    suite = load_package(root / "benchmark-manifest-v1.json")
    folder = calibration_folder(suite, None, tmp_path)
    assert folder is not None
    calibration = load_calibration(suite, folder)
    paths = sorted(v.to_json()["path"] for v in calibration.verdicts.values())
    assert paths == ["calibration/block_1.wav", "calibration/block_2.wav",
                     "calibration/block_3-attempt1.wav", "calibration/block_3-attempt2.wav"]


def test_calibration_failures_carry_the_measured_figures(tmp_path: Path) -> None:
    # R42: how many samples clipped, and where; "too short", not "unreadable"
    samples = _stimulus()
    sf.write(tmp_path / "s.wav", samples, RATE, subtype="PCM_24")
    clipped = samples.copy()
    clipped[5 * RATE // 2:5 * RATE // 2 + 48] = 1.0  # 48 samples from 2.500 s
    sf.write(tmp_path / "clip.wav", clipped, RATE, subtype="FLOAT")
    sf.write(tmp_path / "short.wav", samples[:int(0.3 * RATE)], RATE, subtype="PCM_24")
    clip, short = calibrate_blocks(measure(tmp_path / "s.wav"),
                                   [("block_1", tmp_path / "clip.wav"),
                                    ("block_2", tmp_path / "short.wav")])
    assert clip.failures == ("clipped: 48 samples at full scale (|x| >= 0.999), from "
                             "2.500 s",)
    assert short.failures[0].startswith("too short: ")


def test_an_inverted_polarity_and_a_channel_change_are_noted(tmp_path: Path) -> None:
    # R44: both used to pass (or fail by level) without a word about the route
    samples = _stimulus()
    sf.write(tmp_path / "s.wav", samples, RATE, subtype="PCM_24")
    sf.write(tmp_path / "inv.wav", -samples, RATE, subtype="PCM_24")
    stereo = np.stack([samples, samples], axis=1)
    sf.write(tmp_path / "st.wav", stereo, RATE, subtype="PCM_24")
    inverted, two = calibrate_blocks(measure(tmp_path / "s.wav"),
                                     [("block_1", tmp_path / "inv.wav"),
                                      ("block_2", tmp_path / "st.wav")])
    assert inverted.notes == ("polarity inverted against the stimulus (a route change?)",)
    assert inverted.to_json()["notes"] == list(inverted.notes)
    assert two.notes == ("2 channels, the stimulus has 1 (levels are compared on the "
                         "down-mix)",)
    assert "notes" not in calibrate_blocks(measure(tmp_path / "s.wav"),
                                           [("block_1", tmp_path / "s.wav")])[0].to_json()


def test_calibration_notes_reach_the_validity_rows() -> None:
    from pytest_dictbench.report.validity import validity_rows

    suite = {"rig": {"validity": {"calibration": [
        {"block": "block_1", "accepted": True, "level_delta_db": 0.0, "onset_delta_ms": 0.0,
         "failures": [], "notes": ["polarity inverted against the stimulus (a route "
                                   "change?)"]}]}}}
    assert validity_rows(suite) == [("(run)", "calibration block_1", "accepted (level 0.0 "
                                     "dB, onset 0.0 ms); note: polarity inverted against "
                                     "the stimulus (a route change?)")]
