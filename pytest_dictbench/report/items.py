"""The item records of a run, kept out of memory until the reports are built.

Each record arrives as its ``items.jsonl`` line. :class:`ItemStore` appends the line to
an anonymous spool file and keeps only where it lies, so a run of 100,000 items holds a
few dozen bytes per item while it runs. At the end :meth:`ItemStore.records` parses the
lines into compact records (repeated values held once) in report order, and
:meth:`ItemStore.lines` streams the lines, byte for byte as the items wrote them, in
that same order for ``items.jsonl``.

A run of more than :data:`PARSED_ITEMS` items never holds its records parsed all at
once: :meth:`ItemStore.records` gives :class:`~.spooled.SpooledRecords`, whose records
are parsed from the spool a page at a time as they are read. The spool lives until
:meth:`ItemStore.close`.

A run of at most :data:`PARSED_ITEMS` items (:meth:`ItemStore.expect`) also keeps each
record handed over with its line, the very value the line was written from: its
records are ready at the end, with nothing to parse. Pure: no pytest.
"""

from __future__ import annotations

import tempfile
from array import array
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import IO, Any

from ..aggregate import record_sort_key
from ..jsonl import parse_lines
from ..shared_values import share_strings
from .spooled import SpooledRecords

__all__ = ["LENGTH_BITS", "LENGTH_MASK", "ItemStore", "compact_records", "encoded_line"]

#: Record fields whose values repeat from item to item (held once per distinct value).
_SHARED_FIELDS = ("suite", "suite_path", "product", "status", "output_status", "message")
#: Fields of nested tables whose values repeat (a rule's source, a case's genre...).
_SHARED_NESTED = ("source", "genre", "short")
#: Where a line lies is one int: its offset shifted past the low bits holding its length.
LENGTH_BITS = 32
LENGTH_MASK = (1 << LENGTH_BITS) - 1
#: Longest record line the store takes, in bytes: what its length bits hold.
_LONGEST = LENGTH_MASK
#: Lines parsed per decoder call (equal keys are one string object within one call).
_BLOCK = 1024
#: Runs of at most this many items keep their records parsed while they run (about
#: 2.5 KB each), so that the reports need not parse them; larger runs keep only lines.
PARSED_ITEMS = 20_000


