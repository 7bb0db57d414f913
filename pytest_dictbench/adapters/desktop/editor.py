"""The Linux destination documents: minimal plain-text editor windows of the rig's own.

Run as a script (``python -P .../editor.py``: it imports only the standard library and
python-xlib, so it starts in a fraction of a second even where importing the whole
package takes seconds): one process (started once per rig, so a fresh document costs a
window, not a Python start) reads commands on standard input and reports on standard
output, as JSON lines:

- ``{"ready": true}`` once it takes commands;
- ``new TITLE``: closes the current document window and opens a new, empty one titled
  ``TITLE``, gives it the keyboard focus, then reports ``{"document": n}``;
- ``close``: closes the current document window;
- while a document is open, a snapshot ``{"document": n, "at": <time.monotonic()>,
  "text": ..., "focused": ...}`` whenever its text or focus changes (it looks every
  10 ms; a loss of focus between two looks is read from X's FocusOut events and said
  as a snapshot without the focus). On Linux ``time.monotonic`` is one clock for
  every process, so the rig compares these times with its own;
- the end of standard input ends the process.
"""

from __future__ import annotations

import json
import sys
import threading
import time
import tkinter as tk
from typing import Any

from Xlib import X, display

POLL_MS = 10
#: A key older than this is not what changed the text (another clock, a stale key).
MAX_KEY_LAG_S = 2.0


class Editor:
    """The document windows (see module doc)."""

    def __init__(self) -> None:
        self.root = tk.Tk(className="dictbench-document")
        self.root.withdraw()
        self.x = display.Display()
        self.window: tk.Toplevel | None = None
        self.text: tk.Text | None = None
        self.frame = 0
        self.number = 0
        self._last: tuple[str, bool] | None = None
        #: X time (ms) of the first key since the last snapshot (see :meth:`changed_at`).
        self._key_ms: int | None = None
        self._last_at = 0.0
        self._requests: list[str] = []
        self._lock = threading.Lock()

    def new(self, title: str) -> None:
        self.close()
        self.number += 1
        self.window = tk.Toplevel(self.root, class_="dictbench-document")
        self.window.title(title)
        self.window.geometry("640x360+20+20")
        self.text = tk.Text(self.window, wrap="word", undo=False)
        self.text.pack(fill="both", expand=True)
        self.text.bind("<Key>", self._keyed, add="+")
        self.window.wait_visibility()  # mapped: only a viewable window can take the focus
        self.window.update()
        self.frame = int(self.window.wm_frame(), 16)
        self.text.focus_set()
        # Tk alone does not give the X input focus without a window manager
        frame = self.x.create_resource_object("window", self.frame)
        frame.set_input_focus(X.RevertToParent, X.CurrentTime)
        # FocusOut events of the document's outermost window (the root's child: the
        # focus on any window inside it leaving is said there) on this connection, so
        # a loss of focus shorter than the poll is still seen (see focus_left)
        outer = frame
        while (tree := outer.query_tree()).parent.id != tree.root.id:
            outer = tree.parent
        outer.change_attributes(event_mask=X.FocusChangeMask)
        self.x.sync()
        self.focus_left()  # what happened while the window was set up does not count
        self._last, self._key_ms = None, None
        self.emit({"document": self.number})

    def close(self) -> None:
        if self.window is not None:
            self.window.destroy()
            self.window, self.text = None, None

    def focused(self) -> bool:
        """Whether the X input focus is on a window of this editor's Tk connection
        (Tk moves it between its frame and windows of its own, and its own idea of the
        focus misses a focus given back; X ids carry the creating client's base)."""
        window = getattr(self.x.get_input_focus().focus, "id", None)
        mask = self.x.display.info.resource_id_mask
        return isinstance(window, int) and window & ~mask == self.frame & ~mask

    def focus_left(self) -> bool:
        """Whether the X input focus left this editor's windows for another client's (or
        none) since the last call, however briefly: a FocusOut of the document's
        outermost window from X, read from the queue, so nothing between two polls is missed. Moves
        within the editor (detail Inferior, Ancestor, Virtual) and the FocusOut a key
        grab causes (mode Grab: an app's global hotkey pressed) are not losses; a move
        while the keyboard is grabbed (mode WhileGrabbed) is."""
        left = False
        while self.x.pending_events():
            event = self.x.next_event()
            if event.type == X.FocusOut and event.mode in (
                    X.NotifyNormal, X.NotifyWhileGrabbed) and event.detail in (
                    X.NotifyNonlinear, X.NotifyNonlinearVirtual):
                left = True
        return left

    def _keyed(self, event: Any) -> None:
        if self._key_ms is None and isinstance(event.time, int):
            self._key_ms = event.time

    def changed_at(self, now: float) -> float:
        """When the text began to change: the X server's time of the first key since
        the last snapshot (its clock is ``CLOCK_MONOTONIC`` in milliseconds, 32 bits),
        so a poll that runs late on a loaded machine does not date the text late; the
        poll's own time for a change no key explains."""
        key, self._key_ms = self._key_ms, None
        if key is not None:
            lag = ((int(now * 1000) - key) % 2**32) / 1000
            if 0 <= lag < MAX_KEY_LAG_S:
                return now - lag
        return now

    def emit(self, obj: dict[str, Any]) -> None:
        sys.stdout.write(json.dumps(obj, ensure_ascii=False) + "\n")
        sys.stdout.flush()

    def poll(self) -> None:
        with self._lock:
            requests, self._requests = self._requests, []
        for request in requests:
            command, _, argument = request.partition(" ")
            if command == "eof":
                self.root.destroy()
                return
            if command == "new":
                self.new(argument)
            elif command == "close":
                self.close()
        if self.text is not None:
            state = (self.text.get("1.0", "end-1c"), self.focused())
            if self.focus_left() and state[1] and self._last is not None:
                # gone and back between two polls: said as a snapshot without the focus
                self._last, self._last_at = (self._last[0], False), time.monotonic()
                self.emit({"document": self.number, "at": self._last_at,
                           "text": self._last[0], "focused": False})
            if state[1] and self.root.focus_displayof() is None:
                # X focus is ours but Tk forgot it (a key grab's FocusOut, e.g. an app's
                # global hotkey): without this Tk drops the keys typed next
                self.text.focus_force()
            changed = self._last is not None and state[0] != self._last[0]
            if not changed:
                self._key_ms = None  # keys that changed nothing (Tk inserts at once)
            if state != self._last:
                at = time.monotonic()
                if changed:  # never before the snapshot already sent
                    at = max(self.changed_at(at), self._last_at)
                self._last, self._last_at = state, at
                self.emit({"document": self.number, "at": at,
                           "text": state[0], "focused": state[1]})
        self.root.after(POLL_MS, self.poll)

    def listen(self) -> None:
        for line in sys.stdin:
            with self._lock:
                self._requests.append(line.rstrip("\n"))
        with self._lock:
            self._requests.append("eof")

    def run(self) -> None:
        threading.Thread(target=self.listen, daemon=True).start()
        self.root.after(0, lambda: self.emit({"ready": True}))
        self.root.after(0, self.poll)
        self.root.mainloop()


def main() -> None:
    Editor().run()


if __name__ == "__main__":
    main()
