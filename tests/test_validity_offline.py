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


def test_a_different_offline_text_is_not_verified() -> None:
    # R50: completing offline with a fallback text is not the same product
    ok = {"completed": True, "text_matched": True}
    other = {"completed": True, "text_matched": False}
    status = claim_status("on_device", [ok, other, other])
    assert status["verified"] is False
    assert status["note"] == ("unverified: completed offline, but the text differed in 2 of "
                              "3 captures")


def test_an_audit_that_could_not_run_says_so() -> None:
    # R47: the product was never tried offline
    reason = "the 'unshare' program (util-linux) is not installed"
    status = claim_status("on_device", [{"completed": False, "text_matched": False,
                                         "reason": reason}])
    assert status["verified"] is False
    assert status["note"] == f"unverified: the offline audit could not run here ({reason})"
