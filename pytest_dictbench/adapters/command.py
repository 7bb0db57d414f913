"""``command``: run a program per item; its standard output is the product's text.

The program is started directly from an argv list, never through a shell, so file names
with spaces, quotes, ``;`` or ``$(...)`` reach it as one plain argument each. The
placeholders ``{audio}`` (absolute path), ``{locale}``, ``{case_id}``, ``{context}``
(the case's names and vocabulary, "" when it has none) and, for a rig correction,
``{seed}`` and ``{target}`` (the seeded text's and the exact target's files; "" for
other cases, as ``{audio}`` is for a correction) are substituted
in one pass per argv element: substituted data is never scanned again, and nothing else
in the template is interpreted.

With ``output = "json"`` the standard output is one JSON object, a transcript record
(:func:`~pytest_dictbench.adapters.transcript.transcript_record`): ``{"text": ...}``, or
``{"status": "unsupported"}``, ``{"status": "failed", "error": ...}``, and the rig fields
``capture_complete`` and ``edit_actions``. The default ``output = "text"`` is the text.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import re
import selectors
import shlex
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from ..errors import CaptureError
from ..model import Product, Suite
from ..rig.offline import namespace_problem, offline_argv
from .base import AdapterOptions
from .live import CaptureRequest, LiveAdapter
from .process_groups import tracked
from .settings import Settings

__all__ = ["CommandTranscriber", "command_adapter", "expand_argv", "parse_command"]

#: Seconds a command may run before it is killed (``timeout_s``).
DEFAULT_TIMEOUT_S = 300.0

_PLACEHOLDER = re.compile(r"\{(audio|locale|case_id|context|seed|target)\}")
#: Characters of stderr quoted in an error message or kept with an empty capture.
_STDERR_CHARS = 300
#: Seconds to wait for the end of stdout once the command itself has exited: a
#: grandchild it left running may hold the pipe open.
_EOF_GRACE_S = 1.0
#: Seconds to wait for the killed command to be reaped.
_REAP_S = 5.0


def parse_command(value: Any, settings: Settings) -> list[str]:
    """The argv template: a TOML list of strings, or one string split once with shlex."""
    if isinstance(value, str):
        try:
            argv = shlex.split(value)
        except ValueError as exc:
            raise settings.error(f"[settings] command cannot be split: {exc}") from None
    elif isinstance(value, list) and all(isinstance(part, str) for part in value):
        argv = list(value)
    else:
        raise settings.error("[settings] command must be a string or a list of strings")
    if not argv or not argv[0]:
        raise settings.error("[settings] command is empty")
    return argv


def expand_argv(template: Sequence[str], values: Mapping[str, str]) -> list[str]:
    """Substitute ``{audio}``, ``{locale}``, ``{case_id}``, ``{context}`` in one pass.

    Example::

        >>> expand_argv(["asr", "--in={audio}", "{locale}"], {"audio": "/a {locale}.wav",
        ...             "locale": "en-US", "case_id": "c1", "context": ""})
        ['asr', '--in=/a {locale}.wav', 'en-US']
    """
    return [_PLACEHOLDER.sub(lambda m: values[m.group(1)], part) for part in template]


class CommandTranscriber:
    """Runs the command once per request (see module doc)."""

    decodes_audio = False

    def __init__(self, argv: Sequence[str], *, timeout_s: float, cwd: Path,
                 describe: Mapping[str, Any], json_output: bool = False) -> None:
        self.argv = list(argv)
        self.timeout_s = timeout_s
        self.cwd = cwd
        self.json_output = json_output
        self._describe = dict(describe)

    def describe(self) -> Mapping[str, Any]:
        return self._describe

    def transcribe(self, request: CaptureRequest,
                   wrap: Callable[[list[str]], list[str]] | None = None
                   ) -> str | dict[str, Any]:
        def path(value: Path | None) -> str:
            return "" if value is None else str(value)

        argv = expand_argv(self.argv, {"audio": path(request.audio), "locale": request.locale,
                                       "case_id": request.case_id, "context": request.context,
                                       "seed": path(request.seed),
                                       "target": path(request.target)})
        if wrap is not None:
            argv = wrap(argv)
        stdout, stderr, code = self._run(argv)
        if code != 0:
            raise CaptureError(f"command exited with status {code}{_last_line(stderr)}")
        try:
            text = stdout.decode("utf-8").strip()
        except UnicodeDecodeError as exc:
            raise CaptureError(f"command output is not valid UTF-8 (offset {exc.start})"
                               ) from None
        if not self.json_output:
            tail = _stderr_tail(stderr)
            return {"text": "", "stderr": tail} if not text and tail else text
        try:
            record = json.loads(text)
        except json.JSONDecodeError as exc:
            raise CaptureError(f"command output is not one JSON object (output = \"json\"): "
                               f"{exc.msg} at offset {exc.pos}") from None
        if not isinstance(record, dict):
            raise CaptureError("command output is JSON but not an object (output = \"json\")")
        tail = _stderr_tail(stderr)
        if record.get("text") == "" and tail and "stderr" not in record:
            record["stderr"] = tail
        return record

    def transcribe_offline(self, request: CaptureRequest) -> str | dict[str, Any]:
        """The same capture inside a network namespace with no network (offline audit)."""
        problem = namespace_problem()
        if problem is not None:
            raise CaptureError(problem)
        return self.transcribe(request, wrap=offline_argv)

    def _run(self, argv: list[str]) -> tuple[bytes, bytes, int]:
        """Run ``argv``; stdout, stderr and exit code. Never waits past ``timeout_s``
        (plus a short grace to reap), whatever the command's children do."""
        if not self.cwd.is_dir():
            raise CaptureError(f"the command's working folder {self.cwd} does not exist")
        try:
            process = subprocess.Popen(
                argv, cwd=self.cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                stderr=subprocess.PIPE, start_new_session=True, preexec_fn=_die_with_run)
        except OSError as exc:
            program = Path(argv[0])
            if "/" not in argv[0] and os.sep not in argv[0]:
                where = "looked in the folders on PATH"
            elif program.is_absolute():
                where = f"looked for {program}"
            else:
                where = (f"looked for {(self.cwd / program).resolve()}; a relative path "
                         "starts from the product file's folder")
            raise CaptureError(f"cannot start command {argv[0]!r} ({where}): "
                               f"{exc.strerror or type(exc).__name__}") from None
        try:
            with tracked(process.pid):  # its session's group: ended if the run is stopped
                stdout, stderr = _read_until(process, time.monotonic() + self.timeout_s)
                code = process.poll()
        finally:
            _kill_group(process)
        if code is None:
            raise CaptureError(f"command timed out after {self.timeout_s:g} s")
        return stdout, stderr, code


