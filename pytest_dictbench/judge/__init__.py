"""LLM judges: grading guide, requests, API client, verdict cache, double judging, audit.

Typical use (the plugin does this)::

    run = await judge_all(requests, judges, mode="live", cache=VerdictCache(path),
                          client_factory=AnthropicClientFactory())
    combined = combine(run, load_decisions("adjudications.jsonl"))
    write_pending("reports/pending.jsonl", combined.pending)

See docs/judge.md.
"""

from . import guide
from .adjudications import DECISION_SCHEMA, load_decisions, write_pending
from .audit import (
    Agreement,
    AgreementTable,
    human_agreement,
    judge_agreement,
    self_consistency,
)
from .cache import DEFAULT_CACHE_FILE, JudgeCacheWarning, VerdictCache
from .client import AnthropicClientFactory, AnthropicJudgeClient, ClientFactory, JudgeClient
from .double import Combined, Decision, PendingDecision, combine
from .guide import DECISION_POLICY, GUIDE_TEXT, GUIDE_VERSION
from .records import (
    JudgeConfig,
    JudgeOutcome,
    JudgeRequest,
    ModelSpend,
    RuleVerdict,
    TokenUsage,
    Verdict,
    output_hash,
)
from .request import TOOL_NAME, build_params, cache_key
from .runner import JudgeMode, JudgeRun, RetryPolicy, judge_all, judge_all_sync, rejudge_sample
from .settings import JudgeSettings, parse_judge_settings

__all__ = [
    "DECISION_POLICY",
    "DECISION_SCHEMA",
    "DEFAULT_CACHE_FILE",
    "GUIDE_TEXT",
    "GUIDE_VERSION",
    "TOOL_NAME",
    "Agreement",
    "AgreementTable",
    "AnthropicClientFactory",
    "AnthropicJudgeClient",
    "ClientFactory",
    "Combined",
    "Decision",
    "JudgeCacheWarning",
    "JudgeClient",
    "JudgeConfig",
    "JudgeMode",
    "JudgeOutcome",
    "JudgeRequest",
    "JudgeRun",
    "JudgeSettings",
    "ModelSpend",
    "PendingDecision",
    "RetryPolicy",
    "RuleVerdict",
    "TokenUsage",
    "Verdict",
    "VerdictCache",
    "build_params",
    "cache_key",
    "combine",
    "guide",
    "human_agreement",
    "judge_agreement",
    "judge_all",
    "judge_all_sync",
    "load_decisions",
    "output_hash",
    "parse_judge_settings",
    "rejudge_sample",
    "self_consistency",
    "write_pending",
]
