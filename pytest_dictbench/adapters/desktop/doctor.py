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


def doctor(product_file: str | None, platform: str | None = None,
           print_line: Callable[[str], object] = print) -> int:
    """Print the checks' findings for ``product_file`` (or the bare platform); 0 if none."""
    from . import make_backend

    app: Sequence[str] = ()
    if product_file:
        try:
            path = Path(product_file)
            product = load_product(path.stem, path.parent)
            config = DesktopConfig.from_product(product)
        except DictbenchError as exc:
            print_line(f"FAIL product: {exc}")
            return 1
        app = config.app
    else:
        from .config import DEFAULT_INPUT
        from .xkeys import parse_hotkey

        chosen = platform or ("macos" if sys.platform == "darwin" else "linux")
        config = DesktopConfig(platform=chosen, app=(), hotkey=parse_hotkey("F9"),
                               relaunch="never", input_device=DEFAULT_INPUT[chosen])
    backend = make_backend(config)
    problems = backend.problems(app)
    print_line(f"desktop rig on {config.platform}: input device {config.input_device!r}, "
               f"app {' '.join(app) or '(none given)'}")
    for problem in problems:
        print_line(f"MISSING {problem}")
    if not problems:
        print_line("OK: display, input device, audio route and app are in place")
    return 1 if problems else 0


def add_parser(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Add ``desktop doctor`` to the ``dictbench`` command."""
    desktop = commands.add_parser("desktop", help="the desktop dictation rig")
    sub = desktop.add_subparsers(dest="desktop_command", required=True)
    check = sub.add_parser("doctor", help="check this machine for the desktop rig")
    check.add_argument("product", nargs="?", help="a desktop product file (.toml)")
    check.add_argument("--platform", choices=("linux", "macos"),
                       help="without a product file: the platform to check for "
                            "(default: this machine's)")
    check.set_defaults(run=lambda args: doctor(args.product, args.platform))
