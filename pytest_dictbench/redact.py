"""Secrets never leave through a text: one scrubbing function, used by every writer, every
message and every request to a model; and where a key may be sent.

The secrets are the values of the environment variables the configuration names: a
setting ending in ``_env`` anywhere in a product (the http adapter's ``api_key_env``, a
``[[refine]]`` step's, a sweep model's), a judge's ``api_key_env``, and the variables
the clients read by default (:data:`KEY_VARIABLES`). They are registered when the
product or judge table is *loaded*, in every process (the xdist controller and each
worker), so what is scrubbed does not depend on which clients were built where.

:func:`scrub` replaces each secret (also as JSON and HTML would escape it) with
``<redacted>``, and any run of :data:`RUN_CHARS` or more consecutive characters of one
(a quoted prefix); :func:`scrub_quote` does the same for runs of
:data:`MIN_SECRET_CHARS`, for a third party's message (a provider's or a language model
endpoint's error) that may quote part of the key it was sent. The atomic writer and the
line appender of :mod:`pytest_dictbench.files` apply :func:`scrub` to every text they
write, the item record is scrubbed as it is made, every product output is scrubbed
before it is refined or scored (and flagged), and every prompt before it is sent.
:func:`secret_source` tells whether a text would put a secret into a name (a product,
a model label, a node id), which is refused where the name is made. Values shorter
than :data:`MIN_SECRET_CHARS` would match ordinary text, so they are never scrubbed,
and a key that short (or blank) is refused before it is sent (:func:`key_problem`).
:func:`public_args` masks secrets given on the command line, :func:`public_url` the
user info and query values of a URL, and :func:`key_url_problem` refuses a URL a key
must not go to (a cloud metadata address, control characters, padding).
"""

from __future__ import annotations

import html
import ipaddress
import json
import os
import re
import socket
from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

__all__ = [
    "KEY_VARIABLES",
    "MIN_SECRET_CHARS",
    "REDACTED",
    "RUN_CHARS",
    "any_secret",
    "key_problem",
    "key_url_problem",
    "public_args",
    "public_url",
    "redact_url",
    "register_secret",
    "register_settings_secrets",
    "registered_secrets",
    "scrub",
    "scrub_quote",
    "secret_source",
    "url_password",
]

#: What a secret is replaced with.
REDACTED = "<redacted>"
#: Shorter values are not scrubbed, and a key this short is refused.
MIN_SECRET_CHARS = 8
#: A run of this many consecutive characters of a secret is scrubbed from any text.
RUN_CHARS = 16
#: Environment variables that always hold a secret when set (the judges' and the
#: refine clients' default key variables).
KEY_VARIABLES = ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GEMINI_API_KEY")

#: Registered secret -> the variable (or description) it came from.
_SECRETS: dict[str, str] = {}
_FORMS: dict[str, Any] = {}


def register_secret(value: str | None, source: str = "a configured key") -> None:
    """Scrub ``value`` from everything written, printed or sent from now on in this
    process; ``source`` (the variable's name) is what a refusal names."""
    if value and len(value) >= MIN_SECRET_CHARS:
        _SECRETS.setdefault(value, source)


def registered_secrets() -> dict[str, str]:
    """The secrets registered in this process, with their sources: what a child process
    that writes for it registers in turn (``report.recorder``)."""
    return dict(_SECRETS)


def register_settings_secrets(settings: Any) -> None:
    """Register the values of the environment variables named by ``*_env`` settings, at
    any depth (``[[refine]]`` steps and sweep models are tables inside a product)."""
    if isinstance(settings, Mapping):
        for name, value in settings.items():
            if str(name).endswith("_env") and isinstance(value, str):
                register_secret(os.environ.get(value), value)
            else:
                register_settings_secrets(value)
    elif isinstance(settings, (list, tuple)):
        for value in settings:
            register_settings_secrets(value)


def _forms() -> list[tuple[str, str]]:
    """(form, source) of every secret as written, JSON-escaped and HTML-escaped, longer
    forms first (computed again only when a secret is added or a key variable changes:
    secrets are only ever added, so their count tells the state)."""
    env = tuple(os.environ.get(name) for name in KEY_VARIABLES)
    state = (len(_SECRETS), env)
    if _FORMS.get("state") != state:
        known = dict(_SECRETS)
        for name, value in zip(KEY_VARIABLES, env, strict=True):
            if value and len(value) >= MIN_SECRET_CHARS:
                known.setdefault(value, name)
        found: dict[str, str] = {}
        for value, source in known.items():
            for form in (value, json.dumps(value)[1:-1], json.dumps(value, ensure_ascii=False)
                         [1:-1], html.escape(value), html.escape(value, quote=False)):
                found.setdefault(form, source)
        _FORMS["state"] = state
        _FORMS["forms"] = sorted(found.items(), key=lambda f: (-len(f[0]), f[0]))
    return _FORMS["forms"]


