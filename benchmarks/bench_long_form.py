"""Long form: a 60-minute meeting transcript (about 9,000 words) scored with error_rate.

The reference and the output are made here (a fixed seed; a vocabulary of our own), the
output with about 8% of its words substituted, dropped or added. Timed, best of
``--rounds``:

* ``error_rate``: ``ErrorRate.score`` (WER, CER, strict distance) plus the failing
  item's diff as the reports render it (``failing_items``, word unit);
* ``jiwer alone``: ``jiwer.process_words`` on the same two texts, as the baseline.

Target: under 2 s for the method with its diff. Prints both timings and their ratio.

    python benchmarks/bench_long_form.py [--words 9000] [--rounds 3]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

import jiwer

from pytest_dictbench.methods.error_rate import ErrorRate
from pytest_dictbench.model import Case, Output, ScoreContext, Suite
from pytest_dictbench.report.sections import failing_items

SYLLABLES = ["ka", "lo", "mer", "tin", "sa", "vo", "ri", "den", "pa", "ul", "ne", "gos"]


def texts(words: int, seed: int = 60) -> tuple[str, str]:
    """A reference of ``words`` words in sentences, and an output with edits."""
    rng = random.Random(seed)
    vocabulary = ["".join(rng.choice(SYLLABLES) for _ in range(rng.randint(1, 3)))
                  for _ in range(1500)]
    reference = [rng.choice(vocabulary) for _ in range(words)]
    for index in range(0, words, 12):
        reference[index] = reference[index].capitalize()
        if index:
            reference[index - 1] += "."
    output: list[str] = []
    for word in reference:
        roll = rng.random()
        if roll < 0.04:
            output.append(rng.choice(vocabulary))  # substituted
        elif roll < 0.06:
            continue  # dropped
        else:
            output.append(word)
        if rng.random() < 0.02:
            output.append(rng.choice(vocabulary))  # added
    return " ".join(reference) + ".", " ".join(output) + "."


def best(function: Callable[[], object], rounds: int) -> float:
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--words", type=int, default=9000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    reference, hypothesis = texts(args.words)
    case = Case("meeting", {"id": "meeting", "reference": reference}, 1)
    suite = Suite("long", "1", "t", "error_rate", "en-US", "canary", Path("."), (case,),
                  params={"threshold": 0.01})
    output = Output("meeting", hypothesis)
    method = ErrorRate()

    def with_diff() -> None:
        result = method.score(case, output, ScoreContext(suite))
        record = {"status": "failed", "product": "p", "case_id": "meeting", "repetition": 1,
                  "text": hypothesis, "rules": {}, "message": result.message}
        summary = {"locale": suite.locale, "products": [
            {"product": "p", "tables": {"summary": {"unit": "word"}}}]}
        (item,) = failing_items(summary, [record], {"meeting": [reference]})
        assert item.diff and not result.passed

    def jiwer_alone() -> None:
        jiwer.process_words(reference, hypothesis)

    ours = best(with_diff, args.rounds)
    baseline = best(jiwer_alone, args.rounds)
    result = method.score(case, output, ScoreContext(suite))
    print(f"{args.words} words ({len(reference):,} characters); {result.message}")
    print(f"error_rate score + failing-item diff: {ours:.3f} s (target < 2 s)")
    print(f"jiwer.process_words alone:            {baseline:.3f} s")
    print(f"ratio: {ours / baseline:.1f}x jiwer alone")
    if ours >= 2:
        sys.exit(f"{ours:.3f} s misses its target (< 2 s)")


if __name__ == "__main__":
    main()
