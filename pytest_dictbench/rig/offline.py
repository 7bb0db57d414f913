"""The offline audit: does a product still transcribe with no network at all?

With ``--dictbench-offline-audit`` every live capture of a product is made a second time
inside a new network namespace (``unshare --net``: no interface but the namespace's own
loopback, which is brought up before the product starts, so a product that talks to a
local service of its own over 127.0.0.1 works, while neither the internet nor a service
on the host's 127.0.0.1 is reachable). The
audit records whether that capture completed and whether its text matched the normal
capture. A product may claim ``processing_path = "on_device"`` only when every audited
capture completed *and* gave the same text; otherwise the claim is reported as
unverified, with the reason (an audit that could not run here says so: the product was
never tried offline).

Limit: a network namespace isolates network interfaces only. A product that reaches an
outside service through a Unix socket in a shared folder (``/tmp``, ``/run``) is not
stopped by it; the claim is verified for network routes only (docs/rig.md).

Only adapters that start a program (``command``) can be audited this way; for the
others the audit says so, and an ``on_device`` claim stays unverified.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["ON_DEVICE", "claim_status", "namespace_problem", "offline_argv"]

ON_DEVICE = "on_device"
_PROBE_TIMEOUT_S = 10.0
_probe: dict[str, str | None] = {}
#: How the reasons begin when the audit itself could not run (not the product failing).
_NOT_RUN = ("the 'unshare' program", "'unshare --net' could not run",
            "this machine does not allow new network namespaces",
            "this adapter kind cannot be audited offline")


#: Run inside the namespace before the product: bring its own loopback up (SIOCSIFFLAGS
#: with IFF_UP | IFF_LOOPBACK | IFF_RUNNING), then become the product's command.
_LOOPBACK_UP = (
    "import fcntl, os, socket, struct, sys\n"
    "s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\n"
    "fcntl.ioctl(s, 0x8914, struct.pack('16sh', b'lo', 0x49))\n"
    "s.close()\n"
    "os.execvp(sys.argv[1], sys.argv[1:])\n")


def offline_argv(argv: Sequence[str]) -> list[str]:
    """``argv`` run inside a new network namespace whose loopback is up."""
    return ["unshare", "--net", "--", sys.executable, "-c", _LOOPBACK_UP, *argv]


def namespace_problem() -> str | None:
    """Why network namespaces cannot be used here, or ``None`` when they can (cached)."""
    if "result" not in _probe:
        _probe["result"] = _probe_namespaces()
    return _probe["result"]


def _probe_namespaces() -> str | None:
    if shutil.which("unshare") is None:
        return "the 'unshare' program (util-linux) is not installed"
    try:
        done = subprocess.run(["unshare", "--net", "--", "true"], capture_output=True,
                              timeout=_PROBE_TIMEOUT_S, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"'unshare --net' could not run: {exc}"
    if done.returncode != 0:
        reason = done.stderr.decode("utf-8", "replace").strip().splitlines()
        return ("this machine does not allow new network namespaces (unshare --net: "
                f"{reason[-1] if reason else f'exit {done.returncode}'}); run as root or "
                "enable unprivileged user namespaces")
    return None


def claim_status(claimed: str | None, audits: Sequence[Mapping[str, Any] | None]
                 ) -> dict[str, Any]:
    """The processing-path claim of one product and what the offline audit showed.

    ``audits`` holds each capture's ``offline_audit`` record (``None``: not audited).
    """
    done = [a for a in audits if a]
    completed = sum(1 for a in done if a.get("completed"))
    matched = sum(1 for a in done if a.get("text_matched"))
    status: dict[str, Any] = {"claimed": claimed, "audited": len(done),
                              "completed_offline": completed, "text_matched": matched}
    if claimed != ON_DEVICE:
        status["verified"] = None
        status["note"] = "no on-device claim to verify" if claimed is None else \
            f"claims {claimed}: the offline audit verifies on_device claims only"
        return status
    reasons = sorted({a["reason"] for a in done if not a.get("completed") and a.get("reason")})
    if not done:
        status["verified"] = False
        status["note"] = "unverified: no offline audit was run (--dictbench-offline-audit)"
    elif all(str(a.get("reason") or "").startswith(_NOT_RUN) for a in done
             if not a.get("completed")) and completed == 0 and len(done) == len(audits):
        status["verified"] = False
        status["note"] = f"unverified: the offline audit could not run here ({'; '.join(reasons)})"
    elif completed < len(audits):
        status["verified"] = False
        status["note"] = (f"unverified: {len(audits) - completed} of {len(audits)} captures "
                          "did not complete without network" +
                          (f" ({'; '.join(reasons)})" if reasons else ""))
    elif matched < completed:
        status["verified"] = False
        status["note"] = (f"unverified: completed offline, but the text differed in "
                          f"{completed - matched} of {completed} captures")
    else:
        status["verified"] = True
        status["note"] = (f"verified: all {completed} captures completed without network, "
                          "with the same text (network routes only: a Unix socket to a "
                          "service outside the run is not blocked)")
    return status
