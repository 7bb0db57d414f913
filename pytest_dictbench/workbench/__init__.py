"""The benchmark author's workbench: draft a suite from recordings, review it in a local
page, decide judge disagreements, publish aggregates and check for leaks.

Each job is a ``dictbench`` subcommand (see :mod:`pytest_dictbench.cli`); this package
reads and writes suites with the same loaders and writers as the plugin.
"""
