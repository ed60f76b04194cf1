"""After a rebalance a member must hold only conversations of the partitions it owns.

With the eager protocol a rebalance first revokes every partition, then (a poll or more later)
assigns the new set. `Monitor._handle_rebalance` dropped the revoked conversations and then restored
`consumer.assignment() - restored` — but mid-rebalance `assignment()` still returns the old set, so
the member restored *all* its old partitions again, including those about to go to the new member.
Those conversations stayed in memory as zombies: at their idle timeout the old member finished them,
emitting partial dialog summaries (wrong, duplicated) and writing "finished" checkpoints over the
real owner's on the state topic.
"""

from __future__ import annotations

import pytest

from monitor.demo.traffic import sample_dialogs
from monitor.models.dialog import Dialog
from monitor.scoring import ScoringConfig
from monitor.tools.replay import dialog_events
from monitor.wiring import build_engine
from tests.support.kafka import MonitorThread, TopicSet, send, settings_for
from tests.support.polling import wait_until

pytestmark = pytest.mark.integration


def test_no_conversation_of_a_foreign_partition_after_a_rebalance(broker):
    engine = build_engine(ScoringConfig(), embed=False)
    topics = TopicSet.fresh(broker.bootstrap, partitions=4)
    settings = settings_for(broker.bootstrap, topics, state_topic=topics.traces + ".state", topic_partitions=4)
    first = MonitorThread(settings, engine).start()
    second = None
    try:
        dialogs = [Dialog.model_validate(d) for d in sample_dialogs(per_release=10, seed=4)]
        opening = [e for d in dialogs for e in list(dialog_events(d))[:2]]  # two turns each: all stay open
        send(broker.bootstrap, topics.traces, opening)
        wait_until(lambda: len(first.monitor.processor.open) == len(dialogs), timeout=30, what="all dialogs open")

        second = MonitorThread(settings, engine).start()

        def settled() -> bool:
            """Both members own disjoint halves of the 4 partitions and have finished handling the rebalance."""
            a, b = first.monitor.link.consumer.assignment(), second.monitor.link.consumer.assignment()
            handled = all(
                not m.monitor.partitions.rebalancing
                and all(m.monitor.partitions.ready(tp) for tp in m.monitor.link.consumer.assignment())
                for m in (first, second)
            )
            return bool(a and b and not (a & b) and len(a | b) == 4 and handled)

        wait_until(settled, timeout=60, what="the rebalance settled on both members")
        for member in (first, second):
            mine = {tp.partition for tp in member.monitor.link.consumer.assignment()}
            held = {member.monitor.partitions.owner[cid].partition for cid in member.monitor.processor.open}
            assert held <= mine, f"conversations of partitions {sorted(held - mine)} held by a member owning {mine}"
    finally:
        if second is not None:
            second.stop()
        first.stop()
