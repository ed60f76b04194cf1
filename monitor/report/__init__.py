"""Reports of dialog results and topic records: summaries, tables, one-line record views."""

from monitor.report.records import as_json, conversation_of, format_line, record_kind
from monitor.report.summary import summarize
from monitor.report.table import plural, render_dialog, render_summary, render_table, render_turns

__all__ = [
    "as_json",
    "conversation_of",
    "format_line",
    "plural",
    "record_kind",
    "render_dialog",
    "render_summary",
    "render_table",
    "render_turns",
    "summarize",
]
