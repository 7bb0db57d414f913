"""The processing-path claim against offline audits (hand-built audit records)."""

from __future__ import annotations

import errno
import subprocess
import sys

import pytest

from pytest_dictbench.rig.offline import claim_status, namespace_problem, offline_argv


def test_offline_argv_wraps_without_a_shell() -> None:
    argv = offline_argv(["asr", "a b.wav"])
    assert argv[:3] == ["unshare", "--net", "--"] and argv[-2:] == ["asr", "a b.wav"]


@pytest.mark.skipif(namespace_problem() is not None, reason="no network namespaces here")
def test_the_namespace_has_its_own_loopback_up_and_no_other_network() -> None:
    # R48: a product's own local service on 127.0.0.1 must work offline
    probe = ("import socket\n"
             "srv = socket.socket(); srv.bind(('127.0.0.1', 0)); srv.listen()\n"
             "socket.create_connection(srv.getsockname(), timeout=2).close()\n"
             "try:\n"
             "    socket.create_connection(('192.0.2.1', 9), timeout=2)\n"
             "except OSError as exc:\n"
             "    print('outside', exc.errno)\n")
    done = subprocess.run(offline_argv([sys.executable, "-c", probe]), capture_output=True,
                          text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"outside {errno.ENETUNREACH}"


def test_on_device_is_verified_only_when_every_capture_completed_offline() -> None:
    ok = {"completed": True, "text_matched": True}
    assert claim_status("on_device", [ok, ok])["verified"] is True
    # R49: the limit of a network namespace is stated beside the claim itself
    assert claim_status("on_device", [ok, ok])["note"] == (
        "verified: all 2 captures completed without network, with the same text (network "
        "routes only: a Unix socket to a service outside the run is not blocked)")
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
