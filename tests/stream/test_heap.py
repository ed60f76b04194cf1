"""`aem run` keeps the cyclic garbage collector off its set-up heap while it streams (monitor/stream/heap.py)."""

from __future__ import annotations

import gc

from prometheus_client import CollectorRegistry

from monitor.scoring import ScoringConfig
from monitor.stream.heap import freeze_set_up, thaw
from monitor.stream.settings import MonitorSettings
from monitor.wiring import build_engine, build_monitor
from tests.stream.fakes import FakeConsumer, FakeProducer


def test_freezing_moves_the_live_heap_out_of_collection_until_thawed():
    gc.unfreeze()
    kept = [[i] for i in range(10)]  # tracked containers, alive while frozen
    freeze_set_up()
    assert gc.get_freeze_count() >= len(kept)
    thaw()
    assert gc.get_freeze_count() == 0


def test_the_monitor_freezes_when_started_and_thaws_when_it_stops():
    gc.unfreeze()
    settings = MonitorSettings(state_topic="", metrics_port=0)
    monitor = build_monitor(
        settings,
        engine=build_engine(ScoringConfig(), embed=False),
        registry=CollectorRegistry(),
        consumer=FakeConsumer(),
        producer=FakeProducer(),
    )
    assert gc.get_freeze_count() == 0
    monitor.start()
    assert gc.get_freeze_count() > 0
    monitor._shutdown()
    assert gc.get_freeze_count() == 0
