"""Live-adapter overhead: faster-whisper called directly vs the whisper LiveAdapter.

Ten English utterances are synthesized with espeak-ng into a temporary folder. Each
round transcribes all of them both ways:

(a) direct: ``read_audio(path, 16000)`` + ``model.transcribe(...)`` + join the segments;
(b) adapter: ``LiveAdapter.get(case, 1)`` with an empty capture cache, so each item is
    a real capture (audio hashing, timing, metadata, the atomic cache update with fsync
    under the file lock).

The two are interleaved utterance by utterance in ABBA order (direct first on even
utterances, adapter first on odd ones), so that load from other processes on a shared
machine falls on both alike. Both use the same loaded model object. Model loading (and
the adapter's one-off model folder hash, computed with it) is excluded from both
timings, and so is warm-up: one untimed transcription warms the shared model before the
first round, and the adapter runs with ``warmup=False``. The adapter's own cost is also
measured alone, with a transcriber that answers instantly. Target: ratio <= 1.10.

    python benchmarks/bench_whisper_overhead.py [--rounds 3] [--beam-size 5]
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from pytest_dictbench.adapters.base import AdapterOptions
from pytest_dictbench.adapters.live import LiveAdapter
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


def direct_one(model: Any, path: Path, config: WhisperConfig) -> float:
    start = time.perf_counter()
    samples, _ = read_audio(path, target_rate=16000)
    segments, _ = model.transcribe(samples, language=config.language,
                                   beam_size=config.beam_size)
    "".join(s.text for s in segments).strip()
    return time.perf_counter() - start


def adapter_one(adapter: LiveAdapter, case: Case) -> float:
    start = time.perf_counter()
    output = adapter.get(case, 1)
    elapsed = time.perf_counter() - start
    assert output is not None and output.status == "complete", output
    return elapsed


def one_round(model: Any, config: WhisperConfig, product: Product, suite: Suite,
              paths: list[Path]) -> tuple[float, float]:
    """(direct seconds, adapter seconds) over all utterances, interleaved ABBA."""
    shutil.rmtree(product.outputs_dir, ignore_errors=True)
    adapter = whisper_adapter(product, suite, AdapterOptions(warmup=False))
    direct = through_adapter = 0.0
    for n, (case, path) in enumerate(zip(suite.cases, paths, strict=True)):
        if n % 2 == 0:
            direct += direct_one(model, path, config)
            through_adapter += adapter_one(adapter, case)
        else:
            through_adapter += adapter_one(adapter, case)
            direct += direct_one(model, path, config)
    return direct, through_adapter


class _Instant:
    decodes_audio = True

    def describe(self) -> dict[str, Any]:
        return {"engine": "instant"}

    def transcribe(self, request: Any) -> str:
        return "text"


def adapter_cost_ms(product: Product, suite: Suite) -> float:
    """Milliseconds per item the live adapter adds around an instant transcriber."""
    shutil.rmtree(product.outputs_dir, ignore_errors=True)
    adapter = LiveAdapter(product, suite, AdapterOptions(warmup=False), _Instant)
    return 1000 * sum(adapter_one(adapter, case) for case in suite.cases) / len(suite.cases)


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
        direct_one(model, warmup, config)  # untimed warm-up of the shared model
        audio_s = sum(read_audio(p)[0].shape[0] / read_audio(p)[1] for p in paths)
        rounds = [one_round(model, config, product, suite, paths) for _ in range(args.rounds)]
        direct = [r[0] for r in rounds]
        adapter = [r[1] for r in rounds]
        d, a = sum(direct), sum(adapter)
        print(f"utterances: {len(paths)}, audio {audio_s:.1f} s; beam {args.beam_size}, "
              f"{args.threads} threads, int8; model load + hash {load_s:.2f} s (excluded)")
        print(f"direct  rounds: {', '.join(f'{x:.3f}' for x in direct)} s  "
              f"(RTF {d / args.rounds / audio_s:.3f})")
        print(f"adapter rounds: {', '.join(f'{x:.3f}' for x in adapter)} s  "
              f"(RTF {a / args.rounds / audio_s:.3f})")
        print(f"ratio adapter/direct: {a / d:.3f} over all rounds; per round "
              f"{', '.join(f'{y / x:.3f}' for x, y in rounds)} (target <= 1.10)")
        print(f"adapter bookkeeping alone: {adapter_cost_ms(product, suite):.2f} ms per item "
              "(instant transcriber)")

if __name__ == "__main__":
    main()
