"""Reports of dialog results: summaries and human-readable tables."""

from monitor.report.summary import summarize
from monitor.report.table import render_table

__all__ = ["render_table", "summarize"]
