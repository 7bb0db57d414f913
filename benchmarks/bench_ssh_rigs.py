"""Two rigs over SSH against one: the wall time of two equal capture groups.

Starts a throwaway OpenSSH server on loopback (``.ci/sshd``: two hosts, ``rig1`` and
``rig2``, both this machine) and builds, as docs/rigs.md's recipe and
``tests/test_rigs_over_ssh.py`` do, two rigs: each its own checkout of a generated
project and its own virtual environment (a ``.pth`` file reaches this environment's
packages). The project has one suite of ``--cases`` cases with audio and two live
``python`` products, ``a`` and ``b``, whose transcriber takes ``--delay`` seconds an item
(the capture), so each product is one capture group of equal length.

- **one rig**: ``-d --tx ssh=rig1//…`` runs both groups;
- **two rigs**: ``-d --tx ssh=rig1//… --tx ssh=rig2//…``: a group each.

Both capture every item (``--recapture``), one warm-up run of each first; each side is
timed ``--rounds`` times, alternating, the median kept. Target: two rigs take at most 0.6
x the time of one (exit status 1 when missed).

    python benchmarks/bench_ssh_rigs.py [--cases 30] [--delay 0.5] [--rounds 3]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import site
import statistics
import subprocess
import sys
import tempfile
import time
import venv
from pathlib import Path

import numpy as np
import soundfile as sf

import pytest_dictbench

ROOT = Path(__file__).resolve().parent.parent
#: Two rigs' wall time over one rig's, at most.
TARGET = 0.6
CANARY = "DICTBENCH-CANARY bench 11111111-2222-4333-8444-555555555555"
#: The rigs' transcriber (ssh passes no environment: the delay is written into it).
CONFTEST = '''
import time

DELAY = {delay!r}

def pytest_dictbench_transcriber(product):
    def transcribe(request):
        if not request.warmup:
            time.sleep(DELAY)
        return "hello there"
    return transcribe
'''


def make_project(root: Path, cases: int, delay: float) -> None:
    suite = root / "cases" / "mini"
    (suite / "audio").mkdir(parents=True)
    rate = 16000
    tone = (0.2 * np.sin(2 * np.pi * 440 * np.arange(rate // 10) / rate)).astype(np.float32)
    rows = []
    for i in range(cases):
        sf.write(str(suite / "audio" / f"c{i}.wav"), tone, rate, subtype="PCM_16")
        rows.append(json.dumps({"id": f"c{i}", "reference": "hello there", "canary": CANARY,
                                "audio": f"audio/c{i}.wav"}))
    (suite / "cases.jsonl").write_text("\n".join(rows) + "\n", encoding="utf-8")
    (suite / "suite.toml").write_text(
        'id = "mini"\nversion = "1"\ntitle = "Mini"\nmethod = "error_rate"\n'
        f'locale = "en-US"\ncanary = "{CANARY}"\n[params]\nthreshold = 0.2\n',
        encoding="utf-8")
    (root / "pytest.ini").write_text("[pytest]\ndictbench_suites = cases/mini\n")
    (root / "conftest.py").write_text(CONFTEST.format(delay=delay), encoding="utf-8")
    (root / "products").mkdir()
    for name in ("a", "b"):
        (root / "products" / f"{name}.toml").write_text(
            f'name = "{name}"\nversion = "1"\nadapter = "python"\n', encoding="utf-8")


def make_rig(base: Path, project: Path, name: str) -> tuple[Path, Path]:
    """A rig's own checkout of ``project`` and venv: (checkout, python)."""
    checkout = base / name / "bench"
    shutil.copytree(project, checkout)
    env = base / name / "venv"
    venv.create(env, with_pip=False, symlinks=True)
    site_dir = next((env / "lib").glob("python*/site-packages"))
    package_root = Path(pytest_dictbench.__file__).resolve().parents[1]
    (site_dir / "dictbench-rig.pth").write_text(
        "\n".join([str(package_root), *site.getsitepackages()]) + "\n", encoding="utf-8")
    return checkout, env / "bin" / "python"


def start_sshd(folder: Path) -> Path:
    """The ssh_config of a started ``.ci/sshd`` in ``folder``."""
    proc = subprocess.run(["bash", str(ROOT / ".ci" / "sshd"), str(folder)],
                          capture_output=True, text=True, timeout=120)
    if proc.returncode != 0:
        sys.exit(f".ci/sshd failed: {proc.stderr.strip()[-500:]}")
    return Path(proc.stdout.strip().splitlines()[-1].split("=", 1)[1])


def stop_sshd(folder: Path) -> None:
    pid_file = folder / "sshd.pid"
    if pid_file.exists():
        os.kill(int(pid_file.read_text().strip()), signal.SIGTERM)


def timed(project: Path, tx: list[str]) -> float:
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "--product=a", "--product=b", "--recapture", *tx],
                          cwd=project, capture_output=True, text=True, timeout=1800)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        sys.exit(f"pytest {' '.join(tx)} exited {proc.returncode}:\n{proc.stdout[-2000:]}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=30)
    parser.add_argument("--delay", type=float, default=0.5)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-ssh-rigs-") as tmp:
        base = Path(tmp)
        config = start_sshd(base / "sshd")
        try:
            project = base / "project"
            make_project(project, args.cases, args.delay)
            rigs = {name: make_rig(base, project, name) for name in ("rig1", "rig2")}

            def spec(name: str) -> list[str]:
                checkout, python = rigs[name]
                return ["--tx", f"ssh={name}//ssh_config={config}//python={python}"
                                f"//chdir={checkout}"]

            sides = {"one rig": ["-d", *spec("rig1")],
                     "two rigs": ["-d", *spec("rig1"), *spec("rig2")]}
            for tx in sides.values():  # warm-up: bytecode, caches, SSH
                timed(project, tx)
            times: dict[str, list[float]] = {name: [] for name in sides}
            for round_ in range(args.rounds):
                order = list(sides) if round_ % 2 == 0 else list(reversed(sides))
                for name in order:
                    times[name].append(timed(project, sides[name]))
        finally:
            stop_sshd(base / "sshd")
    one, two = (statistics.median(times[n]) for n in ("one rig", "two rigs"))
    ideal = 2 * args.cases * args.delay
    print(f"two capture groups of {args.cases} items x {args.delay} s "
          f"({ideal:.1f} s of capture)")
    print(f"one rig:  median {one:.2f} s over {args.rounds}")
    print(f"two rigs: median {two:.2f} s over {args.rounds}")
    print(f"wall time ratio two rigs / one rig: {two / one:.2f} (target <= {TARGET})")
    if two / one > TARGET:
        sys.exit(f"wall time ratio {two / one:.2f} misses its target (<= {TARGET})")


if __name__ == "__main__":
    main()
