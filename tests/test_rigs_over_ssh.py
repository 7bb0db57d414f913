"""Products spread over two rig machines with xdist's ``--tx ssh=…``, through a real OpenSSH
server on loopback (``.ci/sshd``, started by ``.ci/run``), following docs/rigs.md's recipe:
each rig has its own checkout of the benchmark project and its own virtual environment.

The two rigs are this machine reached twice over SSH. Each rig's environment is a real
``venv`` that reaches the test environment's packages through a ``.pth`` file instead of
installing them again (a rig's ``pip install`` is the recipe's own step; it is left out
here to keep the test offline and quick)."""

from __future__ import annotations

import json
import os
import shutil
import site
import sys
import venv
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

import pytest
from adapter_support import live_project

import pytest_dictbench

SSH_CONFIG_ENV = "DICTBENCH_TEST_SSH_CONFIG"
REPORTS = ("dictbench.json", "items.jsonl", "dictbench.md", "dictbench.html")
CASES = [{"id": f"c{i}", "reference": "hello there"} for i in range(1, 7)]
PLANTED_KEY = "sk-rigplanted-4f9c2a7e1b0d83c6"

#: Every product says "hello there" and logs (rig folder, product, case) where it ran.
#: ``droppy`` drops its rig's SSH connection on c3 the first time, by killing the sshd
#: session that carries the worker (only when reached over SSH).
CONFTEST = '''
import os
import signal
from pathlib import Path

def pytest_dictbench_transcriber(product):
    def transcribe(request):
        if request.warmup:
            return "hello there"
        with open("ran.log", "a") as log:
            log.write(f"{Path.cwd().parent.name} {product.name} {request.case_id}\\n")
        if (product.name == "droppy" and request.case_id == "c3"
                and os.environ.get("SSH_CONNECTION") and not Path("dropped").exists()):
            Path("dropped").touch()
            os.kill(os.getppid(), signal.SIGKILL)
            signal.pause()
        return "hello there"
    return transcribe
'''


@pytest.fixture(scope="module")
def ssh_config() -> Path:
    """The ssh_config naming ``rig1`` and ``rig2``; CI must have one (a skipped SSH test
    would not test SSH)."""
    value = os.environ.get(SSH_CONFIG_ENV)
    if not value:
        message = (f"{SSH_CONFIG_ENV} is not set: start a loopback sshd with "
                   f"`export \"$(.ci/sshd /tmp/dictbench-sshd)\"`")
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return Path(value)


@pytest.fixture
def project(pytester: pytest.Pytester, write_suite: Callable[..., Path]) -> pytest.Pytester:
    """A benchmark project: suite ``mini`` (6 cases with audio), live products a, b, droppy."""
    return live_project(pytester, write_suite, CASES, CONFTEST, ("a", "b", "droppy"))


def make_rig(base: Path, project: Path, name: str) -> tuple[Path, Path]:
    """A rig: its own checkout of ``project`` and its own venv; returns (checkout, python)."""
    checkout = base / name / "bench"
    shutil.copytree(project, checkout, ignore=shutil.ignore_patterns("reports", "*.log"))
    env = base / name / "venv"
    venv.create(env, with_pip=False, symlinks=True)
    site_dir = next((env / "lib").glob("python*/site-packages"))
    package_root = Path(pytest_dictbench.__file__).resolve().parents[1]
    paths = [str(package_root), *site.getsitepackages()]
    (site_dir / "dictbench-rig.pth").write_text("\n".join(paths) + "\n", encoding="utf-8")
    return checkout, env / "bin" / "python"


def tx_args(config: Path, rigs: list[tuple[str, Path, Path]]) -> list[str]:
    """``-d --tx ssh=RIG//ssh_config=…//python=…//chdir=…`` for each rig, as docs/rigs.md."""
    args = ["-d"]
    for name, checkout, python in rigs:
        args += ["--tx", f"ssh={name}//ssh_config={config}//python={python}//chdir={checkout}"]
    return args


def two_rigs(project: pytest.Pytester, ssh_config: Path) -> list[str]:
    base = project.path.parent / f"{project.path.name}-rigs"
    rigs = [(name, *make_rig(base, project.path, name)) for name in ("rig1", "rig2")]
    return tx_args(ssh_config, rigs)


def ran_where(checkouts: list[Path]) -> dict[str, dict[str, list[str]]]:
    """Per product: per rig, the cases it ran, in order (from each rig's own ran.log)."""
    where: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    for checkout in checkouts:
        log = checkout / "ran.log"
        for line in log.read_text().splitlines() if log.exists() else ():
            rig, product, case = line.split()
            where[product][rig].append(case)
    return where


