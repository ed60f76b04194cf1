"""Which partitions this member owns, which conversation lives on which, and their restore.

The poll loop acts on the rebalances recorded (`PartitionState.sync`): the conversations of partitions that
moved away are dropped (their next owner restores them), those kept stay in memory, newly assigned ones are
restored from the state changelog before any of their events is scored; nothing is scored mid-rebalance.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable

import structlog
from kafka import ConsumerRebalanceListener, TopicPartition
from kafka.errors import KafkaError

from monitor.stream.changelog import RestoreInterrupted, conversation_of_key, group_changelog, turn_of_key
from monitor.stream.emissions import Outcome, RestoreRefused
from monitor.stream.processor import TurnProcessor
from monitor.stream.state import StateStore

log = structlog.get_logger(__name__)


class Rebalances(ConsumerRebalanceListener):
    """Runs on the client's IO thread: only records what happened. kafka-python's eager assignors revoke the whole
    assignment, then assign the new one; a partition in both keeps its fetch position, so its conversations stay
    (a restore would lose what was scored since the last checkpoint): only partitions revoked and not assigned
    back (`moved`), or lost with the membership, are given up. Between the two, `pending`: score nothing."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.moved: set[TopicPartition] = set()  # gone from this member: drop their conversations
        self.assigned: set[TopicPartition] = set()  # the assignments seen since the last take
        self.revoking: set[TopicPartition] = set()  # revoked; whether they come back is not yet known
        self.pending = False  # a rebalance began and its assignment has not arrived

    def on_partitions_revoked(self, revoked: Iterable[TopicPartition]) -> None:
        with self.lock:
            self.revoking.update(revoked)
            self.pending = True

    def on_partitions_lost(self, lost: Iterable[TopicPartition]) -> None:
        """Evicted from the group: positions restart from the committed offsets, so state is reloaded."""
        with self.lock:
            self.moved.update(lost)
            self.pending = True

    def on_partitions_assigned(self, assigned: Iterable[TopicPartition]) -> None:
        with self.lock:
            now = set(assigned)
            self.moved.update(self.revoking - now)
            self.revoking = set()
            self.assigned.update(now)
            self.pending = False

    def take(self) -> tuple[set[TopicPartition], set[TopicPartition], bool]:
        """(moved, assigned, pending) since the last call."""
        with self.lock:
            moved, assigned = self.moved, self.assigned
            self.moved, self.assigned = set(), set()
            return moved, assigned, self.pending


