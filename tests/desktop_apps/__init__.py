"""Dictation apps for the desktop rig's tests: a real one (Whisper tiny.en) and a
scripted one. Both listen to the default source, wait for a global hotkey and type with
XTest into the focused window, as a desktop dictation app does."""
