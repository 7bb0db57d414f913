"""Throughput of the tag-aware alignment against jiwer's plain word alignment.

Both align the same 10,000 seeded pairs of token sequences (gold 4-40 tokens with
labels, prediction = gold with random deletions, insertions and substitutions).
Times are CPU seconds of this process (``time.process_time``), each side timed
``--rounds`` times, interleaved, fastest round kept: on a shared machine wall-clock
time mostly measures the neighbours. Prints pairs
per second for each and the ratio ours / jiwer (target: >= 0.25).

Run: ``python benchmarks/bench_alignment.py [--pairs N] [--seed S] [--rounds R]``
"""

from __future__ import annotations

import argparse
import random
import sys
import time

import jiwer

from pytest_dictbench.methods.verbatim.align import tag_aware_alignment

WORDS = ("i", "we", "the", "think", "so", "went", "to", "shop", "and", "it", "was", "like",
         "really", "you", "know", "that", "bird", "just", "about", "there")
MARKERS = ("[uh]", "[um]", "[laughter]", "[cough]", "th*", "b*", "wh*")


def make_pairs(count: int, seed: int) -> list[tuple[list[str], list[bool], list[str]]]:
    """``count`` (gold tokens, gold fluent flags, prediction tokens) triples."""
    rng = random.Random(seed)
    pairs = []
    for _ in range(count):
        gold: list[str] = []
        fluent: list[bool] = []
        for _ in range(rng.randint(4, 40)):
            if rng.random() < 0.15:
                gold.append(rng.choice(MARKERS))
                fluent.append(False)
            else:
                word = rng.choice(WORDS)
                if rng.random() < 0.08:  # a repetition
                    gold.append(word)
                    fluent.append(False)
                gold.append(word)
                fluent.append(True)
        pred = []
        for token in gold:
            roll = rng.random()
            if roll < 0.1:
                continue
            pred.append(rng.choice(WORDS) if roll < 0.18 else token)
            if rng.random() < 0.05:
                pred.append(rng.choice(WORDS))
        pairs.append((gold, fluent, pred))
    return pairs


def time_ours(pairs: list[tuple[list[str], list[bool], list[str]]]) -> float:
    start = time.process_time()
    for gold, fluent, pred in pairs:
        tag_aware_alignment(gold, fluent, pred)
    return time.process_time() - start


def time_jiwer(pairs: list[tuple[list[str], list[bool], list[str]]]) -> float:
    texts = [(" ".join(gold), " ".join(pred)) for gold, _, pred in pairs]
    start = time.process_time()
    for ref, hyp in texts:
        jiwer.process_words(ref, hyp)
    return time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=20240607)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    pairs = make_pairs(args.pairs, args.seed)
    tokens = sum(len(g) + len(p) for g, _, p in pairs)
    ours_runs, jiwer_runs = [], []
    for _ in range(args.rounds):
        ours_runs.append(time_ours(pairs))
        jiwer_runs.append(time_jiwer(pairs))
    ours, theirs = min(ours_runs), min(jiwer_runs)
    print(f"{len(pairs)} pairs, {tokens} tokens in all (seed {args.seed}), "
          f"best of {args.rounds} rounds")
    print(f"tag-aware alignment : {len(pairs) / ours:10.0f} pairs/s ({ours:.3f} s CPU)")
    print(f"jiwer.process_words : {len(pairs) / theirs:10.0f} pairs/s ({theirs:.3f} s CPU)")
    print(f"ratio ours / jiwer  : {theirs / ours:.2f}x (target >= 0.25x)")
    if theirs / ours < 0.25:
        sys.exit(f"ratio {theirs / ours:.2f}x misses its target (>= 0.25x)")


if __name__ == "__main__":
    main()
