"""Environment facts detected from the machine: CPU model, memory, OS, version and build.

Live captures record these with every output line (``environment``), so cohorts are
formed from what was measured rather than from what a product file declares. Reading
them spawns at most a few short-lived programs (argv lists, no shell) on macOS.
"""

from __future__ import annotations

import os
import platform
import subprocess
from functools import lru_cache
from pathlib import Path

__all__ = ["detect_environment", "disagreements"]


def _run(argv: list[str]) -> str:
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=5, check=False)
    except (OSError, subprocess.SubprocessError):
        return ""
    return done.stdout.strip() if done.returncode == 0 else ""


def _cpu_model() -> str:
    if platform.system() == "Darwin":
        return _run(["sysctl", "-n", "machdep.cpu.brand_string"]) or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
            if line.lower().startswith(("model name", "hardware", "cpu model")):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _memory_bytes() -> int | None:
    if platform.system() == "Darwin":
        value = _run(["sysctl", "-n", "hw.memsize"])
        return int(value) if value.isdigit() else None
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return None


def _os() -> tuple[str, str, str]:
    """(name and version, build): ``("macOS 15.1", "24B83")`` or a Linux equivalent."""
    if platform.system() == "Darwin":
        version = platform.mac_ver()[0]
        return f"macOS {version}", version, _run(["sw_vers", "-buildVersion"])
    try:
        release = platform.freedesktop_os_release()
        name = release.get("PRETTY_NAME") or release.get("NAME", "Linux")
    except OSError:
        name = platform.system()
    return name, platform.release(), platform.version()


@lru_cache(maxsize=1)
def detect_environment() -> dict[str, str]:
    """``hardware`` (CPU model and memory), ``os``, ``os_version``, ``os_build`` and
    ``os_release``, the OS in words (``<os> (<build>)`` on macOS, ``<os>, kernel
    <version>`` elsewhere) of this machine. On macOS the same value is also the rig's
    ``macos_version`` field; other systems have no such field (a Linux machine has no
    macOS version)."""
    memory = _memory_bytes()
    gigabytes = f", {round(memory / 2**30)} GB" if memory else ""
    name, version, build = _os()
    mac = platform.system() == "Darwin"
    release = f"{name} ({build})" if mac else f"{name}, kernel {version}"
    return {
        "cpu_model": _cpu_model(),
        "memory_gb": str(round(memory / 2**30)) if memory else "",
        "hardware": f"{_cpu_model()}{gigabytes}",
        "os": name,
        "os_version": version,
        "os_build": build,
        "os_release": release,
        **({"macos_version": release} if mac else {}),
    }


def disagreements(declared: dict[str, object], detected: dict[str, str],
                  fields: tuple[str, ...] = ("hardware", "macos_version")) -> list[dict[str, str]]:
    """Declared environment values that differ from the detected ones."""
    return [{"field": f, "declared": str(declared[f]), "detected": detected.get(f, "")}
            for f in fields if f in declared and str(declared[f]) != detected.get(f, "")]
