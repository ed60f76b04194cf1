"""Street addresses in USPS standard form (Publication 28) through ``usaddress-scourgify``.

"2100 Hyde St." and "2100 Hyde Street", "350 5th Ave" and "350 Fifth Avenue", "455 Market St Suite 200" and
"455 Market Street, Ste 200" are one address. A value reads as an address only when it starts with a house
number followed by a word and its street line ends in a USPS street suffix; the street line (and the unit
line when both have one) must then agree. A
city, state or ZIP code written on one side only does not make a difference; written on both, they must
agree. The parser is imported on first use.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from text_to_num import alpha2digit

_SHAPE = re.compile(r"^\s*\d+[a-z]?(?:-\d+)?\s+[a-z0-9]", re.I)


@dataclass(frozen=True)
class Address:
    street: str
    unit: str | None
    city: str | None
    state: str | None
    postal_code: str | None


def _ordinals(text: str) -> str:
    """Spelled ordinals as digits: "FIFTH AVE" -> "5TH AVE"."""
    try:
        return str(alpha2digit(text.lower(), "en")).upper()
    except (ValueError, IndexError, TypeError):
        return text


@lru_cache(maxsize=1)
def _street_types() -> frozenset[str]:
    """USPS standard street suffixes ("ST", "AVE", "BLVD"...), from scourgify's Publication 28 table."""
    from scourgify.address_constants import STREET_TYPE_ABBREVIATIONS

    return frozenset(STREET_TYPE_ABBREVIATIONS.values())


@lru_cache(maxsize=16384)
def parse_address(text: str) -> Address | None:
    """A US street address in standard form, or None when ``text`` is not one."""
    if not _SHAPE.match(text) or len(text) > 200:
        return None
    from scourgify import normalize_address_record
    from scourgify.exceptions import AddressNormalizationError

    try:
        record = normalize_address_record(text)
    except (AddressNormalizationError, ValueError, TypeError, KeyError):
        return None
    street = record.get("address_line_1")
    if not street or not re.match(r"^\d", street) or street.split()[-1] not in _street_types():
        return None  # "2 people", "5 stars": a number and a word, no street
    return Address(_ordinals(street), record.get("address_line_2"), record.get("city"), record.get("state"),
                   record.get("postal_code"))


def same_address(a: str, b: str) -> bool | None:
    """Whether two values are one street address; None unless both read as addresses."""
    pa, pb = parse_address(a), parse_address(b)
    if pa is None or pb is None:
        return None
    if pa.street != pb.street:
        return False
    for x, y in ((pa.unit, pb.unit), (pa.city, pb.city), (pa.state, pb.state), (pa.postal_code, pb.postal_code)):
        if x is not None and y is not None and x != y:
            return False
    return True
