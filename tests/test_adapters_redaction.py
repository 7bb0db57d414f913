"""Secrets in product settings never reach capture metadata."""

from __future__ import annotations

from pytest_dictbench.adapters.settings import public_settings


def test_secret_values_are_redacted_wherever_they_hide() -> None:
    settings = {
        "command": ["asr", "--api-key", "sk-one", "--token=sk-two", "--lang", "{locale}"],
        "url": "https://user:pw@asr.example/v1?key=sk-three&lang=ja",
        "api_key_env": "ASR_KEY",
        "auth_header": "Bearer sk-four",
        "beam_size": 5,
        "nested": {"password": "sk-five", "plain": "ok"},
    }
    public = public_settings(settings)
    assert public == {
        "command": ["asr", "--api-key", "<redacted>", "--token=<redacted>", "--lang",
                    "{locale}"],
        "url": "https://<redacted>@asr.example/v1?key=<redacted>&lang=<redacted>",
        "api_key_env": "ASR_KEY",
        "auth_header": "<redacted>",
        "beam_size": 5,
        "nested": {"password": "<redacted>", "plain": "ok"},
    }
    assert "sk-" not in repr(public)
