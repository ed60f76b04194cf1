"""Judge-only (reference-free) scoring: tool catalog checks, grounding, and an optional LLM judge."""

from monitor.judge.catalog import CatalogError, CatalogProblem, ToolCatalog, load_catalog, parse_catalog
from monitor.judge.config import JudgeSettings, judge_settings_from_env
from monitor.judge.grounding import GroundingChecker, sources_of
from monitor.judge.llm import JudgeMetrics, JudgeUnavailable, JudgeVerdict, LLMJudge
from monitor.judge.prompts import PROMPT_VERSION
from monitor.judge.reference import LLMReplyComparator

__all__ = [
    "PROMPT_VERSION",
    "CatalogError",
    "CatalogProblem",
    "GroundingChecker",
    "JudgeMetrics",
    "JudgeSettings",
    "JudgeUnavailable",
    "JudgeVerdict",
    "LLMJudge",
    "LLMReplyComparator",
    "ToolCatalog",
    "judge_settings_from_env",
    "load_catalog",
    "parse_catalog",
    "sources_of",
]
