"""The rig journal, for real: a pytest run killed with SIGKILL in the middle of an item,
then `dictbench desktop reset`, `dictbench desktop doctor` or the next run, which must
undo what it left (findings DK1, DK2) and leave the machine as it was before. Also two
desktop products in one run, serial and under xdist (DK7), and a busy rig (DK8)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import soundfile as sf

from tests.adapter_support import CANARY
from tests.desktop_apps import READY
from tests.desktop_support import Desktop, app_argv, pactl, private_desktop

ROOT = Path(__file__).resolve().parents[1]
RATE = 16000


@pytest.fixture(scope="module")
def desktop() -> Iterator[Desktop]:
    with private_desktop() as found:
        yield found


def rig_processes(desktop: Desktop) -> list[str]:
    """The processes on this private desktop's sound server other than the server."""
    marker = f"PULSE_SERVER={desktop.env['PULSE_SERVER']}".encode()
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            if marker in (entry / "environ").read_bytes().split(b"\0") and \
                    (entry / "comm").read_text().strip() != "pulseaudio":
                found.append((entry / "cmdline").read_text().replace("\0", " ").strip())
        except OSError:
            continue
    return sorted(p for p in found if p)


def state(desktop: Desktop) -> dict[str, Any]:
    """What a run may change: sound modules and default source, processes, the hotkey's
    grab, the rig's journal files."""
    from pytest_dictbench.adapters.desktop.xkeys import XKeys, parse_hotkey

    keys = XKeys(desktop.display)
    try:
        grabbed = keys.grabbed_elsewhere(parse_hotkey("F9"))
    finally:
        keys.close()
    return {"modules": sorted(line.split("\t", 1)[1] for line in
                              pactl("list", "short", "modules").splitlines()),
            "default_source": pactl("get-default-source").strip(),
            "processes": rig_processes(desktop), "F9 grabbed": grabbed,
            "journals": sorted(p.name for p in desktop.runtime.glob("*journal*"))}


def settled(desktop: Desktop, wanted: Any, timeout_s: float = 10.0) -> dict[str, Any]:
    """The state once ``wanted(state)`` holds (or the last one read, after ``timeout_s``):
    the processes a run signals as it ends exit a moment later, and the X server and the
    sound server answer late on a loaded machine."""
    deadline = time.monotonic() + timeout_s
    while True:
        now = state(desktop)
        if wanted(now) or time.monotonic() > deadline:
            return now
        time.sleep(0.1)


def project(tmp: Path, products: tuple[str, ...] = ("desk",), clips: int = 2,
            steps: list[dict[str, Any]] | None = None) -> Path:
    """A scratch project: a suite of tone clips and desktop products on the scripted
    app (each with its own script and log)."""
    suite = tmp / "cases" / "tones"
    suite.mkdir(parents=True)
    rows = []
    for number in range(1, clips + 1):
        tone = 0.2 * np.sin(2 * np.pi * 440 * np.arange(RATE) / RATE)
        silence = np.zeros(RATE // 2)
        sf.write(str(suite / f"c{number}.wav"),
                 np.concatenate([silence, tone, silence]).astype(np.float32), RATE)
        rows.append({"id": f"c{number}", "audio": f"c{number}.wav", "reference": "ok",
                     "canary": CANARY})
    (suite / "cases.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (suite / "suite.toml").write_text(
        f'id = "tones"\nversion = "1"\ntitle = "t"\nmethod = "error_rate"\n'
        f'locale = "en-US"\ncanary = "{CANARY}"\n[params]\nthreshold = 1.0\n')
    (tmp / "products").mkdir()
    (tmp / "pytest.ini").write_text("[pytest]\ndictbench_products = products\n")
    for name in products:
        script = tmp / "products" / f"{name}.json"
        script.write_text(json.dumps(steps if steps is not None else
                                     [{"wait_audio": True}, {"type": "ok"}]))
        app = app_argv("scripted_app", "--script", str(script))
        (tmp / "products" / f"{name}.toml").write_text(
            f'name = "{name}"\nversion = "1"\nadapter = "desktop"\n[settings]\n'
            f"app = {json.dumps(app)}\nhotkey = \"F9\"\nstable_s = 1.5\nmax_wait_s = 10\n"
            f'empty_wait_s = 5\nready_log = "{READY}"\nlaunch_wait_s = 60\n'
            "hotkey_lead_s = 0.2\nlate_guard_s = 0.5\n")
    return tmp


def env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT)}


