"""The store's tables (SQLAlchemy Core), the same on SQLite and PostgreSQL.

``runs`` holds one row per run (its facts and its ``dictbench.json`` and
``run-info.json`` texts); ``run_suites``, ``run_products`` and ``summaries`` its suites,
products and suite x product entries (what history and trends query); ``items`` every
item record as its ``items.jsonl`` line, with the fields that are filtered on beside it.
``case_scores`` (schema version 2) holds, per suite x product of a run, what a paired
comparison reads: each case's final score and whether it failed, in compact columns, so
a trend over a thousand runs reads a thousand rows, not a million items.
``official_conditions`` and ``official_runs`` hold pre-registered conditions and
declarations. ``dictbench_schema`` lists the migrations applied (see ``migrations``).
JSON values are stored as text: the same bytes on both backends.
"""

from __future__ import annotations

from sqlalchemy import (
    Boolean,
    Column,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
)

__all__ = [
    "case_scores",
    "items",
    "metadata",
    "official_conditions",
    "official_runs",
    "run_products",
    "run_suites",
    "runs",
    "schema_versions",
    "summaries",
]

metadata = MetaData()

#: One row per migration applied: the store's schema version is the largest.
schema_versions = Table(
    "dictbench_schema", metadata,
    Column("version", Integer, primary_key=True, autoincrement=False),
    Column("applied_utc", String(32), nullable=False),
    Column("applied_by", String(64), nullable=False),
)

runs = Table(
    "runs", metadata,
    Column("id", Integer, primary_key=True),
    Column("run_id", String(64), nullable=False, unique=True),
    Column("started_utc", String(32)),
    Column("finished_utc", String(32), nullable=False),
    Column("git_commit", String(64)),
    Column("git_dirty", Boolean),
    Column("dictbench_version", String(64), nullable=False),
    Column("host", String(255), nullable=False),
    Column("cohort", String(64)),
    Column("environment", Text, nullable=False),
    Column("options", Text, nullable=False),
    Column("exit_status", Integer),
    Column("complete", Boolean, nullable=False),
    Column("stop_reason", Text, nullable=False),
    Column("source", String(16), nullable=False),
    Column("item_count", Integer, nullable=False),
    Column("report", Text, nullable=False),
    Column("run_info", Text, nullable=False),
    Index("runs_finished", "finished_utc"),
)

run_suites = Table(
    "run_suites", metadata,
    Column("run", Integer, ForeignKey("runs.id", ondelete="CASCADE"), primary_key=True),
    Column("suite", String(255), primary_key=True),
    Column("version", String(64), nullable=False),
    Column("digest", String(64)),
    Column("private", Boolean, nullable=False),
    Column("title", Text, nullable=False),
    Column("locale", String(64), nullable=False),
    Column("method", String(64), nullable=False),
    Index("run_suites_suite", "suite", "version"),
)

run_products = Table(
    "run_products", metadata,
    Column("run", Integer, ForeignKey("runs.id", ondelete="CASCADE"), primary_key=True),
    Column("product", String(255), primary_key=True),
    Column("version", String(255), nullable=False),
    Column("adapter", String(64), nullable=False),
    Column("settings_digest", String(64)),
    Column("environment", Text, nullable=False),
)

summaries = Table(
    "summaries", metadata,
    Column("run", Integer, ForeignKey("runs.id", ondelete="CASCADE"), primary_key=True),
    Column("suite", String(255), primary_key=True),
    Column("product", String(255), primary_key=True),
    Column("suite_version", String(64), nullable=False),
    Column("product_version", String(255), nullable=False),
    Column("score", Float),
    Column("score_low", Float),
    Column("score_high", Float),
    Column("items", Integer, nullable=False),
    Column("passed", Integer, nullable=False),
    Column("failed", Integer, nullable=False),
    Column("errors", Integer, nullable=False),
    Column("not_tested", Integer, nullable=False),
    Index("summaries_series", "suite", "product", "suite_version"),
)

items = Table(
    "items", metadata,
    Column("run", Integer, ForeignKey("runs.id", ondelete="CASCADE"), primary_key=True),
    Column("ordinal", Integer, primary_key=True, autoincrement=False),
    Column("suite", String(255), nullable=False),
    Column("product", String(255), nullable=False),
    Column("case_id", String(255), nullable=False),
    Column("repetition", Integer, nullable=False),
    Column("status", String(32), nullable=False),
    Column("score", Float),
    Column("provisional", Integer, nullable=False),
    Column("output_sha256", String(64)),
    Column("record", Text, nullable=False),
    Index("items_pairs", "run", "suite", "product"),
)

#: Per suite x product of a run (version 2): its cases (a JSON list, sorted), each one's
#: final score (the median of its final repetitions; little-endian float64) and whether
#: it failed (one byte each), and how many cases have only provisional repetitions.
case_scores = Table(
    "case_scores", metadata,
    Column("run", Integer, ForeignKey("runs.id", ondelete="CASCADE"), primary_key=True),
    Column("suite", String(255), primary_key=True),
    Column("product", String(255), primary_key=True),
    Column("cases", Text, nullable=False),
    Column("scores", LargeBinary, nullable=False),
    Column("failed", LargeBinary, nullable=False),
    Column("provisional", Integer, nullable=False),
)

official_conditions = Table(
    "official_conditions", metadata,
    Column("id", Integer, primary_key=True),
    Column("suite", String(255), nullable=False),
    Column("product", String(255), nullable=False),  # "" for every product
    Column("max_items", Integer, nullable=False),
    Column("status", String(32)),
    Column("flag", String(255)),
    Column("registered_utc", String(32), nullable=False),
    Column("note", Text, nullable=False),
    UniqueConstraint("suite", "product", name="official_conditions_one"),
)

official_runs = Table(
    "official_runs", metadata,
    Column("id", Integer, primary_key=True),
    Column("run", Integer, ForeignKey("runs.id", ondelete="CASCADE"), nullable=False),
    Column("suite", String(255), nullable=False),
    Column("product", String(255), nullable=False),
    Column("declared_utc", String(32), nullable=False),
    Column("reason", Text, nullable=False),
    Column("condition", Text),
    Column("passed_over", Text, nullable=False),
    Index("official_runs_pair", "suite", "product"),
)
