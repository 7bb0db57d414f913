"""A large run's item records, read from its spool page by page instead of held parsed.

:class:`SpooledRecords` is the sequence a report build gets for a run of more than
``items.PARSED_ITEMS`` items. Each entry is a :class:`SpooledRecord`: a small read-only
mapping that knows only its place. Reading one of its fields parses the page of
:data:`PAGE` records around it (one decoder call); the :data:`PAGES` pages read last stay
parsed. A report build reads records in report order, product after product, or a few
products side by side (a comparison), so nearly every read finds its page parsed, and
the run holds a few thousand records parsed at any time, never all of them: its peak
memory grows by some 60 bytes an item, not by the 2 KB a parsed record takes. A page is
parsed from JSON once; it is then kept in a temporary file in :mod:`marshal`'s form,
which reads back 2.5 times as fast, for the passes after the first.

The values a record gives are those of ``json.loads`` of its line, so every report reads
the same values it would from a list of dicts. A record is read-only; a value taken
from it (a nested table) is the parsed page's, so a change to it is lost when the page
is parsed again. Pure: no pytest.
"""

from __future__ import annotations

import marshal
import tempfile
from collections import OrderedDict
from collections.abc import Callable, ItemsView, Iterator, KeysView, Mapping, Sequence, ValuesView
from typing import Any, overload

__all__ = ["PAGE", "PAGES", "SpooledRecord", "SpooledRecords"]

#: Records parsed together when one of them is read.
PAGE = 128
#: Pages kept parsed (the ones read last): 8,192 records, about 18 MB.
PAGES = 64


class SpooledRecords(Sequence["SpooledRecord"]):
    """The records whose lines lie at ``places`` (in this order), parsed a page at a time
    by ``parse`` (given the places of one page, it returns their records in order)."""

    def __init__(self, parse: Callable[[Sequence[int]], list[dict[str, Any]]],
                 places: Sequence[int]) -> None:
        self._parse = parse
        self._places = places
        self._pages: OrderedDict[int, list[dict[str, Any]]] = OrderedDict()
        self._last: tuple[int, list[dict[str, Any]]] = (-1, [])
        self._records = [SpooledRecord(self, index) for index in range(len(places))]
        #: Pages parsed so far (a page read again after it was let go counts again).
        self.pages_parsed = 0
        #: Pages read before, in marshal's form: page number -> (offset, length).
        self._kept: dict[int, tuple[int, int]] = {}
        self._file: Any = None

    def __len__(self) -> int:
        return len(self._records)

    def __iter__(self) -> Iterator[SpooledRecord]:
        return iter(self._records)

    @overload
    def __getitem__(self, index: int) -> SpooledRecord: ...
    @overload
    def __getitem__(self, index: slice) -> list[SpooledRecord]: ...

    def __getitem__(self, index: int | slice) -> SpooledRecord | list[SpooledRecord]:
        return self._records[index]

    def parsed(self, index: int) -> dict[str, Any]:
        """The parsed record at ``index``."""
        number, offset = divmod(index, PAGE)
        last_number, page = self._last
        if number != last_number:
            found = self._pages.get(number)
            if found is None:
                found = self._page(number)
                self.pages_parsed += 1
                self._pages[number] = found
                if len(self._pages) > PAGES:
                    self._pages.popitem(last=False)
            else:
                self._pages.move_to_end(number)
            page = found
            self._last = (number, page)
        return page[offset]


    def _page(self, number: int) -> list[dict[str, Any]]:
        """Page ``number`` parsed: from its marshal copy when it was read before."""
        if self._file is None:
            self._file = tempfile.TemporaryFile(prefix="dictbench-pages-")  # noqa: SIM115
        kept = self._kept.get(number)
        if kept is not None:
            self._file.seek(kept[0])
            return marshal.loads(self._file.read(kept[1]))  # type: ignore[no-any-return]
        page = self._parse(self._places[number * PAGE:(number + 1) * PAGE])
        data = marshal.dumps(page)
        offset = self._file.seek(0, 2)
        self._file.write(data)
        self._kept[number] = (offset, len(data))
        return page

    def close(self) -> None:
        """Remove the pages' marshal copies (the records can still be read)."""
        if self._file is not None:
            self._file.close()
        self._file, self._kept = None, {}


class SpooledRecord(Mapping[str, Any]):
    """One record of :class:`SpooledRecords`: a read-only mapping, parsed when read."""

    __slots__ = ("_index", "_records")

    def __init__(self, records: SpooledRecords, index: int) -> None:
        self._records = records
        self._index = index

    def _value(self) -> dict[str, Any]:
        return self._records.parsed(self._index)

    def __getitem__(self, key: str) -> Any:
        return self._value()[key]

    def get(self, key: str, default: Any = None) -> Any:
        return self._value().get(key, default)

    def __contains__(self, key: object) -> bool:
        return key in self._value()

    def __iter__(self) -> Iterator[str]:
        return iter(self._value())

    def __len__(self) -> int:
        return len(self._value())

    def keys(self) -> KeysView[str]:
        return self._value().keys()

    def items(self) -> ItemsView[str, Any]:
        return self._value().items()

    def values(self) -> ValuesView[Any]:
        return self._value().values()

    def __eq__(self, other: object) -> bool:
        if isinstance(other, SpooledRecord):
            other = other._value()
        return self._value() == other

    __hash__ = None  # type: ignore[assignment]  # as a dict's

    def __repr__(self) -> str:
        return repr(self._value())
