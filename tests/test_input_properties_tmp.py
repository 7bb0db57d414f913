"""The property tests leave no folder behind in the system's temporary folder."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def test_importing_the_property_tests_creates_no_temporary_folder(tmp_path: Path) -> None:
    """An xdist worker ends without running interpreter-exit finalizers, so a module-level
    temporary folder is left once per worker: the module must create none at import."""
    tests = Path(__file__).parent
    script = ("import os, sys; sys.path.insert(0, sys.argv[1]); "
              "import test_input_properties; os._exit(0)")
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    subprocess.run([sys.executable, "-c", script, str(tests)], check=True, env=env,
                   cwd=tests.parent, timeout=120)
    assert sorted(p.name for p in tmp_path.iterdir()) == []
