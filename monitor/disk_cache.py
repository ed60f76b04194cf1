"""Tables derived from installed data files, built once and kept on disk in the user's cache folder.

Some lookup tables cost seconds of CPU to derive from the files they come from (WordNet's antonyms from the
WordNet database, the city gazetteer from GeoNames' cities), and every ``aem`` process would pay that again.
:func:`cached_table` builds such a table once and keeps it as JSON under ``$AEM_CACHE_DIR`` (else
``$XDG_CACHE_HOME/aem-monitor``, else ``~/.cache/aem-monitor``), in ``tables/``, never inside the package.

A file is named by a key: the sha256 of every source file's contents (the data files, and the modules whose
code derives the table), the table's own version, the versions of the packages that read the sources and
Python's. A changed source or recipe is another key, so a stale table is never read. Files are written to a
temporary name and renamed, so processes racing to build one are safe; an unreadable or corrupt file is rebuilt
with a warning (``derived_table_unreadable``), and a cache folder that cannot be written leaves the table built
in memory (``derived_table_not_saved``). When a table is built, the files of the same table under other keys that
have not been written for 30 days are deleted (``derived_table_pruned``): a key that changed leaves its old file
behind, and a cache shared by several installations keeps what they still build.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from importlib import metadata
from pathlib import Path
from typing import Any, TypeVar

import structlog

log = structlog.get_logger(__name__)

CACHE_DIR_ENV = "AEM_CACHE_DIR"
STALE_AFTER_S = 30 * 86_400  # a table file under another key, unwritten this long, is deleted at the next build
T = TypeVar("T")

# How each table was obtained in this process: ("wordnet", "built") or ("wordnet", "cached").
LOADS: Counter[tuple[str, str]] = Counter()
_LOCK = threading.Lock()


def cache_dir() -> Path:
    """The monitor's cache folder: ``$AEM_CACHE_DIR``, else the user's cache folder."""
    explicit = os.environ.get(CACHE_DIR_ENV)
    if explicit:
        return Path(explicit).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "aem-monitor"


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def package_version(name: str) -> str:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "absent"


def table_key(name: str, version: int, sources: Iterable[Path], packages: Iterable[str] = ()) -> str:
    """The digest a table is filed under: its name and version, its sources' contents, the readers' versions and
    Python's."""
    digest = hashlib.sha256(f"{name}\0{version}\0python {sys.version_info[0]}.{sys.version_info[1]}".encode())
    for path in sources:
        digest.update(f"\0{path.name}\0{file_sha256(path)}".encode())
    for package in packages:
        digest.update(f"\0{package}={package_version(package)}".encode())
    return digest.hexdigest()[:24]


def table_path(name: str, key: str) -> Path:
    return cache_dir() / "tables" / f"{name}-{key}.json"


def cached_table(
    name: str,
    *,
    version: int,
    sources: Iterable[Path],
    build: Callable[[], T],
    encode: Callable[[T], Any],
    decode: Callable[[Any], T],
    packages: Iterable[str] = (),
) -> T:
    """The table ``build()`` derives from ``sources``: read from the cache when a file of the same key is there
    (``decode`` turns its JSON into the table), else built and saved (``encode`` gives the JSON)."""
    key = table_key(name, version, sources, packages)
    path = table_path(name, key)
    if path.is_file():
        try:
            payload = json.loads(path.read_text(encoding="utf-8"))
            if not isinstance(payload, Mapping) or payload.get("key") != key:
                raise ValueError("not this table's key")
            table = decode(payload["table"])
        except (OSError, ValueError, KeyError, TypeError, IndexError, AttributeError) as error:
            log.warning("derived_table_unreadable", table=name, path=str(path), error=repr(error), effect="rebuilt")
        else:
            _count(name, "cached")
            log.debug("derived_table_loaded", table=name, source="cache")
            return table
    table = build()
    _count(name, "built")
    _save(path, {"key": key, "table": encode(table)}, name)
    _prune(name, keep=path)
    log.debug("derived_table_loaded", table=name, source="built")
    return table


def _count(name: str, how: str) -> None:
    with _LOCK:
        LOADS[name, how] += 1


def _save(path: Path, payload: dict[str, Any], name: str) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump(payload, f, separators=(",", ":"))
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
    except OSError as error:
        log.warning("derived_table_not_saved", table=name, path=str(path), error=repr(error))


def _prune(name: str, keep: Path) -> None:
    """Delete ``name``'s files under other keys that were last written more than ``STALE_AFTER_S`` ago."""
    now = time.time()
    for other in keep.parent.glob(f"{name}-*.json"):
        try:
            if other != keep and now - other.stat().st_mtime > STALE_AFTER_S:
                other.unlink()
                log.info("derived_table_pruned", table=name, path=str(other))
        except OSError as error:  # gone already, or not ours to delete
            log.debug("derived_table_not_pruned", table=name, path=str(other), error=repr(error))
