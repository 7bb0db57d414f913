"""Live-adapter overhead: faster-whisper called directly vs the whisper LiveAdapter.

Ten English utterances are synthesized with espeak-ng into a temporary folder. Then, in
alternating rounds on the same files:

(a) direct: ``read_audio(path, 16000)`` + ``model.transcribe(...)`` + join the segments,
    in a plain loop;
(b) adapter: ``LiveAdapter.get(case, 1)`` for every case, with an empty capture cache,
    so each item is a real capture (audio hashing, timing, metadata, the atomic cache
    update with fsync under the file lock).

Both use the same loaded model object. Model loading (and the adapter's one-off model
folder hash, computed with it) is excluded from both timings, and so is warm-up: one
untimed transcription warms the shared model before any round, and the adapter runs
with ``warmup=False``. Target: ratio adapter / direct <= 1.10.

    python benchmarks/bench_whisper_overhead.py [--rounds 3] [--beam-size 5]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from pytest_dictbench.adapters.base import AdapterOptions
from pytest_dictbench.adapters.whisper import WhisperConfig, WhisperTranscriber, whisper_adapter
from pytest_dictbench.audio.io import read_audio
from pytest_dictbench.model import Case, Product, Suite

UTTERANCES = [
    "Could you move our call to Thursday afternoon?",
    "The invoice total is four hundred and twelve dollars.",
    "Remind me to water the plants before I leave.",
    "Our train departs from platform nine at half past seven.",
    "Please add eggs, butter and flour to the shopping list.",
    "The quarterly numbers look better than we expected.",
    "I will be working from home on Monday and Tuesday.",
    "Send the slides to Martin once the review is finished.",
    "The printer on the third floor is out of paper again.",
    "Let's meet at the coffee shop near the station at noon.",
]
WARMUP_TEXT = "This sentence only warms up the model."


def synthesize(folder: Path) -> list[Path]:
    if shutil.which("espeak-ng") is None:
        sys.exit("espeak-ng is not installed")
    paths = []
    for n, text in enumerate([WARMUP_TEXT, *UTTERANCES]):
        path = folder / f"u{n:02d}.wav"
        subprocess.run(["espeak-ng", "-v", "en-us", "-w", str(path), text], check=True)
        paths.append(path)
    return paths


def direct_round(model: Any, paths: list[Path], config: WhisperConfig) -> float:
    start = time.perf_counter()
    for path in paths:
        samples, _ = read_audio(path, target_rate=16000)
        segments, _ = model.transcribe(samples, language=config.language,
                                       beam_size=config.beam_size)
        "".join(s.text for s in segments).strip()
    return time.perf_counter() - start


def adapter_round(product: Product, suite: Suite) -> float:
    shutil.rmtree(product.outputs_dir, ignore_errors=True)
    adapter = whisper_adapter(product, suite, AdapterOptions(warmup=False))
    start = time.perf_counter()
    for case in suite.cases:
        output = adapter.get(case, 1)
        assert output is not None and output.status == "complete", output
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--beam-size", type=int, default=5)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="dictbench-bench-") as tmp:
        root = Path(tmp)
        warmup, *paths = synthesize(root)
        cases = tuple(Case(p.stem, {"id": p.stem, "audio": p.name}, n)
                      for n, p in enumerate(paths, start=1))
        suite = Suite("bench", "1", "bench", "error_rate", "en-US", "canary-bench", root, cases)
        settings = {"language": "en", "beam_size": args.beam_size, "compute_type": "int8",
                    "cpu_threads": args.threads}
        product = Product("bench-whisper", "1", "whisper", root / "products" / "w.toml",
                          settings)
        (root / "products").mkdir()
        config = WhisperConfig.from_product(product)
        load_start = time.perf_counter()
        model = WhisperTranscriber(config).model  # load + model hash: excluded from both
        load_s = time.perf_counter() - load_start
        direct_round(model, [warmup], config)  # untimed warm-up of the shared model
        audio_s = sum(read_audio(p)[0].shape[0] / read_audio(p)[1] for p in paths)
        direct, adapter = [], []
        for _ in range(args.rounds):
            direct.append(direct_round(model, paths, config))
            adapter.append(adapter_round(product, suite))
        d, a = statistics.median(direct), statistics.median(adapter)
        print(f"utterances: {len(paths)}, audio {audio_s:.1f} s; beam {args.beam_size}, "
              f"{args.threads} threads, int8; model load + hash {load_s:.2f} s (excluded)")
        print(f"direct  rounds: {', '.join(f'{x:.3f}' for x in direct)} s  median {d:.3f} s"
              f"  (RTF {d / audio_s:.3f})")
        print(f"adapter rounds: {', '.join(f'{x:.3f}' for x in adapter)} s  median {a:.3f} s"
              f"  (RTF {a / audio_s:.3f})")
        print(f"ratio adapter/direct: {a / d:.3f} (target <= 1.10)")


if __name__ == "__main__":
    main()
