"""Reference data the comparators look things up in: abbreviations, airports, cities, demonyms, WordNet, and
the curated tables in ``data/`` (read through ``data_table``)."""

from __future__ import annotations

import json
from importlib import resources
from typing import Any


def data_table(name: str) -> Any:
    """A curated table of ``data/`` (``"people.json"``), parsed."""
    return json.loads(resources.files(__name__).joinpath("data", name).read_text(encoding="utf-8"))
