"""Secrets never reach a file we write: one scrubbing function, used by every writer.

The secrets are the values of the environment variables the configuration names: a
product setting ending in ``_env`` (such as the http adapter's ``api_key_env``) and the
judges' ``ANTHROPIC_API_KEY``. :func:`scrub` replaces each of them (also as JSON and
HTML would escape it) with ``<redacted>``. The atomic writer and the line appender of
:mod:`pytest_dictbench.files` apply it to every text they write (reports, items.jsonl,
capture caches, decisions), the judge verdict cache applies it to each line, and live
adapters apply it to what a product returns, so an engine that echoes its key cannot
put it in a transcript either. Values shorter than :data:`MIN_SECRET_CHARS` would match
ordinary text, so they are never scrubbed, and a key that short (or blank) is refused
before it is sent (:func:`key_problem`). :func:`public_args` masks secrets given on the
command line (``--tx ...//env:NAME=VALUE``, ``--api-key X``, ``--my-token=X``).
"""

from __future__ import annotations

import html
import json
import os
import re
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["MIN_SECRET_CHARS", "REDACTED", "key_problem", "public_args", "redact_url",
           "register_secret", "register_settings_secrets", "scrub", "url_password"]

#: What a secret is replaced with.
REDACTED = "<redacted>"
#: Shorter values are not scrubbed, and a key this short is refused.
MIN_SECRET_CHARS = 8
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


def key_problem(value: str) -> str | None:
    """Why ``value`` cannot be sent as a key (blank, or too short to be scrubbed from
    what comes back), else None."""
    if not value.strip():
        return "a blank value"
    if len(value) < MIN_SECRET_CHARS:
        return (f"a short value ({len(value)} characters; a key needs at least "
                f"{MIN_SECRET_CHARS}, or it could not be told from ordinary text)")
    return None


#: An option name (without its dashes) whose value is a secret: a name part that is
#: ``key``, ``token``, ``secret``, ``password``, ``auth`` or ``credential(s)``.
_SECRET_OPTION = re.compile(r"(?:^|[-_])(?:api[-_]?key|key|token|secret|passw(?:or)?d?|"
                            r"auth\w*|credentials?)(?:$|[-_])", re.IGNORECASE)
#: ``env:NAME=VALUE`` in an xdist ``--tx`` spec (parts separated by ``//``).
_TX_ENV = re.compile(r"(env:[A-Za-z_][A-Za-z0-9_]*=)(.*?)(?=//|$)")


#: The password of a URL: ``scheme://user:PASSWORD@host``, ``?password=PASSWORD``.
_URL_PASSWORD = re.compile(r"([A-Za-z][\w+.-]*://[^:/@?#\s]*:)([^@/?#\s]*)(@)")
_QUERY_PASSWORD = re.compile(r"([?&]password=)([^&#\s]*)", re.IGNORECASE)


def redact_url(text: str) -> str:
    """``text`` with the password of every URL in it masked (a results store's
    ``postgresql://user:PASSWORD@host/db``)."""
    text = _URL_PASSWORD.sub(lambda m: m[1] + REDACTED + m[3], text)
    return _QUERY_PASSWORD.sub(lambda m: m[1] + REDACTED, text)


def url_password(url: str) -> str | None:
    """The password a URL carries, or None."""
    found = _URL_PASSWORD.match(url) or _QUERY_PASSWORD.search(url)
    return found[2] if found else None


def public_args(args: Sequence[str]) -> list[str]:
    """Command-line arguments with secret-looking values masked: every
    ``env:NAME=VALUE`` of a ``--tx`` spec, the value of an option whose name
    looks secret (``--api-key X``, ``--my-token=X``) and a URL's password."""
    out: list[str] = []
    for arg in args:
        previous = out[-1] if out else ""
        if previous.startswith("--") and "=" not in previous and \
                _SECRET_OPTION.search(previous[2:]) and not arg.startswith("-"):
            out.append(REDACTED)
            continue
        name, eq, _ = arg.partition("=")
        if arg.startswith("--") and eq and _SECRET_OPTION.search(name[2:]):
            out.append(f"{name}={REDACTED}")
            continue
        arg = redact_url(arg) if "://" in arg else arg
        out.append(_TX_ENV.sub(lambda m: m[1] + REDACTED, arg) if "env:" in arg else arg)
    return out
