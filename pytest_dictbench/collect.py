"""Collection: a ``suite.toml`` becomes one test item per case x product x repetition."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any
from weakref import WeakKeyDictionary

import pytest

from .errors import DictbenchError
from .judging import Judgement
from .model import SKIP_STATUSES, Case, ItemResult, Output, Product, ScoreContext, Suite
from .session import RECORD_PROPERTY, SESSION_KEY, DictbenchSession, record_line
from .suites import check_cases_digest

if TYPE_CHECKING:
    from .adapters.base import Adapter

__all__ = ["CaseItem", "ItemFailed", "SuiteCollector"]

#: Marker names a case may not take, because pytest gives them a meaning.
RESERVED_MARKERS = frozenset({
    "skip", "skipif", "xfail", "parametrize", "usefixtures", "filterwarnings", "tryfirst",
    "trylast",
})


#: Marker names already registered, per config (registering one twice is harmless but
#: grows the ini list that pytest re-reads on every unknown marker).
_REGISTERED: WeakKeyDictionary[pytest.Config, set[str]] = WeakKeyDictionary()


class ItemFailed(Exception):
    """The output did not pass the method's gate."""

    def __init__(self, result: ItemResult) -> None:
        super().__init__(result.message)
        self.result = result


def item_name(case: Case, product: Product, repetition: int, repetitions: int) -> str:
    """``<case id>[<product>]``, with ``-r<n>`` when the suite repeats items."""
    suffix = f"-r{repetition}" if repetitions > 1 else ""
    return f"{case.id}[{product.name}{suffix}]"


class SuiteCollector(pytest.File):
    """Collects the items of one suite for every product of the run."""

    def collect(self) -> Iterator[CaseItem]:
        session = self.config.stash[SESSION_KEY]
        suite = session.load_suite(self.path)
        check_cases_digest(suite)
        repetitions = session.repetitions or suite.repetitions
        for product in session.products:
            adapter = session.adapter(product, suite)
            group = capture_group(product)
            for case in suite.cases:
                markers = _case_markers(self.config, case, suite)
                for repetition in range(1, repetitions + 1):
                    item = CaseItem.from_parent(
                        self, name=item_name(case, product, repetition, repetitions),
                        suite=suite, case=case, product=product, repetition=repetition,
                        adapter=adapter,
                    )
                    for marker in markers:
                        item.add_marker(marker)
                    if group:
                        item.add_marker(pytest.mark.xdist_group(group))
                    yield item

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException]) -> Any:
        if isinstance(excinfo.value, DictbenchError):
            return str(excinfo.value)
        return super().repr_failure(excinfo)


def capture_group(product: Product) -> str | None:
    """The xdist group of a live product's items: its ``capture_group`` setting (items
    sharing a device or rig) or, by default, the product itself. Cached products: none."""
    if product.adapter == "cache":
        return None
    return f"dictbench:{product.settings.get('capture_group', product.name)}"


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
        self.judgement = Judgement()

    @property
    def session_state(self) -> DictbenchSession:
        return self.config.stash[SESSION_KEY]

    def _record(self, status: str, **fields: Any) -> None:
        record = self.session_state.make_record(self, status, **fields)
        self.user_properties.append((RECORD_PROPERTY, record_line(record)))

    def setup(self) -> None:
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
        pytest.fail(f"setup error: {message}", pytrace=False)

    def _prepare(self) -> None:
        """Get the output (skip when there is none, fail when it is an error) and the
        judges' verdicts."""
        try:
            output = self.adapter.get(self.case, self.repetition)
        except DictbenchError as exc:
            problem: DictbenchError | None = exc
        else:
            problem = None
        if problem is not None:  # failed outside the except block: one message, no chain
            self._record("error", message=str(problem))
            pytest.fail(f"capture error: {problem}", pytrace=False)
        if output is None or output.status in SKIP_STATUSES:
            reason = output.status if output else "no output"
            self._record("not_tested", message=reason)
            pytest.skip(f"not_tested: {reason} for {self.case.id} from {self.product.name}")
        if output.is_error:
            message = f"{output.status}: {output.error or 'no detail'} ({output.origin})"
            self._record("error", message=message, output=output)
            pytest.fail(f"output error: product {self.product.name!r} case {self.case.id!r}: "
                        f"{message}", pytrace=False)
        self.output = output
        self.judgement = self.session_state.judging.for_item(self, output)
        if self.judgement.error:
            self._record("error", message=self.judgement.error, output=output,
                         extra=self.judgement.record)
            pytest.fail(f"judge error: {self.judgement.error}", pytrace=False)

    def runtest(self) -> None:
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
        status = "passed" if result.passed else "failed"
        self._record(status, result=result, output=self.output, extra=judgement.record)
        if not result.passed and session.item_failures == "fail":
            raise ItemFailed(result)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None
                     ) -> Any:
        if isinstance(excinfo.value, ItemFailed):
            return _failure_text(excinfo.value.result)
        if isinstance(excinfo.value, DictbenchError):
            return str(excinfo.value)
        return super().repr_failure(excinfo)

    def reportinfo(self) -> tuple[Any, int | None, str]:
        cases_file = self.suite.root / self.suite.manifest.get("cases", "cases.jsonl")
        return cases_file, self.case.line - 1, f"{self.suite.id}::{self.name}"


def _failure_text(result: ItemResult) -> str:
    lines = [f"score {result.score:.2f}: {result.message}" if result.message
             else f"score {result.score:.2f}"]
    for rule in result.failed_rules():
        lines.append(f"  {rule.rule} = {rule.score}: {rule.evidence}")
    return "\n".join(lines)

