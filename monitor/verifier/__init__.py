"""The reply verifier: a small cross-encoder trained by this project (``train/``) that reads a pair of texts and
says whether the second says the same as the first, changes or contradicts a fact of it, or leaves one out.

``model`` runs the shipped int8 ONNX file; ``replies`` turns its probabilities (and the typed value comparators'
evidence) into reply verdicts with a decision trace; ``grounding`` checks a reply against what the conversation
has said.
"""

from monitor.verifier.model import LABELS, PairScorer, Probabilities, VerifierUnavailable, load_verifier
from monitor.verifier.replies import VerifierConfig, VerifierReplyComparator

__all__ = [
    "LABELS",
    "PairScorer",
    "Probabilities",
    "VerifierConfig",
    "VerifierReplyComparator",
    "VerifierUnavailable",
    "load_verifier",
]
