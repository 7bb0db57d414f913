"""LLM judges: grading guide, requests, API client, verdict cache, double judging, audit.

Typical use (the plugin does this)::

    run = await judge_all(requests, judges, mode="live", cache=VerdictCache(path),
                          client_factory=AnthropicClientFactory())
    combined = combine(run, load_decisions("adjudications.jsonl"))
    write_pending("reports/adjudication-pending.jsonl", combined.pending)

See docs/judge.md.
"""

from importlib import import_module
from typing import Any

#: Public name -> submodule defining it. Submodules load on first use, so importing the
#: plugin does not import the anthropic SDK until a judge really runs.
_WHERE = {
    "Agreement": "audit",
    "AgreementTable": "audit",
    "AnthropicClientFactory": "client",
    "AnthropicJudgeClient": "client",
    "ClientFactory": "client",
    "Combined": "double",
    "DECISION_POLICY": "guide",
    "DECISION_SCHEMA": "adjudications",
    "DEFAULT_CACHE_FILE": "cache",
    "Decision": "double",
    "GUIDE_TEXT": "guide",
    "GUIDE_VERSION": "guide",
    "JudgeCacheWarning": "cache",
    "Budget": "estimate",
    "Estimate": "estimate",
    "BatchBook": "batch",
    "JudgeClient": "client",
    "JudgeClientFactory": "client",
    "JudgeTask": "task",
    "OpenAIJudgeClient": "openai_client",
    "Prompt": "task",
    "RubricTask": "request",
    "JudgeConfig": "records",
    "JudgeMode": "runner",
    "JudgeOutcome": "records",
    "JudgeRequest": "records",
    "JudgeRun": "runner",
    "JudgeSettings": "settings",
    "ModelSpend": "records",
    "PendingDecision": "double",
    "RetryPolicy": "records",
    "RuleVerdict": "records",
    "TOOL_NAME": "request",
    "TokenUsage": "records",
    "Verdict": "records",
    "VerdictCache": "cache",
    "build_params": "request",
    "cache_key": "request",
    "combine": "double",
    "human_agreement": "audit",
    "judge_agreement": "audit",
    "judge_all": "runner",
    "judge_all_sync": "runner",
    "load_decisions": "adjudications",
    "output_hash": "records",
    "parse_judge_settings": "settings",
    "rejudge_sample": "runner",
    "self_consistency": "audit",
    "write_pending": "adjudications",
}


def __getattr__(name: str) -> Any:
    if name == "guide":
        return import_module(".guide", __name__)
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f".{_WHERE[name]}", __name__), name)
    globals()[name] = value
    return value


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
    "BatchBook",
    "Budget",
    "ClientFactory",
    "Combined",
    "Decision",
    "Estimate",
    "JudgeCacheWarning",
    "JudgeClient",
    "JudgeClientFactory",
    "JudgeConfig",
    "JudgeMode",
    "JudgeOutcome",
    "JudgeRequest",
    "JudgeRun",
    "JudgeSettings",
    "JudgeTask",
    "ModelSpend",
    "OpenAIJudgeClient",
    "PendingDecision",
    "Prompt",
    "RetryPolicy",
    "RubricTask",
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
