"""What leak-check looks for in a line or a file's bytes: credentials, home paths, and
the comparison tokens of private text; and the :class:`Finding` it reports."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

__all__ = ["BYTE_SECRETS", "HOME", "MIN_POINT", "NGRAM", "SECRETS", "SECRET_BYTE_STARTS",
           "SECRET_STARTS", "Finding", "tokens"]

NGRAM = 8
MIN_POINT = 5
_TOKEN = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]"
                    r"|[^\W\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]+")
SECRETS = (
    ("anthropic-key", re.compile(r"sk-ant-(?:api|admin|oat|sid)\d{2}-[A-Za-z0-9_-]{40,}")),
    ("openai-key", re.compile(r"(?<![\w-])sk-(?:(?:proj|svcacct|admin)-[A-Za-z0-9_-]{40,}"
                              r"|[A-Za-z0-9]{40,})")),
    ("bearer-token", re.compile(r"\bBearer\s+[A-Za-z0-9._~+/-]{24,}=*")),
)
#: The literal start of every pattern in :data:`SECRETS` (a quick test before a search).
SECRET_STARTS = ("sk-", "Bearer")
SECRET_BYTE_STARTS = tuple(t.encode("ascii") for t in SECRET_STARTS)
#: :data:`SECRETS` over bytes (a binary file read as Latin-1 without decoding it).
BYTE_SECRETS = tuple((kind, re.compile(p.pattern.encode("ascii"))) for kind, p in SECRETS)
_USER = r"[A-Za-z0-9_][A-Za-z0-9_.-]*"
_SEP = r"[\\/]+"  # one or more slashes or backslashes (as written, or JSON-escaped)
HOME = re.compile(
    r"(?<![\w.])(?:/home/[a-z_][a-z0-9_.-]*/|/Users/[A-Za-z0-9_.-]+/"
    rf"|[A-Za-z]:{_SEP}Users{_SEP}{_USER}"
    rf"|[\\/]{{2,}}wsl(?:\$|\.localhost){_SEP}[^\\/\s]+{_SEP}home{_SEP}{_USER})"
    rf"|(?<![\w/~])~(?!/){_USER}/")



@dataclass(frozen=True, order=True)
class Finding:
    path: str
    line: int
    kind: str
    detail: str
    #: where in the file's life it was found, e.g. ``staged``
    note: str = ""

    def describe(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else self.path
        note = f" ({self.note})" if self.note else ""
        return f"{where}{note}: {self.kind}: {self.detail}"


def tokens(text: str) -> list[str]:
    """Comparison tokens of ``text`` (see the module docstring)."""
    return _TOKEN.findall(unicodedata.normalize("NFKC", text).lower())
