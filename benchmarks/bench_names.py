"""Speed of the names / numbers / coined-word extraction against bare sudachipy.

Both sides see the same ``--texts`` journal-length texts (seeded shuffles of the
sentences of ``cases/ja-journal``, 150-400 characters each):

- baseline: the same sudachipy tokenizer (core dictionary, mode B) tokenizing each
  folded text and reading every morpheme's surface;
- ours: :func:`pytest_dictbench.methods.keypoints.extract_names` (fold, tokenize,
  build tokens, read numbers with counters, names and coined words).

Times are CPU seconds of this process (``time.process_time``), each side timed
``--rounds`` times, interleaved, fastest round kept. Prints texts per second for each
and the ratio ours / baseline (target: >= 0.5).

Run: ``python benchmarks/bench_names.py [--texts N] [--seed S] [--rounds R]``
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

from pytest_dictbench.methods.keypoints import extract_names
from pytest_dictbench.text.japanese import _tokenizer, fold

CASES = Path(__file__).resolve().parents[1] / "cases" / "ja-journal" / "cases.jsonl"


def make_texts(count: int, seed: int) -> list[str]:
    """``count`` texts of 150-400 characters made of the suite's sentences."""
    sentences = []
    for line in CASES.read_text(encoding="utf-8").splitlines():
        sentences += [s + "。" for s in json.loads(line)["reference"].split("。") if s]
    rng = random.Random(seed)
    texts = []
    for _ in range(count):
        text = ""
        target = rng.randint(150, 400)
        while len(text) < target:
            text += rng.choice(sentences)
        texts.append(text)
    return texts


def bare(texts: list[str]) -> int:
    tokenizer = _tokenizer()
    n = 0
    for text in texts:
        for line in fold(text).split("\n"):
            n += sum(len(m.surface()) for m in tokenizer.tokenize(line))
    return n


def ours(texts: list[str]) -> int:
    return sum(len(extract_names(text).items) for text in texts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--texts", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    texts = make_texts(args.texts, args.seed)
    bare(texts[:20])  # load the dictionary outside the timings
    best = {"bare": float("inf"), "ours": float("inf")}
    for _ in range(args.rounds):
        for name, run in (("bare", bare), ("ours", ours)):
            start = time.process_time()
            run(texts)
            best[name] = min(best[name], time.process_time() - start)
    chars = sum(map(len, texts))
    print(f"{args.texts} texts, {chars} characters, best of {args.rounds} rounds (CPU s)")
    for name, label in (("bare", "bare sudachipy tokenization"), ("ours", "names extraction")):
        print(f"  {label:30s} {best[name]:7.3f} s  {args.texts / best[name]:8.0f} texts/s")
    ratio = best["bare"] / best["ours"]
    print(f"speed ratio ours / bare: {ratio:.2f} (target >= 0.5): "
          f"{'OK' if ratio >= 0.5 else 'BELOW TARGET'}")
    if ratio < 0.5:
        sys.exit(f"speed ratio {ratio:.2f} misses its target (>= 0.5)")


if __name__ == "__main__":
    main()