def pytest_argv(*args: str) -> list[str]:
    return [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "cases/tones",
            "--dictbench-no-warmup", "-W", "always", *args]


def run(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(pytest_argv(*args), cwd=folder, env=env(), capture_output=True,
                          text=True, timeout=600, check=False)


def dictbench(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "pytest_dictbench.cli", *args], cwd=folder,
                          env=env(), capture_output=True, text=True, timeout=120,
                          check=False)


def kill_mid_item(folder: Path, product: str = "desk") -> None:
    """Start a run and SIGKILL it while the app dictates its first item."""
    log = folder / "products" / product / "desktop-app.log"
    log.unlink(missing_ok=True)
    Path(folder / "products" / f"{product}.json.dictations").unlink(missing_ok=True)
    process = subprocess.Popen(pytest_argv(f"--product={product}"), cwd=folder, env=env(),
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline:
        if log.exists() and " start 1" in log.read_text():
            break
        if process.poll() is not None:
            raise AssertionError(f"the run ended first ({process.returncode})")
        time.sleep(0.05)
    else:
        process.kill()
        raise AssertionError("the app never started dictating")
    time.sleep(0.5)  # the audio is playing, the hotkey was pressed
    process.send_signal(signal.SIGKILL)
    process.wait()
    time.sleep(0.5)


def lines(folder: Path, product: str = "desk") -> list[dict[str, Any]]:
    path = folder / "products" / product / "tones.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def test_kill_9_mid_item_is_undone_by_reset_doctor_and_the_next_run(
        desktop: Desktop, tmp_path: Path) -> None:
    """DK1, DK2: after each kill the sink, the default source and the app (with its
    hotkey grab) are left; reset, doctor and the next run each undo them and say so."""
    folder = project(tmp_path)
    dictbench(folder, "desktop", "reset")  # whatever an earlier test left: not this test's
    before = state(desktop)
    assert before["journals"] == [] and not before["F9 grabbed"]

    kill_mid_item(folder)
    left = settled(desktop, lambda s: s["default_source"] == "dictbench_mic.monitor" and any(
        "scripted_app" in p for p in s["processes"]) and s["F9 grabbed"])
    assert left["default_source"] == "dictbench_mic.monitor", left
    # the app is left running, holding its hotkey (the rig's probe grab ends before the
    # app starts, and the test app checks its own grab before it says it is ready:
    # test_a_probe_grab_during_the_apps_start_never_leaves_it_without_its_hotkey)
    assert any("scripted_app" in p for p in left["processes"]) and left["F9 grabbed"], left
    reset = dictbench(folder, "desktop", "reset")
    assert reset.returncode == 0, reset.stdout + reset.stderr
    assert "restored default source 'speakers.monitor'" in reset.stdout, reset.stdout
    assert "removed sink 'dictbench_mic'" in reset.stdout
    assert "stopped the processes it started" in reset.stdout
    assert settled(desktop, lambda s: s == before) == before

    kill_mid_item(folder)
    doctor = dictbench(folder, "desktop", "doctor", "products/desk.toml")
    assert "UNDONE undid what a killed run (pid" in doctor.stdout, doctor.stdout
    assert settled(desktop, lambda s: s == before) == before
    assert doctor.returncode == 0 and "OK:" in doctor.stdout, doctor.stdout

    kill_mid_item(folder)
    done = run(folder, "--product=desk")
    assert "undid what a killed run" in done.stdout, done.stdout
    found = lines(folder)
    assert [(x["case_id"], x["status"], x["text"]) for x in found] == [
        ("c1", "complete", "ok"), ("c2", "complete", "ok")], found
    assert any("recovered" in x["desktop"] for x in found)
    assert settled(desktop, lambda s: s == before) == before


