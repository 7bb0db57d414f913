"""The ``rubric`` method for Japanese dictation (see ``docs/rubric.md``)."""

from .lint import lint_case
from .method import RubricMethod
from .rules import AUTOMATED_RULES, COMMON_RULES, LAYERS, RULES, Rule

__all__ = [
    "AUTOMATED_RULES",
    "COMMON_RULES",
    "LAYERS",
    "RULES",
    "RubricMethod",
    "Rule",
    "lint_case",
]
