"""Comparing values (tool arguments, facts of a reply): the comparator, its typed stages and the semantic fallback."""
