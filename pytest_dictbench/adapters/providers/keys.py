"""A provider's key: never in the product file, read from the variable ``api_key_env``
names when the first item runs, refused once when it cannot be sent (PV13), and
registered as a secret. The batch and the streaming kinds read it the same way."""

from __future__ import annotations

import os

from ...errors import CaptureError, ProductError
from ...model import Product
from ...redact import key_problem, register_secret

__all__ = ["header_problem", "read_key", "refuse_inline_key"]


def refuse_inline_key(product: Product) -> None:
    """A key written into the product file is refused: it belongs in an environment
    variable that ``api_key_env`` names."""
    if "api_key" in product.settings:
        raise ProductError("[settings] api_key is not accepted: put the key in an "
                           "environment variable and name that variable in api_key_env",
                           path=product.path)


def read_key(product: Product, key_env: str | None) -> str | None:
    """The key in the variable ``key_env`` names, registered as a secret (None without
    ``api_key_env``). Unset: a capture error of the item. Blank, too short to be scrubbed,
    or not sendable in a header: the product is refused once, before any request, the key
    never quoted (PV13)."""
    key = os.environ.get(key_env) if key_env else None
    if key_env and not key:
        raise CaptureError(f"environment variable {key_env} (api_key_env) is not set")
    problem = (header_problem(key) or key_problem(key)) if key else None
    if problem:
        raise ProductError(f"environment variable {key_env} (api_key_env) holds {problem}; "
                           "it is not sent", path=product.path)
    register_secret(key)
    return key


def header_problem(key: str) -> str | None:
    """Why ``key`` cannot be sent as an HTTP header value (without quoting it), else
    None: surrounding whitespace, quotes around it, control or non-ASCII characters."""
    if key != key.strip():
        return "spaces or line breaks around the key; remove them"
    if len(key) > 1 and key[0] == key[-1] and key[0] in "\"'":
        return "the key in quotes; remove them"
    for char in key:
        if ord(char) < 0x21 or ord(char) > 0x7E:
            return (f"a character that cannot be sent in a header (U+{ord(char):04X}); "
                    "keys are printable ASCII")
    return None