def _runs(text: str, secret: str, least: int) -> list[tuple[int, int]]:
    """Spans of ``text`` that are runs of at least ``least`` consecutive characters of
    ``secret``. Every such run holds one of the secret's chunks of ``least // 2``
    characters taken every ``least - least // 2 + 1`` characters; each chunk found is
    grown to the longest common run around it."""
    size = max(1, least // 2)
    step = least - size + 1
    spans: list[tuple[int, int]] = []
    for start in range(0, len(secret) - size + 1, step):
        chunk = secret[start:start + size]
        at = text.find(chunk)
        while at >= 0:
            left = 0
            while at - left > 0 and start - left > 0 and \
                    text[at - left - 1] == secret[start - left - 1]:
                left += 1
            right = size
            while at + right < len(text) and start + right < len(secret) and \
                    text[at + right] == secret[start + right]:
                right += 1
            if left + right >= least:
                spans.append((at - left, at + right))
                at = text.find(chunk, at + right)
            else:
                at = text.find(chunk, at + 1)
    return spans


def _scrub(text: str, least: int) -> str:
    forms = _forms()
    if not forms or not text:
        return text
    for form, _ in forms:
        if form in text:
            text = text.replace(form, REDACTED)
    spans = [span for form, _ in forms if len(form) >= least
             for span in _runs(text, form, least)]
    if not spans:
        return text
    merged: list[list[int]] = []
    for a, b in sorted(spans):
        if merged and a <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], b)
        else:
            merged.append([a, b])
    out, end = [], 0
    for a, b in merged:
        out.append(text[end:a])
        out.append(REDACTED)
        end = b
    out.append(text[end:])
    return "".join(out)


def scrub(text: str) -> str:
    """``text`` with every configured secret, and every run of :data:`RUN_CHARS` or more
    of its characters, replaced by ``<redacted>``."""
    return _scrub(text, RUN_CHARS)


def scrub_quote(text: str) -> str:
    """:func:`scrub` for a third party's message, which may quote part of a key (``Invalid
    credentials: prov-test-key-012345...LEAK``): runs of :data:`MIN_SECRET_CHARS` too."""
    return _scrub(text, MIN_SECRET_CHARS)


def any_secret() -> bool:
    """Whether any secret is known (registered or in a key variable) to scrub."""
    return bool(_forms())


def secret_source(text: str) -> str | None:
    """The variable whose value (or a run of :data:`RUN_CHARS` of it) ``text`` holds,
    else None: such a text must not become a name (a node id, a product or label)."""
    for form, source in _forms():
        if form in text or (len(form) >= RUN_CHARS and _runs(text, form, RUN_CHARS)):
            return source
    return None


def public_url(text: str) -> str:
    """``text`` with URL user info and query values redacted (other text unchanged), for
    a message or a report."""
    if "://" not in text and not text.startswith("/"):  # a relative one: a Location
        return text
    try:
        parts = urlsplit(text)
    except ValueError:
        return REDACTED
    netloc = parts.netloc.rsplit("@", 1)[-1]
    if "@" in parts.netloc:
        netloc = f"{REDACTED}@{netloc}"
    query = urlencode([(k, REDACTED) for k, _ in parse_qsl(parts.query, keep_blank_values=True)],
                      safe="<>")
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


#: Host names of cloud machines' own metadata services (they hand out the machine's
#: credentials; never a speech or language API).
METADATA_HOSTS = frozenset({"metadata", "metadata.google.internal", "metadata.goog",
                            "instance-data", "instance-data.ec2.internal",
                            "metadata.azure.internal"})
#: Metadata addresses outside the link-local ranges (AWS over IPv6, Alibaba Cloud).
_METADATA_ADDRESSES = frozenset({ipaddress.ip_address("fd00:ec2::254"),
                                 ipaddress.ip_address("100.100.100.200")})


def _address(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """The address ``host`` spells, in any form a resolver accepts (``169.254.43518``,
    ``0xa9.0xfe.0xa9.0xfe``, ``2852039166``, ``[::ffff:169.254.169.254]``), else None."""
    try:
        address = ipaddress.ip_address(host.strip("[]").split("%", 1)[0])
    except ValueError:
        try:
            return ipaddress.IPv4Address(socket.inet_aton(host))
        except (OSError, ValueError):
            return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


def key_url_problem(url: str) -> str | None:
    """Why a key (or anything) must not be sent to ``url``, else None: whitespace or a
    control character anywhere in it (the URL parser drops some, so the check would see
    another URL than the one sent), or a host that is a link-local address
    (169.254.0.0/16, fe80::/10) or a cloud metadata service, whatever the scheme."""
    bad = next((c for c in url if c.isspace() or not c.isprintable()), None)
    if bad is not None:
        where = "around it" if url.strip() != url else "in it"
        return (f"the URL has whitespace or a control character {where} ({bad!r}); write "
                "it without")
    try:
        host = (urlsplit(url).hostname or "").rstrip(".").lower()
    except ValueError:
        return "the URL cannot be parsed"
    address = _address(host)
    if host in METADATA_HOSTS or (address is not None and (
            address.is_link_local or address in _METADATA_ADDRESSES)):
        return (f"{host!r} is a link-local or cloud metadata address, where a cloud machine "
                "serves its own credentials, never a speech or language API")
    return None


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
