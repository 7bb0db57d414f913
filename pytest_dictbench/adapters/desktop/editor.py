"""The Linux destination document: a minimal plain-text editor window of the rig's own.

Run as ``python -m pytest_dictbench.adapters.desktop.editor TITLE``. It opens one Tk
window with one text area, takes the keyboard focus, and reports on standard output, as
JSON lines, first ``{"window": <X window id>}``, then a snapshot
``{"at": <time.monotonic()>, "text": ..., "focused": ...}`` whenever the text or the
focus changes (it looks every 10 ms) and on each line sent to standard input; the end of
standard input closes it.
On Linux ``time.monotonic`` is one clock for every process, so the rig compares these
times with its own.
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


class Editor:
    """One window, one text area; reports its contents (see module doc)."""

    def __init__(self, title: str) -> None:
        self.root = tk.Tk(className="dictbench-document")
        self.root.title(title)
        self.root.geometry("640x360+20+20")
        self.text = tk.Text(self.root, wrap="word", undo=False)
        self.text.pack(fill="both", expand=True)
        self._last: tuple[str, bool] | None = None
        self._requests: list[str] = []
        self.root.wait_visibility()  # mapped: only a viewable window can take the focus
        self.root.update()
        self.window = int(self.root.wm_frame(), 16)
        self.x = display.Display()
        self.take_focus()

    def take_focus(self) -> None:
        """Give the window the X input focus (Tk alone does not, without a window
        manager) and the text area Tk's focus."""
        self.text.focus_set()
        self.x.create_resource_object("window", self.window).set_input_focus(
            X.RevertToParent, X.CurrentTime)
        self.x.sync()

    def focused(self) -> bool:
        """Whether the X input focus is on a window of this editor's Tk connection
        (Tk moves it between its frame and windows of its own, and its own idea of the
        focus misses a focus given back; X ids carry the creating client's base)."""
        window = getattr(self.x.get_input_focus().focus, "id", None)
        mask = self.x.display.info.resource_id_mask
        return isinstance(window, int) and window & ~mask == self.window & ~mask

    def state(self) -> tuple[str, bool]:
        return self.text.get("1.0", "end-1c"), self.focused()

    def emit(self, obj: dict[str, Any]) -> None:
        sys.stdout.write(json.dumps(obj, ensure_ascii=False) + "\n")
        sys.stdout.flush()

    def poll(self) -> None:
        while self._requests:
            request = self._requests.pop(0)
            if request == "eof":
                self.root.destroy()
                return
            self._last = None  # report now
        state = self.state()
        if state[1] and self.root.focus_displayof() is None:
            # X focus is ours but Tk forgot it (a key grab's FocusOut, e.g. an app's
            # global hotkey): without this Tk drops the keys typed next
            self.text.focus_force()
        if state != self._last:
            self._last = state
            self.emit({"at": time.monotonic(), "text": state[0], "focused": state[1]})
        self.root.after(POLL_MS, self.poll)

    def listen(self) -> None:
        for line in sys.stdin:
            self._requests.append(line.strip())
        self._requests.append("eof")

    def run(self) -> None:
        self.emit({"window": self.window})
        threading.Thread(target=self.listen, daemon=True).start()
        self.root.after(0, self.poll)
        self.root.mainloop()


def main() -> None:
    Editor(sys.argv[1] if len(sys.argv) > 1 else "dictbench document").run()


if __name__ == "__main__":
    main()
