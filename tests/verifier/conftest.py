from __future__ import annotations

import pytest

from monitor.equivalence.types import ReplyComparing
from tests.support.replies import shipped_comparator


@pytest.fixture(scope="module", params=[False, True], ids=["default", "fused"])
def shipped(request: pytest.FixtureRequest) -> ReplyComparing:
    """The reply comparator ``aem score`` builds, by default and with the fused decision (a test module that needs
    only the default defines its own ``shipped``)."""
    return shipped_comparator(fusion=request.param)
