"""Private suites: a real run of a private copy of en-dictation leaves no case text,
reference, transcript or case id in any written file or printed line, keeps the
aggregates, and ``dictbench publish`` summarises it without reading item records."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from pytest_dictbench.cli import main
from pytest_dictbench.model import Suite
from pytest_dictbench.private import REDACTED, public_case_id, redact_record
from pytest_dictbench.suites import load_suite

REPO = Path(__file__).parents[1]
PRODUCTS = ("example", "whisper-tiny-recorded")
CASE_ID = re.compile(r"\ben-0\d\d\b")


@pytest.fixture
def private_project(pytester: pytest.Pytester) -> pytest.Pytester:
    suite = pytester.path / "cases" / "en-private"
    shutil.copytree(REPO / "cases" / "en-dictation", suite)
    manifest = suite / "suite.toml"
    manifest.write_text(manifest.read_text(encoding="utf-8").replace(
        "repetitions = 1\n", "repetitions = 1\nprivate = true\n"), encoding="utf-8")
    products = pytester.path / "products"
    for name in PRODUCTS:
        shutil.copy(REPO / "products" / f"{name}.toml", products / f"{name}.toml"
                    if products.exists() else _mkdir(products) / f"{name}.toml")
        shutil.copytree(REPO / "products" / name, products / name)
    pytester.makeini("[pytest]\ndictbench_suites = cases/en-private\n")
    return pytester


def _mkdir(path: Path) -> Path:
    path.mkdir(parents=True)
    return path


def secrets_of(project: pytest.Pytester) -> list[str]:
    """Every reference, script and product transcript of the suite."""
    root = project.path / "cases" / "en-private"
    texts = []
    for line in (root / "cases.jsonl").read_text(encoding="utf-8").splitlines():
        case = json.loads(line)
        texts += [case["reference"], case["script"]]
    for name in PRODUCTS:
        for line in (project.path / "products" / name / "en-dictation.jsonl").read_text(
                encoding="utf-8").splitlines():
            text = json.loads(line).get("text") or ""
            if len(text) >= 12:
                texts.append(text)
    # every sentence of every text, as well as the whole text
    sentences = {s.strip() for t in texts for s in re.split(r"(?<=[.?!])\s+", t)}
    return sorted({*texts, *(s for s in sentences if len(s) >= 12)})


def test_private_run_writes_no_case_text(private_project: pytest.Pytester) -> None:
    result = private_project.runpytest_subprocess(
        *(f"--product={p}" for p in PRODUCTS), "-v", "-rA", "--junitxml=junit.xml",
        "--dictbench-item-failures=fail")
    printed = result.stdout.str() + result.stderr.str()
    assert "FAILED" in printed  # failures happen, and their text is withheld
    written = [p for p in (private_project.path / "reports").rglob("*") if p.is_file()]
    written.append(private_project.path / "junit.xml")
    main(["publish", str(private_project.path / "reports"),
          str(private_project.path / "published")])
    written += list((private_project.path / "published").iterdir())
    assert len(written) >= 8
    texts = secrets_of(private_project)
    assert len(texts) > 60
    for path in written:
        content = path.read_text(encoding="utf-8")
        for text in texts:
            assert text not in content, (path, text)
        assert not CASE_ID.search(content), (path, CASE_ID.search(content))
    for text in texts:
        assert text not in printed, text
    assert not CASE_ID.search(printed)

    # aggregates, intervals and comparisons stay
    report = json.loads((private_project.path / "reports/dictbench.json").read_text())
    suite = report["suites"][0]
    assert suite["id"] == "en-dictation"
    scores = {p["product"]: p for p in suite["products"]}
    assert set(scores) == set(PRODUCTS)
    for entry in scores.values():
        assert entry["score"] is not None and entry["score_ci"]["low"] is not None
    assert len(suite["comparisons"]) == 1 and suite["comparisons"][0]["n"] > 20
    items = [json.loads(x) for x in
             (private_project.path / "reports/items.jsonl").read_text().splitlines()]
    assert all(i["case_id"].startswith("p-") and i["text"] is None for i in items)
    summary = json.loads((private_project.path / "published/summary.json").read_text())
    assert summary["suites"][0]["comparisons"][0]["mean_difference"] == \
        suite["comparisons"][0]["mean_difference"]


def test_same_case_gets_the_same_keyed_id(tmp_path: Path) -> None:
    shutil.copytree(REPO / "cases" / "en-dictation", tmp_path / "a")
    suite = load_suite(tmp_path / "a")
    first = public_case_id(suite, "en-001")
    assert first == public_case_id(suite, "en-001")
    assert first != public_case_id(suite, "en-002")
    assert re.fullmatch(r"p-[0-9a-f]{16}", first)
    same_canary = Suite(**{**suite.__dict__, "root": tmp_path / "b"})
    shutil.copytree(REPO / "cases" / "en-dictation", tmp_path / "b")
    assert public_case_id(same_canary, "en-001") != first  # keyed by the suite's secret


def test_redact_record_keeps_numbers_and_drops_text(tmp_path: Path) -> None:
    shutil.copytree(REPO / "cases" / "en-dictation", tmp_path / "s")
    suite = load_suite(tmp_path / "s")
    record = {"case_id": "en-001", "text": "secret words", "message": "wer 0.5: secret",
              "score": 50.0, "status": "failed", "metrics": {"wer": 0.5},
              "rules": {"A1": {"score": 1, "evidence": "secret", "source": "judge"},
                        "A2": {"score": 2, "evidence": "", "source": "auto"}},
              "pending": [{"case": "en-001", "rule": "A1",
                           "judges": [{"name": "a", "score": 1, "reason": "secret"}]}]}
    out = redact_record(record, suite)
    assert out["case_id"] == public_case_id(suite, "en-001")
    assert (out["text"], out["message"]) == (None, REDACTED)
    assert out["metrics"] == {"wer": 0.5} and out["score"] == 50.0
    assert out["rules"]["A1"] == {"score": 1, "evidence": REDACTED, "source": "judge"}
    assert out["rules"]["A2"]["evidence"] == ""
    assert out["pending"][0]["case"] == out["case_id"]
    assert "secret" not in json.dumps(out)


def test_verify_of_a_private_suite_shows_no_case_id(private_project: pytest.Pytester) -> None:
    suite = load_suite(private_project.path / "cases" / "en-private")
    audio = private_project.path / "cases" / "en-private" / "audio" / "en-003.flac"
    audio.write_bytes(audio.read_bytes() + b"x")  # its sha256 no longer matches
    result = private_project.runpytest("--dictbench-verify", "-p", "no:cacheprovider", "-rA")
    assert result.ret == 1
    shown = f"audio/{public_case_id(suite, 'audio/en-003.flac')}.flac"
    result.stdout.fnmatch_lines([f"*{shown}: sha256 * does not match the listed *"])
    result.stdout.fnmatch_lines([f"FAILED cases/en-private/suite.toml::sha256[[]{shown}[]]*"])
    assert not CASE_ID.search(result.stdout.str())


def test_a_private_case_s_problems_are_counted_not_quoted() -> None:
    from pytest_dictbench.plugin.verify import IntegrityFailure, _check_problems

    problems = ["must-keep word 'Priya' is not in the reference", "empty script"]
    with pytest.raises(IntegrityFailure, match=r"^case 'p-1': 2 problem\(s\), not shown"
                       ) as info:
        _check_problems("case 'p-1'", problems, withhold=True)
    assert "Priya" not in str(info.value)
    _check_problems("case 'p-1'", [], withhold=True)  # no problem: passes


def _tiny_private(root: Path, canary: str = "DICTBENCH-CANARY tiny 0001") -> Path:
    root.mkdir(parents=True)
    (root / "suite.toml").write_text(
        f'id = "tiny"\nversion = "1"\ntitle = "T"\nmethod = "error_rate"\nlocale = "en-US"\n'
        f'canary = "{canary}"\nprivate = true\n\n[params]\nthreshold = 0.2\nunit = "word"\n',
        encoding="utf-8")
    (root / "cases.jsonl").write_text(
        "".join(json.dumps({"id": f"c{n}", "canary": canary, "reference": "a b c"}) + "\n"
                for n in range(1, 68)), encoding="utf-8")
    return root


def test_private_ids_are_keyed_with_a_secret_not_the_canary(tmp_path: Path) -> None:
    """Finding 28: whoever knows the canary (it is meant to be quoted) cannot turn the
    report's ids back into the guessable case ids."""
    import hashlib
    import hmac

    from pytest_dictbench.private import SECRET_FILE

    root = _tiny_private(tmp_path / "tiny")
    assert main(["hash", str(root)]) == 0
    secret = (root / SECRET_FILE).read_text()
    assert re.fullmatch(r"[0-9a-f]{64}\n", secret)
    assert (root / SECRET_FILE).stat().st_mode & 0o077 == 0  # the owner's only
    listed = [f["path"] for f in __import__("tomllib").loads(
        (root / "suite.toml").read_text())["files"]]
    assert SECRET_FILE not in listed  # never part of the suite's published digests
    suite = load_suite(root)
    shown = {public_case_id(suite, c.id) for c in suite.cases}
    canary = suite.canary.encode()
    guesses = {"p-" + hmac.new(canary, f"c{n}".encode(), hashlib.sha256).hexdigest()[:16]
               for n in range(1, 68)}
    assert len(shown) == 67 and not shown & guesses
    # stable: the same suite (a copy with its secret) gives the same ids
    copy = tmp_path / "copy"
    shutil.copytree(root, copy)
    assert {public_case_id(load_suite(copy), c.id) for c in suite.cases} == shown


