"""The ``verbatim`` scoring method: typed disfluency metrics, vWER and iWER.

See ``docs/verbatim.md`` for the transcription convention, the label rules, the
alignment costs and the metric definitions.
"""

from .labels import DISFLUENCY_TYPES, GoldLabels, gold_labels, gold_problems
from .method import Verbatim, case_problems
from .normalize import normalize, normalize_tokens

__all__ = [
    "DISFLUENCY_TYPES",
    "GoldLabels",
    "Verbatim",
    "case_problems",
    "gold_labels",
    "gold_problems",
    "normalize",
    "normalize_tokens",
]