def command_adapter(product: Product, suite: Suite, options: AdapterOptions) -> LiveAdapter:
    """Adapter factory for ``adapter = "command"``."""
    settings = Settings(product, {"command", "timeout_s", "output"})
    argv = parse_command(settings.get("command", (str, list)), settings)
    timeout_s = settings.positive("timeout_s", DEFAULT_TIMEOUT_S)
    output = settings.get("output", str, "text")
    if output not in ("text", "json"):
        raise settings.error(f"[settings] output must be \"text\" or \"json\", not {output!r}")
    describe = {
        "engine": settings.get("engine", str, Path(argv[0]).name),
        "engine_version": settings.get("engine_version", str, None),
        "model": settings.get("model", str, None),
    }
    cwd = product.path.parent.resolve()

    def make() -> CommandTranscriber:
        return CommandTranscriber(argv, timeout_s=timeout_s, cwd=cwd, describe=describe,
                                  json_output=output == "json")

    return LiveAdapter(product, suite, options, make)


def _last_line(stderr: bytes) -> str:
    lines = [line.strip() for line in stderr.decode("utf-8", "replace").splitlines()]
    lines = [line for line in lines if line]
    if not lines:
        return ""
    last = lines[-1]
    if len(last) > _STDERR_CHARS:
        last = last[:_STDERR_CHARS] + "..."
    return f"; stderr: {last}"


def _stderr_tail(stderr: bytes) -> str:
    """The last non-blank lines of ``stderr``, at most ``_STDERR_CHARS`` characters (the
    older part cut): what an empty capture keeps of why it is empty."""
    lines = [line.rstrip() for line in stderr.decode("utf-8", "replace").splitlines()]
    tail = "\n".join(line for line in lines if line.strip())
    return tail[-_STDERR_CHARS:].lstrip()


def _read_until(process: subprocess.Popen[bytes], deadline: float) -> tuple[bytes, bytes]:
    """Read stdout and stderr until both close, the deadline passes, or the command has
    exited and its pipes stay open (a grandchild holds them) for ``_EOF_GRACE_S``."""
    assert process.stdout is not None and process.stderr is not None
    chunks: dict[int, list[bytes]] = {process.stdout.fileno(): [], process.stderr.fileno(): []}
    exited_at: float | None = None
    with selectors.DefaultSelector() as selector:
        for pipe in (process.stdout, process.stderr):
            selector.register(pipe, selectors.EVENT_READ)
        while selector.get_map():
            now = time.monotonic()
            if exited_at is None and process.poll() is not None:
                exited_at = now
            limit = deadline if exited_at is None else min(deadline, exited_at + _EOF_GRACE_S)
            if now >= limit:
                break
            for key, _ in selector.select(timeout=min(limit - now, 0.05)):
                data = os.read(key.fd, 65536)
                if data:
                    chunks[key.fd].append(data)
                else:
                    selector.unregister(key.fileobj)
    if process.poll() is None and deadline > time.monotonic():
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=deadline - time.monotonic())
    return (b"".join(chunks[process.stdout.fileno()]),
            b"".join(chunks[process.stderr.fileno()]))


def _die_with_run() -> None:
    """In the started command, before it runs: on Linux, be killed (SIGKILL) when the
    run that started it dies, even by SIGKILL (``prctl(PR_SET_PDEATHSIG)``). The command
    has a session of its own (so a timeout can kill all of it), which a kill of the
    run's process group does not reach; this keeps it from outliving the run. The
    setting survives ``exec`` (``unshare`` and the offline audit's loopback step exec
    the product in the same process). Elsewhere a no-op."""
    if _PRCTL is not None:
        _PRCTL(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)


def _load_prctl() -> Any:
    if not sys.platform.startswith("linux"):
        return None
    try:
        return ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None


_PR_SET_PDEATHSIG = 1
#: libc's prctl, looked up once in the parent (nothing is loaded between fork and exec).
_PRCTL = _load_prctl()


def _kill_group(process: subprocess.Popen[bytes]) -> None:
    """Kill the command and anything it left in its session, close the pipes and reap it
    within ``_REAP_S`` (a process stuck in the kernel is left to the OS)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
    for pipe in (process.stdout, process.stderr):
        if pipe is not None:
            pipe.close()
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(timeout=_REAP_S)
