"""Dictation apps for the desktop rig's tests: a real one (Whisper tiny.en) and a
scripted one. Both listen to the default source, wait for a global hotkey and type with
XTest into the focused window, as a desktop dictation app does."""

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

#: The line both apps print once they are ready for their hotkey: the hotkey grabbed and
#: the microphone delivering samples (the tests' ``ready_log``).
READY = "ready for dictation:"


def rig_module(name: str) -> ModuleType:
    """A standalone module of the desktop rig (``xkeys``, ``pulse``), loaded from its
    file: importing it through the package would import every adapter kind first
    (seconds of start-up, and a hotkey grabbed late on a loaded machine)."""
    key = f"dictbench_rig_{name}"
    if key not in sys.modules:
        path = Path(__file__).resolve().parents[2] / "pytest_dictbench" / "adapters" / \
            "desktop" / f"{name}.py"
        spec = importlib.util.spec_from_file_location(key, path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[key] = module
        spec.loader.exec_module(module)
    return sys.modules[key]
