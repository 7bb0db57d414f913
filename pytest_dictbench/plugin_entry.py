"""The ``pytest11`` entry point (``dictbench``): loads the plugin under its module name.

pytest registers an entry point's module under the entry point's name. When that module
was the plugin itself, naming the plugin the usual ways as well (``-p
pytest_dictbench.plugin``, ``pytest_plugins = ["pytest_dictbench.plugin"]``) registered
one module under a second name, which pytest refuses ("already registered under a
different name"). This module holds no hook: it asks pytest to load
``pytest_dictbench.plugin`` under its module name, which pytest does once however often
it is named. ``-p no:dictbench`` still turns the plugin off (unless it is named too).
It sits outside ``pytest_dictbench/plugin/``: importing a module inside that package would
import the plugin before pytest marks it for assertion rewriting, and every run would
print a ``PytestAssertRewriteWarning``.
"""

pytest_plugins = ["pytest_dictbench.plugin"]
