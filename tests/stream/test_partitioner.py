"""The cached-key partitioner picks exactly the partitions kafka-python's default partitioner picks."""

from __future__ import annotations

from kafka.partitioner import DefaultPartitioner

from monitor.cluster import CachedKeyPartitioner, key_hash


class Cluster:
    """The two ClusterMetadata calls a partitioner makes."""

    def __init__(self, partitions: int) -> None:
        self.partitions = set(range(partitions))

    def topics(self) -> set[str]:
        return {"t"}

    def partitions_for_topic(self, topic: str) -> set[int] | None:
        return self.partitions if topic == "t" else None

    def available_partitions_for_topic(self, topic: str) -> set[int]:
        return self.partitions


def test_same_partition_as_the_default_for_every_key_and_partition_count() -> None:
    cached, default = CachedKeyPartitioner(), DefaultPartitioner()
    keys = [f"conversation-{i}".encode() for i in range(500)] + [b"", "ünïcode-key".encode()]
    for partitions in (1, 3, 7, 12):
        cluster = Cluster(partitions)
        for key in keys + keys:  # the second round answers from the cache
            want = default.partition("t", key, key, None, None, cluster)
            assert cached.partition("t", key, key, None, None, cluster) == want


def test_a_key_is_hashed_once() -> None:
    key_hash.cache_clear()
    cluster = Cluster(3)
    partitioner = CachedKeyPartitioner()
    for _ in range(5):
        partitioner.partition("t", b"same-key", b"same-key", None, None, cluster)
    info = key_hash.cache_info()
    assert (info.misses, info.hits) == (1, 4)


def test_records_without_a_key_go_to_some_partition_of_the_topic() -> None:
    cluster = Cluster(3)
    assert {CachedKeyPartitioner().partition("t", None, None, None, None, cluster) for _ in range(50)} <= {0, 1, 2}
