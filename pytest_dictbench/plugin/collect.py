"""Collection: a ``suite.toml`` becomes one test item per case x product x repetition."""

from __future__ import annotations

import math
import os
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any
from weakref import WeakKeyDictionary

import pytest

from ..adapters.base import scrubbed_output
from ..common_set import over_limit
from ..errors import DictbenchError
from ..model import (
    SKIP_STATUSES,
    Case,
    ItemResult,
    Output,
    Product,
    ScoreContext,
    Suite,
    provisional_reason,
)
from ..private import REDACTED, is_private, public_case_id
from ..redact import scrub
from ..report.items import encoded_line
from ..suites import check_cases_digest
from ..text.visible import visible
from .ahead import Evaluated, evaluated, scoring_ahead
from .judgement import NO_JUDGEMENT
from .nodeids import refuse_secret_names, split_item_id
from .session import CAPTURED_PROPERTY, RECORD_PROPERTY, SESSION_KEY, DictbenchSession

if TYPE_CHECKING:
    from ..adapters.base import Adapter

__all__ = ["CaseItem", "ItemFailed", "RunFailed", "SuiteCollector", "capture_group",
           "split_item_id"]

#: Marker names a case may not take, because pytest gives them a meaning.
RESERVED_MARKERS = frozenset({
    "skip", "skipif", "xfail", "parametrize", "usefixtures", "filterwarnings", "tryfirst",
    "trylast",
})


#: Markers with which pytest may skip an item before its own setup runs.
_SKIPPING = frozenset({"skip", "skipif", "xfail"})

#: Marker names already registered, per config (registering one twice is harmless but
#: grows the ini list that pytest re-reads on every unknown marker).
_REGISTERED: WeakKeyDictionary[pytest.Config, set[str]] = WeakKeyDictionary()


class RunFailed(Exception):
    """The product attempted the item and did not finish (output status ``failed``)."""


class ItemFailed(Exception):
    """The output did not pass the method's gate."""

    def __init__(self, result: ItemResult) -> None:
        super().__init__(result.message)
        self.result = result


def item_name(case: Case, product: Product, repetition: int, repetitions: int,
              suite: Suite | None = None) -> str:
    """``<case id>[<product>]``, with ``-r<n>`` when the suite repeats items (a private
    suite's case id is its keyed hash).

    The bracket is the item's parameter id, as in a parametrized test: items are given
    their node id as text, so every pytest parses it the way it parses the ids it stores
    for ``--lf``, ``--ff`` and ``--sw`` (pytest 9 keeps the bracket apart from the name).
    """
    suffix = f"-r{repetition}" if repetitions > 1 else ""
    return f"{shown_id(suite, case) if suite else case.id}[{product.name}{suffix}]"


def shown_id(suite: Suite, case: Case) -> str:
    """The case id as node ids, terminal lines and reports show it."""
    return public_case_id(suite, case.id) if is_private(suite) else case.id


class SuiteCollector(pytest.File):
    """Collects the items of one suite for every product of the run."""

    #: The class of the items made for each case x product x repetition.
    item_class: type[CaseItem]

    def collect(self) -> Iterator[CaseItem]:
        session = self.config.stash[SESSION_KEY]
        suite = session.load_suite(self.path)
        check_cases_digest(suite)
        refuse_secret_names(suite, session.products)
        repetitions = session.repetitions or suite.repetitions
        for product in session.products:
            adapter = session.adapter(product, suite)
            group = capture_group(product)
            for case in suite.cases:
                markers = _case_markers(self.config, case, suite)
                for repetition in range(
                        1, self.repetitions_of(case, suite, session.repetitions) + 1):
                    name = self.item_name(case, product, repetition, repetitions, suite)
                    item = getattr(self, "item_class", CaseItem).from_parent(
                        self, name=name, nodeid=f"{self.nodeid}::{name}",
                        suite=suite, case=case, product=product, repetition=repetition,
                        adapter=adapter,
                    )
                    for marker in markers:
                        item.add_marker(marker)
                    if group:
                        item.add_marker(pytest.mark.xdist_group(group))
                    yield item

    def repetitions_of(self, case: Case, suite: Suite, requested: int | None) -> int:
        """How many repetitions of ``case`` to collect (``requested``: --repetitions)."""
        return requested or suite.repetitions

    def item_name(self, case: Case, product: Product, repetition: int, repetitions: int,
                  suite: Suite) -> str:
        """The item's name (see :func:`item_name`)."""
        return item_name(case, product, repetition, repetitions, suite)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException]) -> Any:
        if isinstance(excinfo.value, DictbenchError):
            return scrub(str(excinfo.value))
        return super().repr_failure(excinfo)


def capture_group(product: Product) -> str | None:
    """The capture group of a live product's items: its ``capture_group`` setting (items
    sharing a device or rig) or, by default, the product itself; desktop products share
    one group (they take the one rig in turn). Cached products: none.
    Under xdist, ``scheduler.CaptureGroupScheduling`` runs each group on one worker."""
    if product.adapter == "cache":
        return None
    default = "desktop-rig" if product.adapter == "desktop" else product.name
    return f"dictbench:{product.settings.get('capture_group', default)}"


