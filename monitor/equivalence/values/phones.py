"""Phone numbers through Google's libphonenumber (the ``phonenumbers`` package): one number, any format.

A value reads as a phone number when it has a phone's shape (7-15 digits with the usual separators, or
a leading "+", or 10-15 bare digits) and libphonenumber finds it a possible number. Numbers without a
country code are read in the region of the other value's number when that one has a code, else in
``DEFAULT_REGION``. Two readings are the same number when their E.164 forms are equal.
"""

from __future__ import annotations

import re
from functools import lru_cache

DEFAULT_REGION = "US"

_SHAPE = re.compile(r"^(?:tel:)?\+?[\d\s().\-/]{7,24}(?:\s*(?:x|ext\.?|extension)\s*\d{1,6})?$", re.I)


def _looks_like_phone(text: str) -> bool:
    t = text.strip()
    if not _SHAPE.match(t):
        return False
    digits = re.sub(r"\D", "", t.split("x")[0])
    if not 7 <= len(digits) <= 15:
        return False
    bare = t.lstrip("+").isdigit()
    return t.startswith("+") or not bare or len(digits) >= 10


@lru_cache(maxsize=16384)
def _parse(text: str, region: str) -> tuple[str, str] | None:
    """(E.164 with extension, region of the number) or None."""
    import phonenumbers

    if not _looks_like_phone(text):
        return None
    try:
        number = phonenumbers.parse(text.strip().removeprefix("tel:"), region)
    except phonenumbers.NumberParseException:
        return None
    if not phonenumbers.is_possible_number(number):
        return None
    e164 = phonenumbers.format_number(number, phonenumbers.PhoneNumberFormat.E164)
    found = phonenumbers.region_code_for_number(number) or region
    return (e164 + (f";ext={number.extension}" if number.extension else ""), found)


def phone_key(text: str, region: str = DEFAULT_REGION) -> str | None:
    """The E.164 form of a phone number written any way, or None when ``text`` is not one."""
    parsed = _parse(text, region)
    return parsed[0] if parsed else None


def phone_keys(a: str, b: str) -> tuple[str, str] | None:
    """Both values as phone numbers, the national one read in the other's region; None unless both are."""
    if not (_looks_like_phone(a) and _looks_like_phone(b)):
        return None
    ra = _parse(a, DEFAULT_REGION) if a.strip().startswith("+") else None
    rb = _parse(b, DEFAULT_REGION) if b.strip().startswith("+") else None
    region_a = rb[1] if rb and not ra else DEFAULT_REGION
    region_b = ra[1] if ra and not rb else DEFAULT_REGION
    ka, kb = _parse(a, region_a), _parse(b, region_b)
    return (ka[0], kb[0]) if ka and kb else None
