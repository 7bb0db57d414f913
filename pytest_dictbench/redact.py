"""Secrets never reach a file we write: one scrubbing function, used by every writer.

The secrets are the values of the environment variables the configuration names: a
product setting ending in ``_env`` (such as the http adapter's ``api_key_env``) and the
judges' ``ANTHROPIC_API_KEY``. :func:`scrub` replaces each of them (also as JSON and
HTML would escape it) with ``<redacted>``. The atomic writer and the line appender of
:mod:`pytest_dictbench.files` apply it to every text they write (reports, items.jsonl,
capture caches, decisions), the judge verdict cache applies it to each line, and live
adapters apply it to what a product returns, so an engine that echoes its key cannot
put it in a transcript either. Values shorter than :data:`MIN_SECRET_CHARS` are not
treated as secrets: they would match ordinary text.
"""

from __future__ import annotations

import html
import json
import os
from collections.abc import Mapping
from typing import Any

__all__ = ["MIN_SECRET_CHARS", "REDACTED", "register_secret", "register_settings_secrets",
           "scrub"]

#: What a secret is replaced with.
REDACTED = "<redacted>"
#: Shorter values are not scrubbed.
MIN_SECRET_CHARS = 6
#: Environment variables that always hold a secret when set.
KEY_VARIABLES = ("ANTHROPIC_API_KEY",)

_SECRETS: set[str] = set()


def register_secret(value: str | None) -> None:
    """Scrub ``value`` from everything written from now on in this process."""
    if value and len(value) >= MIN_SECRET_CHARS:
        _SECRETS.add(value)


def register_settings_secrets(settings: Mapping[str, Any]) -> None:
    """Register the values of the environment variables named by ``*_env`` settings."""
    for name, value in settings.items():
        if str(name).endswith("_env") and isinstance(value, str):
            register_secret(os.environ.get(value))


def _variants() -> list[str]:
    values = set(_SECRETS)
    values.update(v for v in (os.environ.get(n) for n in KEY_VARIABLES)
                  if v and len(v) >= MIN_SECRET_CHARS)
    found = set()
    for value in values:
        found.update({value, json.dumps(value)[1:-1], json.dumps(value, ensure_ascii=False)[1:-1],
                      html.escape(value), html.escape(value, quote=False)})
    return sorted(found, key=len, reverse=True)  # longer forms first


def scrub(text: str) -> str:
    """``text`` with every configured secret replaced by ``<redacted>``."""
    for secret in _variants():
        if secret in text:
            text = text.replace(secret, REDACTED)
    return text
