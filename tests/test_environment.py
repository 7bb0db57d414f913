"""Environment facts detected from the machine, and their use for cohorts."""

from __future__ import annotations

import os
import platform

from pytest_dictbench.aggregate import _environment
from pytest_dictbench.environment import detect_environment, disagreements


def test_detected_facts_come_from_this_machine() -> None:
    facts = detect_environment()
    mac = platform.system() == "Darwin"
    # the OS in words under a neutral name; the rig's macos_version only on a Mac
    assert set(facts) == {"cpu_model", "memory_gb", "hardware", "os", "os_version", "os_build",
                          "os_release", *(["macos_version"] if mac else [])}
    assert facts["os_release"].startswith(facts["os"])
    if not mac:
        assert facts["os_release"] == f"{facts['os']}, kernel {platform.release()}"
    assert facts["cpu_model"] and facts["hardware"].startswith(facts["cpu_model"])
    pages = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    assert facts["memory_gb"] == str(round(pages / 2**30))
    assert facts["os_version"] == platform.release()


def test_declared_values_that_differ_are_reported() -> None:
    detected = {"hardware": "AMD EPYC, 24 GB", "macos_version": "Debian 12, kernel 6.1"}
    assert disagreements({"hardware": "M2 Mac", "macos_version": "Debian 12, kernel 6.1",
                          "plan": "free"}, detected) == [
        {"field": "hardware", "declared": "M2 Mac", "detected": "AMD EPYC, 24 GB"}]


def test_cohorts_use_what_the_captures_recorded() -> None:
    records = [{"environment": {"hardware": "AMD EPYC, 24 GB", "os": "Debian"}},
               {"environment": {"hardware": "AMD EPYC, 24 GB", "os": "Debian"}},
               {}]
    entry = _environment({"hardware": "2 vCPU", "os": "Debian", "test_profile": "default"},
                         records)
    assert entry["environment"] == {"hardware": "AMD EPYC, 24 GB", "os": "Debian",
                                    "test_profile": "default"}
    assert entry["environment_disagreements"] == [
        {"field": "hardware", "declared": "2 vCPU", "recorded": "AMD EPYC, 24 GB"}]
    mixed = _environment({}, [{"environment": {"hardware": "A"}},
                              {"environment": {"hardware": "B"}}])
    assert mixed["environment"] == {"hardware": "A | B"}
    assert _environment({"os": "x"}, [{}]) == {"environment": {"os": "x"}}
