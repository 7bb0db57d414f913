"""Dictation apps for the desktop rig's tests: a real one (Whisper tiny.en) and a
scripted one. Both listen to the default source, wait for a global hotkey and type with
XTest into the focused window, as a desktop dictation app does."""

#: The line both apps print once they are ready for their hotkey: the hotkey grabbed and
#: the microphone delivering samples (the tests' ``ready_log``).
READY = "ready for dictation:"
