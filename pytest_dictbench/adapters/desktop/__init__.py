"""``desktop``: a dictation app driven by a rig (see ``docs/desktop.md``)."""
