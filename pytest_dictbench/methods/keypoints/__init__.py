"""The ``keypoints`` method for spoken journal entries (see ``docs/keypoints.md``)."""

from .guide import GUIDE_VERSION, KEYPOINTS_PROTOCOL
from .method import Keypoints
from .metrics import PropositionCounts, f_beta
from .names import Extracted, NameScores, compare_names, extract_names

__all__ = [
    "GUIDE_VERSION",
    "KEYPOINTS_PROTOCOL",
    "Extracted",
    "Keypoints",
    "NameScores",
    "PropositionCounts",
    "compare_names",
    "extract_names",
    "f_beta",
]
