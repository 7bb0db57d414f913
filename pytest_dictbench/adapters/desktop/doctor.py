"""``dictbench desktop doctor``: can this machine run the desktop rig for a product?

Checks the display, the input device and audio route, the permissions and the app's
binary through the backend's own checks (the ones a run makes before its first item),
and prints each problem with how to fix it. Exit status 0 when nothing is missing.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from ...errors import DictbenchError
from ...products import load_product
from .config import DesktopConfig

__all__ = ["add_parser", "doctor"]


def _config(product_file: str | None, platform: str | None) -> DesktopConfig:
    if product_file:
        path = Path(product_file)
        return DesktopConfig.from_product(load_product(path.stem, path.parent))
    from .config import DEFAULT_INPUT
    from .xkeys import parse_hotkey

    chosen = platform or ("macos" if sys.platform == "darwin" else "linux")
    return DesktopConfig(platform=chosen, app=(), hotkey=parse_hotkey("F9"),
                         relaunch="never", input_device=DEFAULT_INPUT[chosen],
                         hotkey_grab_check=False)


def doctor(product_file: str | None, platform: str | None = None,
           print_line: Callable[[str], object] = print) -> int:
    """Undo what a killed run left, then print the checks' findings for
    ``product_file`` (or the bare platform); 0 if none."""
    from . import make_backend

    try:
        config = _config(product_file, platform)
    except DictbenchError as exc:
        print_line(f"FAIL product: {exc}")
        return 1
    app: Sequence[str] = config.app
    backend = make_backend(config)
    print_line(f"desktop rig on {config.platform}: input device {config.input_device!r}, "
               f"app {' '.join(app) or '(none given)'}")
    problems = backend.problems(app, config.hotkey if product_file else None)
    held = getattr(backend, "busy", None)
    holder = held() if callable(held) and not problems else None
    if holder:
        problems.append(holder + " (leftovers not checked while it runs)")
    elif not problems and hasattr(backend, "leftovers"):
        for line in backend.leftovers():  # type: ignore[attr-defined]
            print_line(f"UNDONE {line}")
        if config.platform == "macos":
            problems += backend.leftover_problems()  # type: ignore[attr-defined]
        else:
            from .linux_doctor import machine_problems, versions

            found, notes = machine_problems(backend, config)  # type: ignore[arg-type]
            problems += found
            for line in versions(backend, config.record_screen):  # type: ignore[arg-type]
                print_line(f"FOUND {line}")
            for note in notes:
                print_line(f"NOTE {note}")
        backend.close()
    for problem in problems:
        print_line(f"MISSING {problem}")
    if not problems:
        print_line("OK: display, input device, audio route and app are in place, and no "
                   "earlier run left anything")
    return 1 if problems else 0


def reset(product_file: str | None, platform: str | None = None,
          print_line: Callable[[str], object] = print) -> int:
    """Undo what a killed run left (its journal); 1 when a run holds the rig now."""
    from . import make_backend

    try:
        config = _config(product_file, platform)
    except DictbenchError as exc:
        print_line(f"FAIL product: {exc}")
        return 1
    backend = make_backend(config)
    held = getattr(backend, "busy", None)
    holder = held() if callable(held) else None
    if holder:
        print_line(f"BUSY {holder}: nothing undone")
        return 1
    undone = backend.leftovers() if hasattr(backend, "leftovers") else []  # type: ignore[attr-defined]
    for line in undone:
        print_line(f"UNDONE {line}")
    if not undone:
        print_line("nothing to undo: no journal of a killed run on this display")
    return 0


def add_parser(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Add ``desktop doctor`` and ``desktop reset`` to the ``dictbench`` command."""
    desktop = commands.add_parser("desktop", help="the desktop dictation rig")
    sub = desktop.add_subparsers(dest="desktop_command", required=True)
    for name, run, text in (("doctor", doctor, "check this machine for the desktop rig "
                             "(undoing what a killed run left)"),
                            ("reset", reset, "undo what a killed run left on this machine")):
        command = sub.add_parser(name, help=text)
        command.add_argument("product", nargs="?", help="a desktop product file (.toml)")
        command.add_argument("--platform", choices=("linux", "macos"),
                             help="without a product file: the platform to check for "
                                  "(default: this machine's)")
        command.set_defaults(run=lambda args, run=run: run(args.product, args.platform))