def test_doctor_never_says_ok_over_leftovers_without_a_journal(
        desktop: Desktop, tmp_path: Path) -> None:
    """DK1: the rig's monitor as default source with no run (a journal removed by
    hand) is named; an app holding the hotkey too (DK2, DK21)."""
    folder = project(tmp_path)
    dictbench(folder, "desktop", "reset")  # whatever an earlier test left: not this test's
    pactl("load-module", "module-null-sink", "sink_name=dictbench_mic")
    pactl("set-default-source", "dictbench_mic.monitor")
    squatter = subprocess.Popen(app_argv("scripted_app", "--script", "/dev/null"),
                                stdout=subprocess.PIPE, text=True)
    try:
        assert squatter.stdout is not None and READY in squatter.stdout.readline()
        doctor = dictbench(folder, "desktop", "doctor", "products/desk.toml")
        assert doctor.returncode == 1 and "OK" not in doctor.stdout, doctor.stdout
        assert "the default source is the rig's own monitor" in doctor.stdout
        assert "another X client already grabs F9" in doctor.stdout
        assert "sink 'dictbench_mic' exists (not made by the rig)" in doctor.stdout
        assert "FOUND X server" in doctor.stdout and "FOUND sound server" in doctor.stdout
    finally:
        squatter.kill()
        squatter.wait()
        pactl("set-default-source", "speakers.monitor")
        for line in pactl("list", "short", "modules").splitlines():
            if "sink_name=dictbench_mic" in line:
                pactl("unload-module", line.split("\t")[0])


@pytest.mark.parametrize("workers", [[], ["-p", "xdist", "-n", "2"]])
def test_two_desktop_products_take_the_rig_in_turn(desktop: Desktop, tmp_path: Path,
                                                   workers: list[str]) -> None:
    """DK7: each product captures its items with its own app, launched and closed."""
    folder = project(tmp_path, products=("desk", "desk2"))
    dictbench(folder, "desktop", "reset")  # whatever an earlier test left: not this test's
    before = state(desktop)
    done = run(folder, "--product=desk", "--product=desk2", *workers)
    for name in ("desk", "desk2"):
        found = lines(folder, name)
        assert [(x["case_id"], x["status"]) for x in found] == [
            ("c1", "complete"), ("c2", "complete")], (name, found, done.stdout)
        log = (folder / "products" / name / "desktop-app.log").read_text()
        assert log.count(READY) == 1, log  # its own app, launched once
    assert settled(desktop, lambda s: s == before) == before


def test_a_busy_rig_stops_the_run_before_collection(desktop: Desktop, tmp_path: Path
                                                    ) -> None:
    """DK8: a second run on a display in use is a usage error naming display and route."""
    from pytest_dictbench.adapters.desktop.linux import LinuxBackend

    folder = project(tmp_path)
    backend = LinuxBackend(None, "dictbench_mic")
    with backend.claim():
        done = run(folder, "--product=desk")
    assert done.returncode == 4, done.stdout + done.stderr
    assert "another dictbench desktop rig (pid" in done.stderr
    assert "on display" in done.stderr and "dictbench_mic'" in done.stderr
    assert "collected" not in done.stdout


def test_two_spellings_of_one_sound_server_share_one_route_lock(
        desktop: Desktop, monkeypatch: pytest.MonkeyPatch) -> None:
    """DK9: the route lock is named by the server actually used."""
    from pytest_dictbench.adapters.desktop.linux import LinuxBackend

    def route_lock() -> Path:
        return LinuxBackend(None, "dictbench_mic")._locks()[1][2]

    first = route_lock()
    monkeypatch.setenv("PULSE_SERVER", desktop.env["PULSE_SERVER"].removeprefix("unix:"))
    second = route_lock()
    monkeypatch.delenv("PULSE_SERVER")  # found through XDG_RUNTIME_DIR
    assert first == second == route_lock()


def test_the_warm_ups_late_text_never_reaches_the_first_item(desktop: Desktop,
                                                             tmp_path: Path) -> None:
    """DK5: the warm-up (unscored) types a late word; the guard keeps it there."""
    folder = project(tmp_path, clips=1, steps=[
        {"wait_audio": True}, {"type": "ok"}, {"until_dictation": 1}, {"wait_stop": True},
        {"sleep": 1.8}, {"type": " LATE"}])
    toml = folder / "products" / "desk.toml"
    toml.write_text(toml.read_text().replace("late_guard_s = 0.5", "late_guard_s = 3"))
    argv = [a for a in pytest_argv("--product=desk") if a != "--dictbench-no-warmup"]
    subprocess.run(argv, cwd=folder, env=env(), capture_output=True, text=True,
                   timeout=600, check=False)
    [line] = lines(folder)
    assert (line["status"], line["text"], line["warmup"]) == ("complete", "ok", "done"), line
    log = (folder / "products" / "desk" / "desktop-app.log").read_text()
    assert " start 2" in log and "LATE" in log  # the warm-up was dictation 1 and typed it