class PartitionState:
    """Conversations by partition: assign, revoke, restore, and the changelog writes."""

    def __init__(self, processor: TurnProcessor, store: StateStore | None, finished_retention_s: float) -> None:
        self.processor = processor
        self.store = store
        self.finished_retention_s = finished_retention_s
        self.owner: dict[str, TopicPartition] = {}  # conversation -> the partition its events come from
        self.restored: set[TopicPartition] = set()  # partitions whose changelog is loaded
        self.rebalances = Rebalances()
        self.rebalancing = False  # a rebalance began, the new assignment not yet known
        self.on_skipped: Callable[[str], None] = lambda reason: None  # a state record restore left out
        self.stopping: Callable[[], bool] = lambda: False  # the monitor is stopping: a restore under way gives up

    def ready(self, tp: TopicPartition) -> bool:
        """Events are scored only outside a rebalance, once their partition's conversations are restored."""
        return not self.rebalancing and (self.store is None or tp in self.restored)

    def sync(self, assignment: set[TopicPartition]) -> tuple[set[TopicPartition], Outcome]:
        """Act on recorded rebalances: returns the partitions given up and what restoring emitted."""
        moved, assigned, pending = self.rebalances.take()
        if moved:  # their conversations are dropped: the next owner restores them
            gone = [cid for cid, tp in self.owner.items() if tp in moved]
            self.processor.drop(gone)
            for cid in gone:
                del self.owner[cid]
            self.restored -= moved
            log.info("partitions_revoked", partitions=sorted(p.partition for p in moved), dropped=len(gone))
        if assigned:
            log.info("partitions_assigned", partitions=sorted(p.partition for p in assigned))
        self.rebalancing = pending  # mid-rebalance assignment() still lists the old partitions: wait for the new set
        return moved, Outcome() if pending else self.restore(assignment - self.restored)

    def restore(self, partitions: set[TopicPartition]) -> Outcome:
        """Rebuild the open conversations of newly assigned partitions before their events are read.

        Once `stopping` says yes (SIGTERM) — asked between the state topic's reads, between its records as they are
        parsed and between conversations — the restore is abandoned: what it rebuilt is dropped, the partitions stay
        unrestored (their events unread, so nothing of them is committed) and the next start restores them again."""
        restored, store = Outcome(), self.store
        if store is None or not partitions:
            self.restored |= partitions
            return restored
        by_number = {tp.partition: tp for tp in partitions}
        began = time.monotonic()
        try:
            loaded = store.load_many(sorted(by_number), stopping=self.stopping)  # a KafkaError: the loop retries
        except RestoreInterrupted:
            return self._abandon(by_number, began, "reading", set(), restored)
        cutoff = time.time() - self.finished_retention_s
        closed = 0
        rebuilt: set[str] = set()  # conversations this restore opened, finished or closed here
        for number, records in loaded.items():
            tp = by_number[number]
            broken: dict[str, str] = {}  # conversation -> why one of its records cannot be trusted

            def skipped(key: str, reason: str, broken: dict[str, str] = broken) -> None:
                self._skipped(key, reason)
                broken.setdefault(conversation_of_key(key), reason)

            for key in store.rejected(number):
                skipped(key, "not authenticated")
            try:
                grouped = group_changelog(records, skipped, self.stopping)
            except RestoreInterrupted:
                return self._abandon(by_number, began, "parsing", rebuilt, restored)
            for cid, (head, events) in grouped.items():
                if self.stopping():
                    return self._abandon(by_number, began, "restoring", rebuilt, restored)
                if cid in broken:
                    continue
                finished = head.get("status") == "finished"
                try:
                    if finished and float(head.get("at", 0)) < cutoff:  # past retention: forgotten
                        store.save(tp.partition, cid, None, source=f"{tp.topic}/{tp.partition}")
                        continue
                    if cid not in self.processor.open:  # one already live here is left as it is
                        rebuilt.add(cid)
                    if not finished:
                        self.owner[cid] = tp
                    restored.extend(self.processor.restore(cid, head, events))
                except KafkaError:
                    raise  # the loop retries the whole restore
                except Exception as exc:  # this conversation's records: closed, the others restored
                    if isinstance(exc, RestoreRefused):  # the neighbours finished to make room are still sent
                        restored.extend(exc.outcome)
                    reason = f"restore failed ({type(exc).__name__}: {str(exc)[:200]})"
                    self._skipped(cid, reason, 1 + len(events))
                    broken[cid] = reason
            if broken:
                turns: dict[str, set[int]] = {cid: set() for cid in broken}
                for key in records:
                    cid = conversation_of_key(key)
                    n = turn_of_key(key, cid) if cid in turns else None
                    if n is not None:
                        turns[cid].add(n)
                for cid, reason in broken.items():  # closed, never continued with a hole; its later events unscored
                    self.processor.close_unrestored(cid, sorted(turns[cid]))
                    self.owner[cid] = tp
                    log.error("conversation_not_restored", conversation=cid[:200], reason=reason, turns=len(turns[cid]))
            closed += len(broken)
            rebuilt |= set(broken)
        self.restored |= partitions
        log.info(
            "state_restored",
            partitions=sorted(by_number),
            open=len(self.processor.open),
            emitted_on_restore=len(restored.emissions),
            closed=closed,
        )
        return restored

    def _abandon(
        self, by_number: dict[int, TopicPartition], began: float, stage: str, rebuilt: set[str], restored: Outcome
    ) -> Outcome:
        """A restore cut short by a stop: the conversations it rebuilt are dropped (a restart restores them again,
        their verdicts never sent included), its partitions left unrestored. Returns what must still be sent: the
        verdicts of conversations already live here that were finished to make room."""
        self.processor.drop(sorted(rebuilt))
        for cid in rebuilt:
            self.owner.pop(cid, None)
        log.info(
            "restore_interrupted",
            partitions=sorted(by_number),
            stage=stage,  # reading the state topic, parsing a partition's records, or rebuilding its conversations
            abandoned=len(rebuilt),
            seconds=round(time.monotonic() - began, 2),
        )
        return Outcome(
            emissions=[e for e in restored.emissions if e.conversation_id not in rebuilt],
            evicted=restored.evicted,
            failed=[f for f in restored.failed if f.event.conversation_id not in rebuilt],
        )

    def _skipped(self, key: str, reason: str, records: int = 1) -> None:
        """A state record (or a conversation's records) restore could not read: logged and counted."""
        log.error("state_record_skipped", key=key[:200], reason=reason, records=records)
        for _ in range(records):
            self.on_skipped(reason.split(" (")[0])

    def write_changes(self) -> None:
        """The changelog records of every conversation changed since the last call."""
        for record in self.processor.checkpoint():
            tp = self.owner.get(record.conversation_id)
            if self.store is not None and tp is not None:
                try:
                    self.store.save(tp.partition, record.key, record.value, source=f"{tp.topic}/{tp.partition}")
                except KafkaError as exc:  # e.g. a record above max_request_size: skip it, keep the others
                    log.warning("checkpoint_not_saved", conversation=record.conversation_id, error=repr(exc)[:300])
            if record.key == record.conversation_id and record.conversation_id not in self.processor.open:
                self.owner.pop(record.conversation_id, None)  # its finished head was the last record
