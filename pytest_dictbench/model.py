"""The data that flows through a run: suites, cases, products, outputs and results.

Everything here is a frozen dataclass or plain JSON data, so it can be hashed, compared
and sent from an xdist worker to the controller unchanged. The classes made once per
item (cases, outputs, results) have slots: a large run holds 100,000 of each.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, Literal, Protocol

#: Outcome of one item as it appears in the reports.
Status = Literal["passed", "failed", "error", "not_tested"]

#: Where a rule score came from.
RuleSource = Literal["auto", "judge", "human", "unjudged"]

#: Item statuses that carry a score (an item below its gate is scored, and failed).
SCORED_STATUSES = frozenset({"passed", "failed"})

#: Evidence that opens a rule the judges disagreed on: it waits for a person, and no
#: automated score stands in for it meanwhile.
PENDING_ADJUDICATION = "pending adjudication"

#: Output statuses a product file may carry (``complete`` is the default).
OUTPUT_STATUSES = ("complete", "not_tested", "unsupported", "failed", "invalid", "blank",
                   "error")
#: Output statuses that make the item a test error rather than a score.
ERROR_STATUSES = frozenset({"failed", "invalid", "error"})
#: Output statuses that mean the item was not measured (reported as skipped).
SKIP_STATUSES = frozenset({"not_tested", "unsupported", "blank"})


@dataclass(frozen=True, slots=True)
class Case:
    """One benchmark item, as read from a line of ``cases.jsonl``."""

    #: The case id, unique within its suite.
    id: str
    #: The whole JSON object of the line, validated against the method's case schema.
    data: Mapping[str, Any]
    #: 1-based line number in the cases file, for error messages.
    line: int = 0

    @property
    def genre(self) -> str | None:
        return self.data.get("genre")

    @property
    def tags(self) -> tuple[str, ...]:
        return tuple(self.data.get("tags", ()))

    def get(self, key: str, default: Any = None) -> Any:
        return self.data.get(key, default)


@dataclass(frozen=True)
class SuiteFile:
    """A data file listed in a suite manifest, with its expected digest."""

    path: str
    sha256: str | None = None
    #: An audio file's case, voice and length in seconds (``dictbench synth`` writes them).
    case_id: str | None = None
    voice: str | None = None
    duration: float | None = None


@dataclass(frozen=True)
class Suite:
    """A benchmark suite: a folder with ``suite.toml`` and ``cases.jsonl``."""

    id: str
    version: str
    title: str
    method: str
    locale: str
    canary: str
    root: Path
    cases: tuple[Case, ...]
    #: Method parameters from the ``[params]`` table.
    params: Mapping[str, Any] = field(default_factory=dict)
    #: Data files from the ``[[files]]`` array (paths relative to ``root``).
    files: tuple[SuiteFile, ...] = ()
    #: Measured repetitions of every (case, product) pair.
    repetitions: int = 1
    #: The rest of the manifest (ranking, audio specification, ...), as written.
    manifest: Mapping[str, Any] = field(default_factory=dict)
    #: Cases still marked ``"status": "draft"``: waiting for review, not benchmark items.
    drafts: tuple[Case, ...] = ()

    @cached_property
    def cases_file(self) -> Path:
        """The file the cases were read from (``cases`` in the manifest)."""
        return self.root / self.manifest.get("cases", "cases.jsonl")

    @cached_property
    def _cases_by_id(self) -> Mapping[str, Case]:
        return {case.id: case for case in self.cases}

    def case(self, case_id: str) -> Case:
        """The case ``case_id`` (``KeyError`` when the suite has none)."""
        return self._cases_by_id[case_id]


@dataclass(frozen=True)
class Product:
    """A product under test, from ``products/<name>.toml``."""

    name: str
    version: str
    adapter: str
    path: Path
    #: Adapter settings from the ``[settings]`` table.
    settings: Mapping[str, Any] = field(default_factory=dict)
    #: Environment facts (hardware, OS, app version, ...) from ``[environment]``.
    environment: Mapping[str, Any] = field(default_factory=dict)
    description: str = ""
    #: List price from ``[pricing]`` (usd_per_audio_minute, snapshot_date, source_url).
    pricing: Mapping[str, Any] = field(default_factory=dict)
    #: Rig workflows the product offers (``workflows``); a rig fixture of any other
    #: workflow is ``unsupported`` for it. Empty: dictation and file transcription.
    workflows: tuple[str, ...] = ()
    #: Input limits from ``[limits]`` (``max_audio_s``: the longest audio it takes).
    limits: Mapping[str, Any] = field(default_factory=dict)
    #: Documented capabilities (``[[claims]]``: claim, source_url, checked), reported
    #: apart from measured results and never ranked.
    claims: tuple[Mapping[str, Any], ...] = ()

    @property
    def outputs_dir(self) -> Path:
        """Folder holding this product's outputs, one ``<suite id>.jsonl`` per suite."""
        return self.path.parent / str(self.settings.get("outputs", self.name))


