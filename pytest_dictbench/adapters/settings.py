"""Reading a product's ``[settings]`` table: typed values, unknown keys refused, secrets hidden."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable, Mapping
from typing import Any

from ..errors import ProductError
from ..model import Product
from ..redact import REDACTED, public_url

__all__ = ["COMMON_SETTINGS", "Settings", "public_settings"]

#: Settings every live adapter accepts: the outputs folder, the xdist capture group
#: (read by the plugin) and descriptive fields that go
#: into the capture metadata.
COMMON_SETTINGS = frozenset({"outputs", "engine", "engine_version", "model", "capture_group"})


_SECRET_NAME = re.compile(r"key|token|secret|passw|auth|credential", re.IGNORECASE)

_MISSING: Any = object()


class Settings:
    """Typed access to ``product.settings``; every problem is a :class:`ProductError`."""

    def __init__(self, product: Product, known: Iterable[str]) -> None:
        self.product = product
        self.values: Mapping[str, Any] = product.settings
        allowed = COMMON_SETTINGS | frozenset(known)
        unknown = sorted(set(self.values) - allowed)
        if unknown:
            raise ProductError(
                f"[settings] has unknown key(s) {', '.join(unknown)} for adapter "
                f"{product.adapter!r} (known: {', '.join(sorted(allowed))})", path=product.path)

    def get(self, name: str, kind: type | tuple[type, ...], default: Any = _MISSING) -> Any:
        """The value of ``name``, checked against ``kind``; ``default`` when absent.

        Without a default the setting is required. Booleans are not accepted as numbers.
        """
        if name not in self.values:
            if default is _MISSING:
                raise self.error(f"[settings] {name} is required for adapter "
                                 f"{self.product.adapter!r}")
            return default
        value = self.values[name]
        kinds = kind if isinstance(kind, tuple) else (kind,)
        if isinstance(value, bool) and bool not in kinds:
            ok = False
        elif float in kinds and isinstance(value, int) and not isinstance(value, bool):
            ok = True
        else:
            ok = isinstance(value, kinds)
        if not ok:
            wanted = " or ".join(k.__name__ for k in kinds)
            raise self.error(f"[settings] {name} must be {wanted}, got {value!r}")
        return value

    def positive(self, name: str, default: float) -> float:
        """A number > 0 (timeouts and the like)."""
        value = self.get(name, float, default)
        if value <= 0:
            raise self.error(f"[settings] {name} must be positive, got {value!r}")
        return float(value)

    def error(self, message: str) -> ProductError:
        return ProductError(message, path=self.product.path)


def public_settings(settings: Mapping[str, Any]) -> dict[str, Any]:
    """The settings as plain JSON data with secret-looking values replaced.

    A key whose name suggests a secret (``api_key``, ``token``, ...) has its value
    replaced by ``"<redacted>"``, except names ending in ``_env``, which hold only the
    *name* of an environment variable. In lists (argv templates) the value after a
    secret-looking flag (``--api-key X``) and the value of ``--token=X`` are redacted;
    in URLs, user info and query values are. Dates and times become ISO strings.
    """
    return {str(k): _public_value(str(k), v) for k, v in settings.items()}


def _public_value(name: str, value: Any) -> Any:
    if _SECRET_NAME.search(name) and not name.endswith("_env"):
        return REDACTED
    if isinstance(value, Mapping):
        return public_settings(value)
    if isinstance(value, (list, tuple)):
        return _public_list(list(value))
    if isinstance(value, (dt.date, dt.time)):
        return value.isoformat()
    if isinstance(value, str):
        return _public_url(value)
    return value


def _public_list(values: list[Any]) -> list[Any]:
    out: list[Any] = []
    for value in values:
        if out and isinstance(out[-1], str) and out[-1].startswith("-") \
                and _SECRET_NAME.search(out[-1]) and "=" not in out[-1]:
            out.append(REDACTED)
        elif isinstance(value, str) and value.startswith("-") and "=" in value \
                and _SECRET_NAME.search(value.split("=", 1)[0]):
            out.append(value.split("=", 1)[0] + "=" + REDACTED)
        else:
            out.append(_public_value("", value))
    return out


#: Kept under its old name: the one implementation is :func:`redact.public_url`.
_public_url = public_url
