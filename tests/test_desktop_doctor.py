"""``dictbench desktop doctor`` and the checks of a desktop product's settings."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pytest_dictbench.adapters.desktop.config import DesktopConfig
from pytest_dictbench.adapters.desktop.xkeys import parse_hotkey
from pytest_dictbench.cli import main
from pytest_dictbench.errors import ProductError
from tests.adapter_support import make_product


def write_product(folder: Path, settings: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "app.toml"
    path.write_text(f'name = "app"\nversion = "1"\nadapter = "desktop"\n[settings]\n{settings}',
                    encoding="utf-8")
    return path


def test_doctor_lists_what_is_missing_and_how_to_fix_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
        ) -> None:
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.setenv("PULSE_SERVER", f"unix:{tmp_path}/none")
    path = write_product(tmp_path, 'app = ["no-such-app"]\nhotkey = "F9"\n')
    assert main(["desktop", "doctor", str(path)]) == 1
    out = capsys.readouterr().out
    assert "MISSING no X display" in out and "apt-get install xvfb" in out
    assert "MISSING no PulseAudio/PipeWire server answers" in out
    assert "MISSING the app's binary 'no-such-app' is not found" in out


def test_doctor_names_ffmpeg_when_the_screen_is_recorded(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
        ) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    path = write_product(tmp_path, 'app = ["x"]\nhotkey = "F9"\nrecord_screen = true\n')
    assert main(["desktop", "doctor", str(path)]) == 1
    assert "MISSING ffmpeg is missing (record_screen = true): apt-get install ffmpeg" in \
        capsys.readouterr().out


def test_doctor_names_a_bad_product_file(tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    path = write_product(tmp_path, 'app = ["x"]\nhotkey = "F9"\nhotkey_mode = "tap"\n')
    assert main(["desktop", "doctor", str(path)]) == 1
    assert "hotkey_mode must be toggle or hold" in capsys.readouterr().out


@pytest.mark.parametrize(("settings", "message"), [
    ({"hotkey": "F9"}, "app (the app's argv) is required"),
    ({"app": ["x"], "hotkey": "hyper+x"}, "unknown modifier"),
    ({"app": ["x"], "hotkey": "ctrl+"}, "not of the form"),
    ({"app": ["x"], "hotkey": "F9", "stable_s": 10, "max_wait_s": 5}, "shorter than"),
    ({"app": ["x"], "hotkey": "F9", "relaunch": "always"}, "relaunch must be"),
    ({"app": ["x"], "hotkey": "F9", "replay_if_empty": -1}, "replay_if_empty must be"),
    ({"app": ["x"], "hotkey": "F9", "platform": "windows"}, "platform must be"),
    ({"app": ["x"], "hotkey": "F9", "typo_s": 1}, "unknown key(s) typo_s"),
    ({"app": ["x"], "hotkey": "F9", "ready_log": "ready ("},
     "ready_log is not a valid regular expression"),
    ({"app": ["x"], "hotkey": "F9", "ready_window": ""}, "ready_window must be a non-empty"),
    ({"app": ["x"], "hotkey": "F9", "launch_wait_s": -1}, "launch_wait_s must be >= 0"),
    ({"app": ["x"], "hotkey": "F9", "ready_log": "r", "launch_wait_s": 0},
     "launch_wait_s must be positive"),
])
def test_bad_settings_are_product_errors(tmp_path: Path, settings: dict[str, Any],
                                         message: str) -> None:
    with pytest.raises(ProductError, match=message.replace("(", r"\(").replace(")", r"\)")):
        DesktopConfig.from_product(make_product(tmp_path, "desktop", settings))


def test_settings_defaults_follow_the_rubric_seed(tmp_path: Path) -> None:
    config = DesktopConfig.from_product(make_product(
        tmp_path, "desktop", {"app": ["./run-app", "--x"], "hotkey": "ctrl+alt+d"}))
    assert (config.rule.stable_s, config.rule.max_wait_s, config.replay_if_empty) == (5, 120, 1)
    assert config.hotkey == parse_hotkey("ctrl+alt+d")
    assert config.hotkey.modifiers == ("Control_L", "Alt_L")
    assert config.app == (str((tmp_path / "run-app").resolve()), "--x")
    assert (config.hotkey_mode, config.relaunch) == ("toggle", "session")
    assert not config.ready and config.launch_wait_s == 2  # a fixed wait


def test_a_readiness_setting_makes_launch_wait_s_the_longest_wait(tmp_path: Path) -> None:
    config = DesktopConfig.from_product(make_product(tmp_path, "desktop", {
        "app": ["x"], "hotkey": "F9", "ready_log": r"^listening on \S+",
        "ready_window": "Dictation"}))
    assert config.launch_wait_s == 60
    assert config.ready.log is not None and config.ready.log.search("x\nlistening on F9")
    assert config.ready.window is not None and config.ready.window.pattern == "Dictation"


@pytest.mark.parametrize("workers", [[], ["-p", "xdist", "-n", "2"]])
def test_a_machine_without_the_rig_is_a_usage_error_before_collection(
        pytester: pytest.Pytester, write_suite: Any, monkeypatch: pytest.MonkeyPatch,
        workers: list[str]) -> None:
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.setenv("PULSE_SERVER", f"unix:{pytester.path}/none")  # no audio route
    write_suite()
    write_product(pytester.path / "products", 'app = ["no-such-app"]\nhotkey = "F9"\n')
    result = pytester.runpytest("cases/mini", "--product=app", "-p", "no:cacheprovider",
                                *workers)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    errors = [line for line in result.stderr.lines if "desktop rig cannot run" in line]
    assert len(errors) == 1, result.stderr.str()  # one line, naming all that is missing
    line = errors[0]
    assert line.startswith("ERROR: dictbench: ") and "app.toml" in line
    assert "no X display" in line and "no PulseAudio/PipeWire server answers" in line
    assert "'no-such-app' is not found" in line and "dictbench desktop doctor" in line
    out = result.stdout.str()
    assert "collected" not in out and "error during collection" not in out, out


def test_the_recorded_app_argv_hides_secrets(tmp_path: Path) -> None:
    from contextlib import nullcontext

    from pytest_dictbench.adapters.desktop.driver import DesktopTranscriber

    class Backend:
        platform = "linux"

        def claim(self) -> Any:
            return nullcontext()

        def close(self) -> None:
            return None

    config = DesktopConfig.from_product(make_product(tmp_path, "desktop", {
        "app": ["dictate", "--api-key", "sk-SECRET", "--token=abc"], "hotkey": "F9"}))
    described = DesktopTranscriber(config, Backend(), tmp_path).describe()  # type: ignore[arg-type]
    assert "sk-SECRET" not in str(described) and "abc" not in str(described)
    assert described["app"][:2] == ["dictate", "--api-key"]