@dataclass(frozen=True, slots=True)
class Output:
    """What a product produced for one case and repetition."""

    case_id: str
    text: str
    repetition: int = 1
    status: str = "complete"
    latency_ms: float | None = None
    error: str | None = None
    #: Capture metadata and any other fields of the output line.
    meta: Mapping[str, Any] = field(default_factory=dict)
    #: ``file:line`` the output was read from, for error messages.
    origin: str = ""

    @property
    def is_error(self) -> bool:
        return self.status in ERROR_STATUSES or (self.status == "complete" and bool(self.error))


@dataclass(frozen=True, slots=True)
class RuleScore:
    """The score of one rule on one item: 0, 1 or 2 (``None`` when unjudged)."""

    rule: str
    score: int | None
    evidence: str = ""
    source: RuleSource = "auto"
    #: The automated check's ``(score, evidence)`` when a judge or a person decided the
    #: rule over it (kept as evidence; ``None`` otherwise).
    auto: tuple[int, str] | None = None

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"evidence": self.evidence, "score": self.score,
                                "source": self.source}  # a record line's key order
        if self.auto is not None:
            return {"auto": {"evidence": self.auto[1], "score": self.auto[0]}, **data}
        return data


@dataclass(frozen=True, slots=True)
class ItemResult:
    """What a method says about one output: verdict, 0-100 score, rules and metrics."""

    passed: bool
    #: ``None`` for a provisional item (its score still needs a judge): never ranked.
    score: float | None
    rules: tuple[RuleScore, ...] = ()
    #: Numbers the method's aggregator pools over items (edit counts, F1 counts, ...).
    metrics: Mapping[str, float] = field(default_factory=dict)
    #: One line saying why the item failed (empty when it passed).
    message: str = ""
    #: Parts of the score still waiting for a judgement (unjudged rules, key points...).
    #: A score with any is *provisional*: reported with this count, never ranked.
    provisional: int = 0

    def failed_rules(self) -> tuple[RuleScore, ...]:
        return tuple(r for r in self.rules if r.score is not None and r.score < 2)


def provisional_reason(result: ItemResult, *, details: bool = True) -> str:
    """Why a provisional item is no result yet, one line, the same for every method:
    ``provisional: 2 unjudged (A6, B2): needs judgement; no verdict``. ``details``
    False leaves out the evidence (a private suite's)."""
    waiting = [r for r in result.rules if r.source == "unjudged"]
    text = f"provisional: {result.provisional} unjudged"
    if waiting:
        text += f" ({', '.join(r.rule for r in waiting)})"
    why = list(dict.fromkeys(r.evidence for r in waiting if r.evidence))
    if details and why:
        text += ": " + "; ".join(why)
    return text


@dataclass(frozen=True)
class ScoreContext:
    """What a method may know besides the case and the output."""

    suite: Suite
    #: Rule scores decided outside the method (LLM judges, human adjudication).
    judged: Mapping[str, RuleScore] = field(default_factory=dict)

    @property
    def params(self) -> Mapping[str, Any]:
        return self.suite.params


class ItemLike(Protocol):
    """What the session and the judges read from a benchmark item (``collect.CaseItem``).

    A structural type, so that modules below ``collect`` need not import it.
    """

    suite: Suite
    case: Case
    product: Product
    repetition: int
