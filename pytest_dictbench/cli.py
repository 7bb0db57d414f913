"""dictbench: the few jobs that are not tests.

    dictbench new SOURCE --out D    a suite from your recordings and their transcripts
    dictbench canary SUITE          add the canary tag to audio files that lack it
    dictbench hash SUITE            refresh the sha256 of every [[files]] entry
    dictbench synth SUITE           render each case's script to FLAC audio (extra: synth)
    dictbench draft FOLDER --out D  a draft suite from recordings (see docs/workbench.md)
    dictbench refine SUITE          draft key points again for changed transcripts
    dictbench review SUITE          review page and adjudication view on 127.0.0.1
    dictbench publish REPORT OUT    aggregate-only summary of a run
    dictbench leak-check [PATHS]    private data, secrets and home paths in files
    dictbench select DEV TEST       choose on the dev half, report on the test half
    dictbench runs | show | compare | trend | official | variation | store import
                                    the results store: history, trends, official runs

SUITE may also be a rig package manifest (``benchmark-manifest-*.json``): ``hash``
refreshes its ``integrity.files``, ``synth`` renders its audio fixtures to WAV.

Benchmark runs themselves are ``pytest --product=NAME``.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from . import __version__
from .errors import DictbenchError
from .files import atomic_write
from .hashes import files_table_text, refresh_hashes
from .jsonl import read_jsonl
from .rig.package import load_package, package_manifest
from .suites import MANIFEST, inside, load_suite, suite_seed
from .text.normalize import collapse_whitespace
from .workbench.commands import add_commands as add_workbench_commands

__all__ = ["main", "spoken_form"]

#: How the synthesiser says a bracketed tag of a verbatim transcript.
SPOKEN_TAGS = {"uh": "uh", "um": "um", "laughter": "ha ha", "cough": "ahem",
               # German transcripts (cases/de-verbatim)
               "äh": "äh", "ähm": "ähm", "lacht": "haha", "hustet": "ähem"}
_TAG = re.compile(r"\[([^\]]+)\]")


def spoken_form(verbatim: str) -> str:
    """What to say for a verbatim transcript: fillers spoken, sounds approximated or
    dropped, cut-off markers removed (``th*`` -> ``th``)."""
    text = _TAG.sub(lambda m: SPOKEN_TAGS.get(m.group(1).lower(), ""), verbatim)
    return collapse_whitespace(text.replace("*", ""))


def _script(case: Any) -> str:
    data = case.data
    if "script" in data:
        return str(data["script"])
    if "verbatim" in data:
        return spoken_form(str(data["verbatim"]))
    return str(data.get("reference", ""))


def cmd_hash(args: argparse.Namespace) -> int:
    path = Path(args.suite)
    manifest = package_manifest(path)  # a package's manifest, or its folder
    if manifest is not None:
        from .rig.synth import hash_package

        print(f"{manifest}: {hash_package(manifest)} integrity file(s) hashed")
        return 0
    count, changed = refresh_hashes(path)
    print(f"{path / MANIFEST if path.is_dir() else path}: {count} file(s) hashed"
          f"{'' if changed else ', already up to date (file left as it was)'}")
    return 0


def cmd_synth(args: argparse.Namespace) -> int:
    from .audio.io import sha256_file
    from .audio.staging import commit_staged, new_staging
    from .audio.synth import synth_suite_cases

    manifest = package_manifest(Path(args.suite))
    if manifest is not None:
        from .rig.synth import synth_package

        path = manifest
        count = synth_package(path, {c.id: c.data for c in load_package(path).cases})
        print(f"{path}: {count} WAV file(s) written as the package's audio specification "
              "says (--out, --rate, --lufs and --silence-ms do not apply)")
        return 0
    suite = load_suite(Path(args.suite))
    cases_path = suite.cases_file
    out = inside(suite.root, args.out, what="--out folder", where=suite.root / MANIFEST)
    own = suite_seed(suite, "voices")
    seed = args.seed if args.seed is not None else own if own is not None else VOICE_SEED
    staging = new_staging(out)
    results = synth_suite_cases(
        suite.cases, suite.locale, out, canary=suite.canary,
        seed=seed, text_of=_script, rate=args.rate, target_lufs=args.lufs,
        silence_ms=args.silence_ms, staging=staging)
    try:  # the new cases.jsonl and suite.toml are staged too: one commit for all files
        by_case = {r["case_id"]: r for r in results}
        rows = [obj for _, obj in read_jsonl(cases_path, DictbenchError)]
        for row in (r for r in rows if r["id"] in by_case):  # drafts are not rendered
            row["audio"] = Path(by_case[row["id"]]["path"]).relative_to(suite.root).as_posix()
        atomic_write(staging / "cases.jsonl",
                     "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
        entries = [{"path": cases_path.relative_to(suite.root).as_posix(),
                    "sha256": sha256_file(staging / "cases.jsonl")}]
        for r in results:
            entries.append({"path": Path(r["path"]).relative_to(suite.root).as_posix(),
                            "sha256": r["sha256"], "case_id": r["case_id"],
                            "voice": r["voice"], "duration": r["duration"]})
        moves = [(f"{r['case_id']}.flac", Path(r["path"])) for r in results]
        moves.append(("cases.jsonl", cases_path))
        manifest = files_table_text(suite.root, entries)
        if manifest is not None:
            atomic_write(staging / MANIFEST, manifest)
            moves.append((MANIFEST, suite.root / MANIFEST))
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    commit_staged(staging, moves)
    seconds = sum(r["duration"] for r in results)
    print(f"{suite.root}: {len(results)} files, {seconds:.1f} s of audio (seed {seed})")
    return 0


def cmd_new(args: argparse.Namespace) -> int:
    from .newsuite import new_suite

    made = new_suite(Path(args.source), Path(args.out), suite_id=args.id, title=args.title,
                     locale=args.locale, threshold=args.threshold, unit=args.unit)
    print(f"{made.root}: suite {made.suite_id!r}, {made.cases} case(s), "
          f"{made.seconds:.1f} s of audio; run it with: "
          f"pytest {made.root} --product=whisper-tiny")
    return 0


def cmd_canary(args: argparse.Namespace) -> int:
    from .newsuite import add_canary

    tagged = add_canary(Path(args.suite))
    print(f"{args.suite}: the canary added to {len(tagged)} file(s)"
          + (f" ({', '.join(tagged)}); digests refreshed" if tagged else ""))
    return 0


def cmd_select(args: argparse.Namespace) -> int:
    from .select import render_selection, select_paths

    selection = select_paths(Path(args.dev), Path(args.test))
    text = render_selection(selection)
    if args.out:
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        atomic_write(out / "selection.json", json.dumps(selection, indent=2, sort_keys=True)
                     + "\n")
        atomic_write(out / "selection.md", text)
    print(json.dumps(selection, indent=2, sort_keys=True) if args.json else text, end=""
          if not args.json else "\n")
    return 0


def _number(kind: type, low: float, high: float, what: str) -> Any:
    """An argparse type: a finite ``kind`` from ``low`` to ``high``, else a usage error
    (checked before any file is touched)."""

    def parse(text: str) -> Any:
        try:
            if not text.isascii():  # int() and float() read other scripts' digits too
                raise ValueError(text)
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not {what} (ASCII digits)") from None
        if not math.isfinite(value) or not low <= value <= high:
            raise argparse.ArgumentTypeError(
                f"{text!r} is out of range: {what} from {low:g} to {high:g}")
        return value

    return parse


_seed = _number(int, 0, 2**63 - 1, "a whole number")
#: Voice assignment seed of ``dictbench synth`` when neither --seed nor the suite's
#: ``[seeds] voices`` gives one.
VOICE_SEED = 20261129
_rate = _number(int, 8000, 192000, "a sample rate in Hz")
_lufs = _number(float, -70.0, 0.0, "a loudness in LUFS")
_silence = _number(float, 0.0, 10000.0, "a duration in ms")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="dictbench", description=__doc__.splitlines()[0])
    parser.add_argument("--version", action="version", version=f"dictbench {__version__}",
                        help="print the installed pytest-dictbench version and exit")
    sub = parser.add_subparsers(dest="command", required=True)
    new = sub.add_parser(
        "new", help="make an error_rate suite from your own recordings and transcripts",
        epilog="each NAME.wav (or .flac) with NAME.txt beside it, or a .csv/.tsv/.jsonl "
               "manifest with the columns audio and reference")
    new.add_argument("source", help="a folder of .wav/.flac recordings with a .txt "
                     "transcript beside each, or a .csv, .tsv or .jsonl manifest")
    new.add_argument("--out", required=True, help="the new suite's folder (e.g. cases/NAME)")
    new.add_argument("--id", default=None, help="suite id (default: the --out folder's name)")
    new.add_argument("--title", default=None, help="suite title")
    new.add_argument("--locale", default="en-US", help="BCP 47 locale (default: %(default)s)")
    new.add_argument("--threshold", type=_number(float, 0.0, 100.0, "an error rate"),
                     default=0.15, help="an item passes at or below this error rate "
                     "(default: %(default)s)")
    new.add_argument("--unit", choices=("word", "char"), default=None,
                     help="word (WER) or char (CER, for languages written without spaces); "
                          "default: the method's choice for the locale")
    new.set_defaults(run=cmd_new)
    canary = sub.add_parser(
        "canary", help="add the suite's canary as a tag to its WAV/FLAC files that lack it",
        epilog="then pytest --dictbench-verify SUITE passes its canary checks")
    canary.add_argument("suite", help="suite folder")
    canary.set_defaults(run=cmd_canary)
    hashing = sub.add_parser("hash", help="refresh the sha256 of the suite's data files")
    hashing.add_argument("suite", help="suite folder, or a rig package manifest "
                         "(benchmark-manifest-*.json)")
    hashing.set_defaults(run=cmd_hash)
    synth = sub.add_parser("synth", help="render each case's script to audio")
    synth.add_argument("suite", help="suite folder")
    synth.add_argument("--out", default="audio",
                       help="folder inside the suite (default: %(default)s)")
    synth.add_argument("--seed", type=_seed, default=None,
                       help="voice assignment seed, 0 or more (default: the suite's "
                            f"[seeds] voices, else {VOICE_SEED})")
    synth.add_argument("--rate", type=_rate, default=16000,
                       help="sample rate, 8000 to 192000 Hz (default: %(default)s)")
    synth.add_argument("--lufs", type=_lufs, default=-23.0,
                       help="loudness target, -70 to 0 LUFS (default: %(default)s)")
    synth.add_argument("--silence-ms", type=_silence, default=300.0,
                       help="silence added at both ends, 0 to 10000 ms "
                            "(default: %(default)s)")
    synth.set_defaults(run=cmd_synth)
    choose = sub.add_parser("select", help="choose a configuration on the dev half and "
                            "report it on the test half (see docs/refine.md)")
    choose.add_argument("dev", help="report folder (or dictbench.json) of the dev half")
    choose.add_argument("test", help="report folder (or dictbench.json) of the test half")
    choose.add_argument("--out", help="folder to write selection.json and selection.md to")
    choose.add_argument("--json", action="store_true", help="print JSON instead of Markdown")
    choose.set_defaults(run=cmd_select)
    add_workbench_commands(sub)
    from .history import add_commands as add_history_commands

    add_history_commands(sub)  # the results store (docs/store.md)
    from .viewer.command import add_parser as add_view_command

    add_view_command(sub)  # dictbench view
    from .combine_cli import add_parser as add_combine_command

    add_combine_command(sub)  # dictbench combine (docs/rigs.md)
    from .adapters.desktop.doctor import add_parser as add_desktop_commands

    add_desktop_commands(sub)  # dictbench desktop doctor
    for name, command in sub.choices.items():  # an example and a page for each (CF32)
        example, page = EXAMPLES.get(name, (None, None))  # tests/ checks none is missing
        command.epilog = "\n".join(filter(None, [
            command.epilog, example and f"example: {example}", page and f"more: {page}"]))
        command.formatter_class = argparse.RawDescriptionHelpFormatter
    return parser


#: Per command: an example line and the docs page that explains it.
EXAMPLES = {
    "new": ("dictbench new ~/recordings --out cases/my-notes", "docs/tutorial/own-recordings.md"),
    "canary": ("dictbench canary cases/my-notes", "docs/tutorial/own-recordings.md"),
    "hash": ("dictbench hash cases/my-notes", "docs/formats.md"),
    "synth": ("dictbench synth cases/en-dictation --seed 7", "docs/audio.md"),
    "select": ("dictbench select reports-dev reports-test --out selection", "docs/refine.md"),
    "draft": ("dictbench draft ~/recordings --out cases/standup --judge=off",
              "docs/workbench.md"),
    "refine": ("dictbench refine cases/standup", "docs/workbench.md"),
    "review": ("dictbench review cases/standup", "docs/workbench.md"),
    "publish": ("dictbench publish reports published", "docs/workbench.md"),
    "leak-check": ("dictbench leak-check --staged", "docs/workbench.md"),
    "desktop": ("dictbench desktop doctor products/my-dictation-app.toml", "docs/desktop.md"),
    "runs": ("dictbench runs --suite en-dictation --product whisper-tiny", "docs/store.md"),
    "history": ("dictbench history --suite en-dictation", "docs/store.md"),
    "show": ("dictbench show 20261204T231500Z", "docs/store.md"),
    "compare": ("dictbench compare 20261203T2300 20261204T2300", "docs/store.md"),
    "trend": ("dictbench trend en-dictation whisper-tiny --figure trend.svg", "docs/store.md"),
    "official": ("dictbench official 20261204T2315 --product whisper-tiny --reason 'third run'",
                 "docs/store.md"),
    "variation": ("dictbench variation en-dictation whisper-tiny", "docs/store.md"),
    "store": ("dictbench store import reports", "docs/store.md"),
    "view": ("dictbench view --store .dictbench/store.sqlite", "docs/viewer.md"),
    "combine": ("dictbench combine 20261204T2315 20261204T2322 --out combined", "docs/rigs.md"),
}


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.run(args))
    except DictbenchError as exc:
        print(f"dictbench: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