def report_bytes(project: pytest.Pytester) -> tuple[bytes, ...]:
    return tuple((project.path / "reports" / name).read_bytes() for name in REPORTS)


def run(project: pytest.Pytester, *args: str) -> pytest.RunResult:
    return project.run(sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args, timeout=240)


def test_two_rigs_keep_each_group_on_one_rig_and_match_a_serial_run_of_their_captures(
        project: pytest.Pytester, ssh_config: Path) -> None:
    """Captured on two rigs; then, as docs/rigs.md says, each rig's ``products/<name>/`` is
    copied back and a serial run from those captures writes the same bytes."""
    tx = two_rigs(project, ssh_config)
    products = ("a", "b")
    result = run(project, *(f"--product={p}" for p in products), *tx)
    assert result.ret == pytest.ExitCode.OK, result.stdout.str() + result.stderr.str()
    over_ssh = report_bytes(project)
    base = project.path.parent / f"{project.path.name}-rigs"
    where = ran_where([base / "rig1" / "bench", base / "rig2" / "bench"])
    cases = [c["id"] for c in CASES]
    for product in products:
        rigs = where[product]
        assert len(rigs) == 1, f"{product} ran on {sorted(rigs)}"
        assert next(iter(rigs.values())) == cases  # the whole group, in order
    # two rigs, two groups: each rig had one (one rig with both would be no spread at all)
    assert {next(iter(where[p])) for p in products} == {"rig1", "rig2"}
    for product in products:
        rig = next(iter(where[product]))
        shutil.copytree(base / rig / "bench" / "products" / product,
                        project.path / "products" / product, dirs_exist_ok=True)
    serial = run(project, *(f"--product={p}" for p in products), "-p", "no:xdist")
    assert serial.ret == pytest.ExitCode.OK, serial.stdout.str()
    serial.stdout.fnmatch_lines(["*capture a: 6/6 items (0 captured, 6 cached)*"])
    assert not (project.path / "ran.log").exists()  # nothing captured again here
    assert report_bytes(project) == over_ssh


def test_a_dropped_rig_costs_only_one_item(
        project: pytest.Pytester, ssh_config: Path) -> None:
    tx = two_rigs(project, ssh_config)
    result = run(project, "--product=droppy", "--product=a", *tx)
    output = result.stdout.str()
    assert result.ret == pytest.ExitCode.TESTS_FAILED, output
    records = [json.loads(line) for line in
               (project.path / "reports/items.jsonl").read_text().splitlines()]
    by_status = defaultdict(list)
    for record in records:
        by_status[record["status"]].append((record["product"], record["case_id"]))
    # one item is lost: the first of droppy's whose report had not reached the controller
    # when the connection dropped (c3 was running; the reports of c1 and c2 may have been
    # on the wire and lost with it)
    [(product, case)] = by_status["error"]
    assert product == "droppy" and case in {"c1", "c2", "c3"}, output
    crashed = next(r for r in records if r["status"] == "error")
    assert "crashed while running this item" in crashed["message"]
    # everything else ran and passed: a's six, droppy's other five (resumed after the drop)
    assert sorted(by_status["passed"]) == sorted(
        [("a", c["id"]) for c in CASES] + [("droppy", c["id"]) for c in CASES if c["id"] != case])
    assert len(records) == 2 * len(CASES)
    result.stdout.fnmatch_lines([f"*ERROR*{case}[[]droppy[]]*"])


def test_no_key_or_ssh_secret_reaches_a_report(
        project: pytest.Pytester, ssh_config: Path) -> None:
    """A key handed to the rigs in the ``--tx`` spec (``//env:NAME=value``) reaches neither
    a report, JUnit nor the terminal; nor does the SSH user key or where it lies."""
    tx = [arg if not arg.startswith("ssh=") else f"{arg}//env:OPENAI_API_KEY={PLANTED_KEY}"
          for arg in two_rigs(project, ssh_config)]
    result = run(project, "--product=a", "--product=b", *tx, "--junitxml=junit.xml")
    output = result.stdout.str() + result.stderr.str()
    assert result.ret == pytest.ExitCode.OK, output
    folder = ssh_config.parent
    secrets = [PLANTED_KEY, (folder / "user_key").read_text().splitlines()[1],
               str(folder / "user_key")]
    written = [*(project.path / "reports").iterdir(), project.path / "junit.xml"]
    assert len(written) > 5
    for path in written:
        text = path.read_text(encoding="utf-8", errors="replace")
        for secret in secrets:
            assert secret not in text, f"{secret[:12]}… in {path.name}"
    for secret in secrets:
        assert secret not in output
