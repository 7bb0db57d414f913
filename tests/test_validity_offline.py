"""The processing-path claim against offline audits (hand-built audit records)."""

from __future__ import annotations

from pytest_dictbench.rig.offline import claim_status, offline_argv


def test_offline_argv_wraps_without_a_shell() -> None:
    assert offline_argv(["asr", "a b.wav"]) == ["unshare", "--net", "--", "asr", "a b.wav"]


def test_on_device_is_verified_only_when_every_capture_completed_offline() -> None:
    ok = {"completed": True, "text_matched": True}
    assert claim_status("on_device", [ok, ok])["verified"] is True
    bad = {"completed": False, "text_matched": False, "reason": "exit 7"}
    status = claim_status("on_device", [ok, bad])
    assert status["verified"] is False
    assert status["note"] == ("unverified: 1 of 2 captures did not complete without "
                              "network (exit 7)")
    assert claim_status("on_device", [None, None])["note"].startswith(
        "unverified: no offline audit")
    assert claim_status("on_device", [ok, None])["verified"] is False


def test_other_claims_are_described_not_verified() -> None:
    assert claim_status("vendor_cloud", [])["verified"] is None
    assert claim_status(None, [])["note"] == "no on-device claim to verify"