def _case_markers(config: pytest.Config, case: Case, suite: Suite) -> list[str]:
    names = ([case.genre] if case.genre else []) + list(case.tags)
    for name in names:
        if name in RESERVED_MARKERS:
            raise DictbenchError(f"case {case.id!r}: {name!r} is reserved by pytest and "
                                 "cannot be a genre or tag", path=suite.root / "cases.jsonl",
                                 line=case.line)
        if name not in _REGISTERED.setdefault(config, set()):
            config.addinivalue_line("markers", f"{name}: dictbench case genre or tag")
            _REGISTERED[config].add(name)
    return names


class CaseItem(pytest.Item):
    """One output of one product for one case, scored by the suite's method."""

    def __init__(self, *, suite: Suite, case: Case, product: Product, repetition: int,
                 adapter: Adapter, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.suite, self.case, self.product = suite, case, product
        self.repetition, self.adapter = repetition, adapter
        self.output: Output | None = None
        self.judgement = NO_JUDGEMENT
        #: Set when the output says the run failed: ``runtest`` then fails the test.
        self.failed_run: str | None = None
        #: What setup and call raise, when the item was evaluated ahead (``.ahead``).
        self.ahead: Evaluated | None = None
        #: The record this run of the item made (until its teardown).
        self.record: Mapping[str, Any] | None = None
        #: The properties an evaluation ahead made, until the item's own setup.
        self.held: list[tuple[str, object]] = []

    @property
    def session_state(self) -> DictbenchSession:
        return self.config.stash[SESSION_KEY]

    def _record(self, status: str, **fields: Any) -> None:
        """Attach the item's record; one that cannot be written (a number JSON does not
        allow, text that is not valid Unicode, a line longer than the item store takes)
        becomes an error record saying why, so the item is never lost from items.jsonl."""
        state = self.session_state
        try:
            record = state.make_record(self, status, **fields)
            line = state.item_line(self.nodeid, record)
            encoded_line(line)
        except ValueError as exc:
            message = f"the item's record cannot be written ({type(exc).__name__}: {exc})"
            self.record = state.make_record(self, "error", message=message)
            self.user_properties.append((RECORD_PROPERTY, state.item_line(self.nodeid,
                                                                          self.record)))
            pytest.fail(visible(f"record error: {self._shown(message)}"), pytrace=False)
        self.record = record
        self.user_properties.append((RECORD_PROPERTY, line))

    def can_score_ahead(self) -> bool:
        """Whether this item may be evaluated ahead of its turn (see :mod:`.ahead`); not
        one that pytest may skip before its setup (a skip, skipif or xfail marker), nor
        in a run of setups only."""
        state, option = self.session_state, self.config.option
        return (type(self) is CaseItem and not state.worker and self.product.adapter == "cache"
                and state.judge_settings.get(self.suite.id) is None
                and not any(m.name in _SKIPPING for m in self.own_markers)
                and not getattr(option, "setuponly", False))

    def evaluate(self) -> Evaluated:
        """Do the setup's and the call's work now; what each raises (see :mod:`.ahead`)."""
        return evaluated(self, self._set_up, self._run)

    def setup(self) -> None:
        if self.ahead is None and self.can_score_ahead():
            scoring_ahead(self.session, self.session_state.scored_ahead).evaluate_from(self)
        if self.ahead is None:
            self._set_up()
            return
        self.user_properties.extend(self.held)
        self.held = []
        if self.ahead[0] is not None:
            raise self.ahead[0]

    def _set_up(self) -> None:
        try:
            self._prepare()
        except (pytest.skip.Exception, pytest.fail.Exception):
            raise
        except Exception as exc:
            # any other failure (adapter, judges, decisions file, disk) is an item error
            message = f"{type(exc).__name__}: {exc}"
        else:
            return
        self._record("error", message=message, output=self.output)
        pytest.fail(visible(f"setup error: {self._shown(message)}"), pytrace=False)

    def teardown(self) -> None:
        """Let go of the output and the verdicts: the record has what the reports need."""
        self.output = None
        self.judgement = NO_JUDGEMENT
        self.ahead = self.record = None

    def _shown(self, message: str) -> str:
        """``message`` as the terminal and JUnit may show it (withheld for a private suite,
        scrubbed of secrets otherwise)."""
        return REDACTED if is_private(self.suite) else scrub(message)

    def _prepare(self) -> None:
        """Get the output (skip when there is none, fail when it is an error) and the
        judges' verdicts."""
        too_long = over_limit(self.suite, self.product, self.case)
        if too_long is not None:  # never sent: the common set leaves the case out
            self._record("not_tested", message=too_long,
                         extra={"output_status": "unsupported"})
            pytest.skip(f"not_tested: {too_long} for {shown_id(self.suite, self.case)} from "
                        f"{self.product.name}")
        output = self._get_output()
        if output is None or output.status in SKIP_STATUSES:
            reason = output.status if output else "no output"
            if output is not None and output.error:  # why: a limit, with its figures (PV20)
                reason = f"{output.status}: {output.error}"
            self._record("not_tested", message=reason,
                         extra={"output_status": output.status if output else "not_tested"})
            pytest.skip(f"not_tested: {reason} for {shown_id(self.suite, self.case)} from "
                        f"{self.product.name}")
        if output.is_error:
            # the origin relative to the rootdir: reports do not depend on the checkout's path
            origin = output.origin.replace(f"{self.config.rootpath}{os.sep}", "")
            message = f"{output.status}: {output.error or 'no detail'} ({origin})"
            self._record("error", message=message, output=output)
            text = visible(f"output error: product {self.product.name!r} case "
                           f"{shown_id(self.suite, self.case)!r}: {self._shown(message)}")
            if output.status == "failed":  # attempted, did not finish: a test failure
                self.failed_run = text
                return
            pytest.fail(text, pytrace=False)
        self.output = output
        state = self.session_state
        self.judgement = state.judging.for_item(self, output, state.method(self.suite),
                                                state.judge_settings.get(self.suite.id),
                                                self.session.items)
        if self.judgement.error:
            self._record("error", message=self.judgement.error, output=output,
                         extra=self.judgement.record)
            pytest.fail(visible(f"judge error: {self._shown(self.judgement.error)}"),
                        pytrace=False)
        if self.judgement.unscored:  # pending in a batch, or held back by the budget
            self._record("not_tested", message=self.judgement.unscored, output=output)
            pytest.skip(f"not scored: {self.judgement.unscored}")

    def _get_output(self) -> Output | None:
        """The adapter's output; a capture problem records an error and fails the item."""
        try:
            output = scrubbed_output(self.adapter.get(self.case, self.repetition))
        except DictbenchError as exc:
            problem = exc
        else:
            if output is not None and output.origin.endswith("(captured now)"):
                self.user_properties.append((CAPTURED_PROPERTY, "1"))  # for progress
            return output
        # failed outside the except block: one message, no chain
        self._record("error", message=str(problem))
        pytest.fail(visible(f"capture error: {self._shown(str(problem))}"), pytrace=False)

    def runtest(self) -> None:
        if self.ahead is None:
            self._run()
        elif self.ahead[1] is not None:
            raise self.ahead[1]

    def _run(self) -> None:
        if self.failed_run is not None:
            raise RunFailed(self.failed_run)
        assert self.output is not None
        session = self.session_state
        judgement = self.judgement
        ctx = ScoreContext(suite=self.suite, judged=judgement.judged)
        try:
            result = session.method(self.suite).score(self.case, self.output, ctx)
        except Exception as exc:
            self._record("error", message=f"scoring failed: {type(exc).__name__}: {exc}",
                         output=self.output)
            raise
        bad = _bad_score(result)
        if bad is not None:
            message = (f"method {self.suite.method!r} gave {bad} for this item; a score is "
                       "a finite number from 0 to 100")
            self._record("error", message=message, output=self.output)
            pytest.fail(visible(f"scoring error: {self._shown(message)}"), pytrace=False)
        status = "passed" if result.passed else "failed"
        self._record(status, result=result, output=self.output, extra=judgement.record)
        if not result.passed and session.item_failures == "fail":
            raise ItemFailed(result)
        if result.provisional and result.passed:  # never green while a verdict is missing
            pytest.skip(visible(provisional_reason(
                result, details=not is_private(self.suite))))

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None
                     ) -> Any:
        """Failure text with any control characters of the output made visible, secrets
        scrubbed (and the details of a private suite's case withheld)."""
        shown = self._repr_failure(excinfo, style)
        return scrub(shown) if isinstance(shown, str) else shown

    def _repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None
                      ) -> Any:
        value = excinfo.value
        if is_private(self.suite) and not isinstance(value, pytest.fail.Exception):
            if isinstance(value, ItemFailed):
                return f"score {value.result.score:.2f}: {REDACTED}"
            return f"{type(value).__name__}: {REDACTED}"
        if isinstance(value, ItemFailed):
            return visible(_failure_text(value.result))
        if isinstance(value, (RunFailed, DictbenchError)):
            return visible(str(value))
        if isinstance(value, pytest.fail.Exception) and not value.pytrace:
            return visible(value.msg)
        return super().repr_failure(excinfo)

    def reportinfo(self) -> tuple[Any, int | None, str]:
        return self.suite.cases_file, self.case.line - 1, f"{self.suite.id}::{self.name}"


def _bad_score(result: ItemResult) -> str | None:
    """What is wrong with a method's score (``score 150.0``), else None."""
    score = result.score
    if score is None:
        return None
    if isinstance(score, bool) or not isinstance(score, (int, float)):
        return f"score {score!r} (not a number)"
    if not math.isfinite(score) or not 0 <= score <= 100:
        return f"score {score!r}"
    return None


def _failure_text(result: ItemResult) -> str:
    lines = [f"score {result.score:.2f}: {result.message}" if result.message
             else f"score {result.score:.2f}"]
    for rule in result.failed_rules():
        lines.append(f"  {rule.rule} = {rule.score}: {rule.evidence}")
    return "\n".join(lines)

