"""A Python child process that answers pickled requests in order: the report helper's
(``report.helper``) and the store recorder's (``report.recorder``).

The parent sends ``(name, arguments)`` pickled on the child's stdin; the child answers
each with ``("ok", value)`` or ``("error", words)`` pickled on its stdout, in order. A
thread of the parent reads the answers as they come, so a wait for one never blocks past
its timeout. The child runs this interpreter with this process's import path (an
in-process pytester run, a ``PYTHONPATH`` a test set) at the lowest CPU priority, so
that the tests come first, and it ends when its stdin closes: it never outlives the run.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import queue
import subprocess
import sys
import threading
from typing import IO, Any

__all__ = ["NICENESS", "Child", "ChildEnd", "wait_for_children"]

#: How much a child yields the CPU to the run's own process (``os.nice``): on a machine
#: of two cores, the tests and a child's imports and work would otherwise share them
#: alike, and the tests would wait. While the run waits for an answer, the child has a
#: core to itself all the same.
NICENESS = 19


class Child:
    """The parent's end of a child process (see module doc)."""

    def __init__(self, process: subprocess.Popen[bytes]) -> None:
        self.process = process
        #: The answers read off the child's stdout (``None`` once it ended).
        self._answers: queue.SimpleQueue[Any] = queue.SimpleQueue()
        if process.stdout is not None:
            threading.Thread(target=_read_answers, args=(process.stdout, self._answers),
                             name=f"dictbench-child-{process.pid}", daemon=True).start()

    @classmethod
    def spawn(cls, module: str, pass_fds: tuple[int, ...] = ()) -> Child | None:
        """Start ``python -m module`` (inheriting the file descriptors ``pass_fds``);
        ``None`` when it cannot start."""
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
        try:
            process = subprocess.Popen([sys.executable, "-m", module], env=env,
                                       stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                       stderr=subprocess.DEVNULL, pass_fds=pass_fds)
        except (OSError, ValueError):  # ValueError: no pass_fds here (Windows)
            return None
        return cls(process)

    def send(self, name: str, args: Any) -> bool:
        """Send one request; False when it cannot be sent (the child is gone)."""
        stdin = self.process.stdin
        if stdin is None:
            return False
        try:
            pickle.dump((name, args), stdin)
            stdin.flush()
        except (OSError, pickle.PickleError, ValueError, TypeError, AttributeError):
            return False
        return True

    def receive(self, timeout: float) -> tuple[bool, Any] | None:
        """The next answer as ``(ok, value)`` (``value`` is the error's words when not
        ok); ``None`` when the child ended or said nothing within ``timeout`` s."""
        try:
            answer = self._answers.get(timeout=timeout)
        except queue.Empty:
            return None
        if not (isinstance(answer, tuple) and len(answer) == 2):
            return None
        status, value = answer
        return status == "ok", value

    def close(self, wait: bool = True) -> None:
        """End the child (closing its stdin) and wait for it to end, killing it if it
        does not end promptly; ``wait=False`` leaves the wait to
        :func:`wait_for_children`, so that several children end side by side."""
        if self.process.stdin is not None:
            with contextlib.suppress(OSError):  # a dead child's pipe is broken
                self.process.stdin.close()
        _ENDING.append(self.process)
        if wait:
            wait_for_children()


#: Children told to end and not yet waited for.
_ENDING: list[subprocess.Popen[bytes]] = []


def wait_for_children() -> None:
    """Wait for every child told to end (killing one that does not within 5 s), then
    close its stdout (not before: the thread reading it holds it until the end)."""
    while _ENDING:
        process = _ENDING.pop()
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        if process.stdout is not None:
            with contextlib.suppress(OSError):
                process.stdout.close()


def _read_answers(stream: IO[bytes], answers: queue.SimpleQueue[Any]) -> None:
    """Put each pickled answer on ``stream`` into ``answers``; ``None`` once it ends (or
    holds something that is no answer)."""
    while True:
        try:
            answer = pickle.load(stream)
        except Exception:  # EOF, a closed pipe, garbage: no more answers
            answers.put(None)
            return
        answers.put(answer if answer is not None else ("error", "no answer"))


class ChildEnd:
    """The child's end: its requests on stdin, its answers on stdout (nothing printed
    may reach the answers: ``print`` goes to stderr from here on)."""

    def __init__(self) -> None:
        self._requests, self._answers = sys.stdin.buffer, sys.stdout.buffer
        sys.stdout = sys.stderr
        with contextlib.suppress(OSError):  # background work: the tests go first
            os.nice(NICENESS)

    def request(self) -> tuple[str, Any]:
        """The next request; at the end of stdin, the run is over and the child ends
        at once (without tearing down what it imported)."""
        try:
            name, args = pickle.load(self._requests)
        except EOFError:
            os._exit(0)
        return name, args

    def answer(self, ok: bool, value: Any) -> None:
        """Send one answer, flushed at once (ending right after loses nothing)."""
        pickle.dump(("ok" if ok else "error", value), self._answers)
        self._answers.flush()

    def serve(self, answer: Any) -> None:
        """Answer every request with ``answer(name, args)`` (an exception's words go
        back as the error) until stdin closes."""
        while True:
            name, args = self.request()
            try:
                value = answer(name, args)
            except Exception as exc:  # the parent sees the error and goes on without
                self.answer(False, f"{type(exc).__name__}: {exc}")
            else:
                self.answer(True, value)
