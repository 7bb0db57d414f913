"""Constants and small helpers shared by the plugin tests."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

CANARY = "DICTBENCH-CANARY test-suite 00000000-0000-4000-8000-000000000000"

MINI_CASES = [
    {"id": "c1", "genre": "chat", "tags": ["names"], "reference": "Hello Maria, see you at noon."},
    {"id": "c2", "genre": "email", "reference": "Please send the invoice by Friday."},
    {"id": "c3", "genre": "chat", "reference": "The meeting moved to room four."},
    {"id": "c4", "genre": "notes", "tags": ["list"], "reference": "Buy milk, eggs and bread."},
]


def jsonl(rows: Iterable[dict[str, Any]]) -> str:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