class ItemStore:
    """Item records by key (a node id), last one wins, spooled to a temporary file."""

    def __init__(self) -> None:
        self._spool: IO[bytes] | None = None
        #: key -> where its latest line lies in the spool, ``offset << 32 | length`` (one
        #: int per item, not a tuple of two).
        self._where: dict[str, int] = {}
        self._end = 0
        self._order: list[str] | None = None
        #: Whether the spool's position is at its end (a read moves it).
        self._at_end = True
        #: key -> its record as parsed, in a run that keeps them (see :meth:`expect`).
        self._parsed: dict[str, dict[str, Any]] = {}
        self._keep_parsed = False
        #: The records :meth:`records` gave last in a large run (closed with the store).
        self._spooled: SpooledRecords | None = None

    def expect(self, items: int) -> None:
        """The run has ``items`` items: up to :data:`PARSED_ITEMS`, a record handed to
        :meth:`add` is kept parsed; beyond, only its line is."""
        self._keep_parsed = items <= PARSED_ITEMS

    def add(self, key: str, line: str, record: dict[str, Any] | None = None) -> None:
        """Keep ``line`` (one JSON object, no newline) as the record of ``key``;
        ``record``, when given, is what ``json.loads(line)`` would give (kept instead of
        parsing the line later, in a run that keeps records parsed)."""
        spool = self._opened()
        data = encoded_line(line)
        if not self._at_end:
            spool.seek(self._end)
            self._at_end = True
        # a newline after each line (not part of it) lets a reader of the spool find
        # the lines as they come (``report.recorder``)
        spool.write(data + b"\n")
        self._where[key] = self._end << LENGTH_BITS | len(data)
        self._end += len(data) + 1
        self._order = None
        if record is not None and self._keep_parsed:
            self._parsed[key] = record
        elif self._parsed:
            self._parsed.pop(key, None)

    def _opened(self) -> IO[bytes]:
        if self._spool is None:
            # closed by close(), or with the store when a run ends without reports
            self._spool = tempfile.TemporaryFile(prefix="dictbench-items-")  # noqa: SIM115
            self._at_end = True
        return self._spool

    def spool_fd(self) -> int:
        """The spool's file descriptor (opened now if need be): a child process given
        it reads each line, as the items add them, with ``os.pread``."""
        return self._opened().fileno()

    def places(self) -> array[int]:
        """Where each line lies in the spool, in the order of :meth:`records` (called
        first): ``offset << LENGTH_BITS | length``, 8 bytes each (a million items'
        places take 8 MB); the spool is flushed for a reader of its fd."""
        if self._order is None:
            self.records()
        assert self._order is not None and self._spool is not None
        self._spool.flush()
        return array("Q", map(self._where.__getitem__, self._order))

    def __contains__(self, key: object) -> bool:
        return key in self._where

    def __len__(self) -> int:
        return len(self._where)

    def line(self, key: str) -> str:
        """The line of ``key`` as it was added."""
        return self._read(self._where[key])

    def _lines_in(self, keys: Iterable[str]) -> Iterator[str]:
        for key in keys:
            yield self.line(key)

    def records(self) -> Sequence[Mapping[str, Any]]:
        """Every record, parsed and compact, sorted as every report lists them (suite,
        product, case id, repetition); fixes the order :meth:`lines` streams in. A run
        that kept its records parsed gets a list of dicts; a larger one
        :class:`~.spooled.SpooledRecords`."""
        keys = list(self._where)
        if not self._keep_parsed:
            sort_keys = [record_sort_key(r) for r in self._parse(keys)]
            self._order = [keys[i] for i in sorted(range(len(keys)),
                                                   key=sort_keys.__getitem__)]
            del sort_keys
            if self._spooled is not None:
                self._spooled.close()
            self._spooled = SpooledRecords(self._parsed_page,
                                           [self._where[key] for key in self._order])
            return self._spooled
        parsed = self._parsed
        records: list[dict[str, Any]] = [parsed.get(key) for key in keys]  # type: ignore[misc]
        missing = [i for i, record in enumerate(records) if record is None]
        for i, record in zip(missing, self._parse([keys[i] for i in missing]), strict=True):
            records[i] = record
        order = sorted(range(len(keys)), key=lambda i: record_sort_key(records[i]))
        self._order = [keys[i] for i in order]
        return [records[i] for i in order]

    def _parse(self, keys: Sequence[str]) -> Iterator[dict[str, Any]]:
        """The records of ``keys``, in that order, parsed a block at a time."""
        return self._parse_at([self._where[key] for key in keys])

    def _parse_at(self, places: Sequence[int]) -> Iterator[dict[str, Any]]:
        """The records whose lines lie at ``places``, parsed a block at a time (one
        decoder call per block) and compact within the block."""
        for start in range(0, len(places), _BLOCK):
            block = parse_lines([self._read(where) for where in places[start:start + _BLOCK]],
                                block=_BLOCK)
            yield from compact_records(block)

    def _parsed_page(self, places: Sequence[int]) -> list[dict[str, Any]]:
        return compact_records(parse_lines([self._read(where) for where in places]))

    def _read(self, where: int) -> str:
        assert self._spool is not None
        self._at_end = False
        self._spool.seek(where >> LENGTH_BITS)
        return self._spool.read(where & LENGTH_MASK).decode("utf-8")

    def lines(self) -> Iterator[str]:
        """Each line with its newline, in the order of :meth:`records` (called first)."""
        if self._order is None:
            self.records()
        assert self._order is not None
        for line in self._lines_in(self._order):
            yield line + "\n"

    def close(self) -> None:
        """Drop every record and the spool."""
        if self._spool is not None:
            self._spool.close()
        self._spool, self._where, self._end, self._order = None, {}, 0, None
        self._parsed = {}
        if self._spooled is not None:
            self._spooled.close()
            self._spooled = None


def encoded_line(line: str) -> bytes:
    """``line`` as the store keeps it, UTF-8. Raises ``ValueError`` for text that is not
    valid Unicode (a lone surrogate) and for a line longer than the store takes."""
    data = line.encode("utf-8")
    if len(data) > _LONGEST:
        raise ValueError(f"the record line is {len(data)} bytes, above the {_LONGEST} an "
                         "item store keeps")
    return data


def compact_records(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``records`` (changed in place), each value that many records repeat (suite,
    product, status, message, a rule's source...) held as one string object: a run of
    100,000 items keeps them all until its reports are written."""
    seen: dict[str, str] = {}
    for record in records:
        share_strings(record, _SHARED_FIELDS, seen)
        for table in (record.get("case"), *(record.get("rules") or {}).values()):
            if isinstance(table, dict):
                share_strings(table, _SHARED_NESTED, seen)
    return records