def test_rotating_the_secret_changes_every_id(tmp_path: Path) -> None:
    from pytest_dictbench.private import SECRET_FILE

    root = _tiny_private(tmp_path / "tiny")
    main(["hash", str(root)])
    first = public_case_id(load_suite(root), "c1")
    moved = tmp_path / "rotated"
    shutil.copytree(root, moved)
    (moved / SECRET_FILE).unlink()
    main(["hash", str(moved)])
    assert public_case_id(load_suite(moved), "c1") != first


def test_a_damaged_secret_is_refused_with_its_file(tmp_path: Path) -> None:
    from pytest_dictbench.errors import SuiteError
    from pytest_dictbench.private import SECRET_FILE

    root = _tiny_private(tmp_path / "tiny")
    (root / SECRET_FILE).write_text("DICTBENCH-CANARY tiny 0001\n")
    with pytest.raises(SuiteError, match=r"\.dictbench-secret: not a private suite secret"):
        public_case_id(load_suite(root), "c1")


def test_a_suite_without_a_secret_gets_one_on_first_use(tmp_path: Path) -> None:
    """A private suite hashed before secrets existed still runs: the secret is created
    the first time an id is needed, once."""
    from pytest_dictbench.private import SECRET_FILE

    root = _tiny_private(tmp_path / "tiny")
    suite = load_suite(root)
    shown = public_case_id(suite, "c1")
    assert (root / SECRET_FILE).is_file()
    assert public_case_id(suite, "c1") == shown
