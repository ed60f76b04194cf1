"""Unit conversion of parsed quantities through pint's unit registry (loaded lazily, once).

``typed.parse_quantity`` reads "212 °F" as ``Quantity(212, "fahrenheit")``; here two quantities are
equal when they are the same amount of one unit, or the same amount after pint converts one into the
other's unit (lengths, masses, volumes, temperatures with their offsets, speeds, data sizes...).
A printed conversion factor is rounded, so conversions tolerate 0.1 %.
"""

from __future__ import annotations

import math
import re
import shutil
import threading
from functools import lru_cache
from typing import Any

import structlog

from monitor.disk_cache import cache_dir
from monitor.equivalence.values.base import Quantity, numbers_close

log = structlog.get_logger(__name__)

_REGISTRY: Any = None
_LOCK = threading.Lock()

# The unit names of ``abbreviations.UNITS`` that pint spells otherwise.
_PINT_NAMES = {"celsius": "degC", "fahrenheit": "degF", "ton": "metric_ton"}


def registry() -> Any:
    """pint's UnitRegistry, built on first use. Parsing pint's definition files costs ~0.3 s; pint keeps what it
    parsed in ``pint/`` of the cache folder (``monitor/disk_cache.py``; pint's own cache, keyed by the contents of
    its definition files), so a later process reads it in a tenth of that. A cache pint cannot read is cleared and
    rebuilt, with a warning ``unit_registry_cache_unreadable``."""
    global _REGISTRY
    with _LOCK:
        if _REGISTRY is None:
            _REGISTRY = _build_registry()
            log.debug("unit_registry_loaded")
        return _REGISTRY


def _build_registry() -> Any:
    import pint

    folder = cache_dir() / "pint"
    try:
        return pint.UnitRegistry(cache_folder=folder)
    except Exception as error:  # a corrupt or half-written cache file: whatever pint raises on it
        log.warning("unit_registry_cache_unreadable", path=str(folder), error=repr(error), effect="rebuilt")
    shutil.rmtree(folder, ignore_errors=True)
    try:
        return pint.UnitRegistry(cache_folder=folder)
    except Exception as error:  # the same, again (another process writing it): no cache then
        log.warning("unit_registry_cache_unreadable", path=str(folder), error=repr(error), effect="not cached")
    return pint.UnitRegistry()


def pint_expression(unit: str) -> str:
    """A canonical unit name as a pint expression: "kilometer per hour" -> "(kilometer)/(hour)"."""
    if unit in _PINT_NAMES:
        return _PINT_NAMES[unit]
    if " per " in unit:
        head, _, rest = unit.partition(" per ")
        return f"({pint_expression(head)})/({pint_expression(rest)})"
    m = re.fullmatch(r"(square|cubic) (.+)", unit)
    if m:
        return f"({pint_expression(m.group(2))})**{2 if m.group(1) == 'square' else 3}"
    return unit.replace(" ", "_")


@lru_cache(maxsize=4096)
def _convert(amount: float, unit: str, target: str) -> float | None:
    import pint

    ureg = registry()
    try:
        q = ureg.Quantity(amount, ureg.parse_units(pint_expression(unit)))
        return float(q.to(ureg.parse_units(pint_expression(target))).magnitude)
    except (pint.errors.PintError, AttributeError, ValueError, TypeError):
        return None


ROUNDING_SHARE = 0.01  # a converted amount rounded as written may differ by at most this share of it


def equal(a: Quantity, b: Quantity) -> bool:
    """The same amount of one unit, or the same after converting one into the other's unit.

    A converted amount is usually rounded: "72 °F" / "22 °C" (22.2...) are equal when the conversion of
    one, rounded to the digits the other was written with, gives the other, and the rounding is under 1 %
    of the amount on an absolute scale (kelvin for temperatures). "1 mile" / "2 km" round alike but
    differ by a fifth; "70 °F" / "22 °C" do not round alike (21.1).
    """
    if a.unit == b.unit:
        return numbers_close(a.amount, b.amount)
    return _rounds_to(a, b) or _rounds_to(b, a)


def _rounds_to(a: Quantity, b: Quantity) -> bool:
    """``a`` converted into ``b``'s unit is ``b`` as written (to its digits, within ROUNDING_SHARE)."""
    converted = _convert(a.amount, a.unit, b.unit)
    if converted is None:
        return False
    if math.isclose(converted, b.amount, rel_tol=1e-3, abs_tol=1e-9):
        return True
    if b.decimals is None or abs(converted - b.amount) > 0.5 * 10.0**-b.decimals + 1e-9:
        return False
    base_a, base_b = _in_base_units(a.amount, a.unit), _in_base_units(b.amount, b.unit)
    if base_a is None or base_b is None:
        return False
    return abs(base_a - base_b) <= ROUNDING_SHARE * abs(base_b)


@lru_cache(maxsize=4096)
def _in_base_units(amount: float, unit: str) -> float | None:
    """The amount in SI base units (kelvin, metre, kilogram, second...): a scale with a true zero."""
    import pint

    ureg = registry()
    try:
        return float(ureg.Quantity(amount, ureg.parse_units(pint_expression(unit))).to_base_units().magnitude)
    except (pint.errors.PintError, AttributeError, ValueError, TypeError):
        return None
