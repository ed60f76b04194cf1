"""Fixtures of the hardening tests: a throw-away PKI and a TLS front door (tests/support/tls.py)."""

from __future__ import annotations

import ssl
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.tls import FrontDoor, make_pki


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return make_pki(tmp_path_factory.mktemp("pki"))


@pytest.fixture
def front_door(pki: tuple[Path, Path]) -> Iterator[FrontDoor]:
    cert, key = pki
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(str(cert), str(key))
    context.load_verify_locations(str(cert))
    context.verify_mode = ssl.CERT_REQUIRED
    door = FrontDoor(context)
    door.sock.bind(("127.0.0.1", 0))
    door.sock.listen(8)
    threading.Thread(target=door.serve, name="tls-front-door", daemon=True).start()
    try:
        yield door
    finally:
        door.sock.close()


