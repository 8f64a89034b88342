"""The Redis layer on a real server: compare-and-set, deadline claims, the group window."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import AsyncIterator

import pytest

from tgbot.storage.keys import Keys
from tgbot.storage.store import Store, Writes, open_client


@pytest.fixture
async def store(any_redis_url: str) -> AsyncIterator[Store]:
    redis = await open_client(any_redis_url)
    yield Store(redis, Keys(f"s{uuid.uuid4().hex[:8]}"))
    await redis.aclose()


async def test_compare_and_set_serialises_concurrent_writers(store: Store) -> None:
    key = store.keys.game("counter")
    await store.redis.set(key, "0")

    async def bump() -> None:
        def build(seen: dict[str, str | None]) -> Writes:
            writes = Writes()
            writes.set_str[key] = str(int(seen[key] or 0) + 1)
            return writes

        await store.atomic([key], build)

    await asyncio.gather(*(bump() for _ in range(50)))
    assert await store.get(key) == "50"


async def test_a_failing_build_writes_nothing(store: Store) -> None:
    key = store.keys.game("untouched")

    def build(_: dict[str, str | None]) -> Writes:
        raise ValueError("refused")

    with pytest.raises(ValueError):
        await store.atomic([key], build)
    assert await store.get(key) is None


async def test_a_due_deadline_is_claimed_once_and_comes_back_after_its_lease(store: Store) -> None:
    for game_id, due in (("g1", 1000), ("g2", 5000)):
        await store.redis.zadd(store.keys.deadlines(store.keys.bucket(game_id)), {game_id: due})
    first, second = await asyncio.gather(
        store.claim_due(2000, lease_ms=30_000), store.claim_due(2000, lease_ms=30_000)
    )
    assert sorted(first + second) == ["g1"]
    assert await store.claim_due(2000, lease_ms=30_000) == []
    # Nobody finished handling it: after the lease it fires again.
    assert sorted(await store.claim_due(32_001, lease_ms=30_000)) == ["g1", "g2"]


async def test_group_window_admits_twenty_a_minute(store: Store) -> None:
    waits = [await store.admit_chat(-5, 1000 + i, 20, 60_000) for i in range(20)]
    assert waits == [0] * 20
    wait = await store.admit_chat(-5, 2000, 20, 60_000)
    assert 58_000 < wait <= 60_001
    assert await store.admit_chat(-5, 61_001, 20, 60_000) == 0
    # Another group has its own window.
    assert await store.admit_chat(-6, 2000, 20, 60_000) == 0


async def test_a_held_chat_waits_out_the_hold_before_its_window(store: Store) -> None:
    await store.hold_chat(-7, 5_000)
    wait = await store.admit_chat(-7, int(time.time() * 1000), 20, 60_000)
    assert 4_000 < wait <= 5_000
    assert await store.admit_chat(-8, int(time.time() * 1000), 20, 60_000) == 0
