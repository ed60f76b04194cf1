"""Judge-only (reference-free) scoring: tool catalog checks, grounding, and an optional LLM judge."""

from monitor.judge.catalog import CatalogError, CatalogProblem, ToolCatalog, load_catalog, parse_catalog
from monitor.judge.grounding import GroundingChecker, sources_of
from monitor.judge.llm import JudgeMetrics, JudgeUnavailable, JudgeVerdict, LLMJudge, LLMJudgeConfig
from monitor.judge.prompts import PROMPT_VERSION

__all__ = [
    "PROMPT_VERSION",
    "CatalogError",
    "CatalogProblem",
    "GroundingChecker",
    "JudgeMetrics",
    "JudgeUnavailable",
    "JudgeVerdict",
    "LLMJudge",
    "LLMJudgeConfig",
    "ToolCatalog",
    "load_catalog",
    "parse_catalog",
    "sources_of",
]
