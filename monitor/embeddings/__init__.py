"""Sentence embeddings: the packaged MiniLM encoder (fp32 on torch, fp32 or int8 on ONNX Runtime), its int8
export, and the cached cosine scorer the value comparators and the embedding reply scorer use."""

from monitor.embeddings.semantic import EmbeddingScorer, SemanticScorer

__all__ = ["EmbeddingScorer", "SemanticScorer"]
