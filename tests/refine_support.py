"""Helpers for the refine-pipeline tests: a rewriting responder for the loopback
Messages server, and a project with a recogniser and pipelines in tmp."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from judge_server import Recorded, Reply, error_reply, user_text

from pytest_dictbench.adapters.pipeline.refiner import REFINE_TOOL

#: The fake key the steps read from ``REFINE_KEY`` (scanned for in every file written).
REFINE_KEY = "sk-refine-test-0123456789abcdef-SECRET"

#: Every test template wraps the text so the responder can find it.
TEMPLATE = "Clean up this dictation.\n<text>{text}</text>"

_TEXT = re.compile(r"<text>(.*)</text>", re.DOTALL)


def rewrite(model: str, text: str) -> str | None:
    """What each test model does: ``fixer`` drops the filler ``um``, ``shouter`` upper-
    cases, ``blank`` answers nothing, ``broken`` fails (``None``); others tag the text."""
    if model == "fixer":
        return re.sub(r"\bum\s+", "", text)
    if model == "shouter":
        return text.upper()
    if model == "blank":
        return ""
    if model == "broken":
        return None
    return f"[{model}] {text}"


def tool_reply(text: str, *, input_tokens: int = 100, output_tokens: int = 20,
               delay: float = 0.0) -> Reply:
    """A Messages API answer calling the rewrite tool with ``text``."""
    body = {"id": "msg_refine", "type": "message", "role": "assistant", "model": "m",
            "content": [{"type": "tool_use", "id": "toolu_refine", "name": REFINE_TOOL,
                         "input": {"text": text}}],
            "stop_reason": "tool_use", "stop_sequence": None,
            "usage": {"input_tokens": input_tokens, "output_tokens": output_tokens}}
    return Reply(body=body, delay=delay)


def refine_responder(delay: float = 0.0) -> Any:
    """A responder applying :func:`rewrite` to the ``<text>`` of each request."""

    def respond(request: Recorded) -> Reply:
        body: Mapping[str, Any] = request.body or {}
        found = _TEXT.search(user_text(body))
        answer = rewrite(str(body.get("model")), found.group(1) if found else "")
        if answer is None:
            return error_reply(400, "invalid_request_error")
        return tool_reply(answer, delay=delay)

    return respond


def refine_requests(server: Any) -> list[Any]:
    """The rewrite calls the server received (Messages and chat completions)."""
    return [r for r in server.requests
            if r.path in ("/v1/messages", "/v1/chat/completions")]


def step_toml(model: str, url: str, *, client: str = "anthropic", name: str | None = None,
              template: str = TEMPLATE, extra: str = "") -> str:
    """One ``[[refine]]`` table talking to the loopback ``url``."""
    base = url + "/v1" if client == "openai" else url
    lines = ["[[refine]]", f'client = "{client}"', f'model = "{model}"',
             f'base_url = "{base}"', 'api_key_env = "REFINE_KEY"',
             f"template = {json.dumps(template)}",
             "price_in_per_mtok = 3.0", "price_out_per_mtok = 15.0"]
    if name:
        lines.append(f'name = "{name}"')
    return "\n".join(lines) + "\n" + extra


def write_pipeline(folder: Path, name: str, asr: str, steps: str, *, settings: str = ""
                   ) -> Path:
    """``folder/<name>.toml``: a pipeline over recogniser ``asr``."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.toml"
    path.write_text(f'name = "{name}"\nversion = "1"\nadapter = "pipeline"\n'
                    f'{settings}\n[asr]\nproduct = "{asr}"\n\n{steps}', encoding="utf-8")
    return path
