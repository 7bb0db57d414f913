"""CF7: a run with five kinds of provider, each answering a JSON body that repeats a key,
ends without a traceback at interpreter exit (the provider client's event loops). A guard:
on this machine it passes with the client before its loops were closed (224005e) too."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from adapter_support import suite_with_audio
from http_stt_server import Reply
from provider_servers import KEY, KEY_ENV, ProviderServer, Request

KINDS = {"openai": 'model = "whisper-1"\n', "deepgram": "", "assemblyai": "",
         "azure": "", "gemini": 'model = "gemini-2.5-flash"\n'}


def _repeated_key(request: Request) -> Reply:
    """Every route's answer is syntactically JSON with a repeated key."""
    return Reply(200, b'{"text":"right","text":"wrong","id":"a","id":"b"}')


@pytest.fixture
def five(pytester: pytest.Pytester, write_suite: Callable[..., Path],
         monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.setenv(KEY_ENV, KEY)
    suite_with_audio(write_suite, [{"id": f"c{i}", "reference": "right"} for i in range(1, 6)],
                     0.3)
    pytester.makeini("[pytest]\ndictbench_suites = cases/mini\n")
    (pytester.path / "products").mkdir()
    with ProviderServer(_repeated_key) as server:
        for kind, extra in KINDS.items():
            (pytester.path / "products" / f"{kind}.toml").write_text(
                f'name = "{kind}"\nversion = "1"\nadapter = "{kind}"\n[settings]\n{extra}'
                f'base_url = "{server.url}"\napi_key_env = "{KEY_ENV}"\ntimeout_s = 10\n',
                encoding="utf-8")
        yield pytester


def test_cf7_no_traceback_at_exit_after_five_kinds_of_provider(five: pytest.Pytester) -> None:
    args = [f"--product={kind}" for kind in KINDS]
    result = five.runpytest_subprocess(*args, "-p", "no:cacheprovider")
    result.assert_outcomes(errors=25)
    output = result.stdout.str() + result.stderr.str()
    assert "Traceback" not in output and "Exception ignored" not in output, output
