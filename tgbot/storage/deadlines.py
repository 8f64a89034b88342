"""Deadlines: every game's next deadline in a bucketed sorted set, claimed per bucket so
that each fires once across processes (a step arms its game's in its commit: see
tgbot/storage/plan.py)."""

from __future__ import annotations

from typing import Any

from redis.asyncio.cluster import RedisCluster

from .keys import Keys
from .plan import DEADLINE

# Claim due deadlines of one bucket atomically: each claimed one is pushed `lease` ms into
# the future, so a process that dies while handling it leaves it to fire again later.
_CLAIM_DUE = """
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, ARGV[3])
for _, member in ipairs(due) do
  redis.call('ZADD', KEYS[1], ARGV[2], member)
end
return due
"""

# Set (ARGV[3] a time) or clear (ARGV[3] '') a game's deadline unless a newer revision of


class Deadlines:
    """The deadlines' sorted sets."""

    def __init__(self, redis: Any, keys: Keys) -> None:
        self.redis = redis
        self.keys = keys
        self.cluster = isinstance(redis, RedisCluster)

    def _pipe(self) -> Any:
        return self.redis.pipeline(transaction=False)

    async def claim_due(self, now_ms: int, lease_ms: int, limit: int = 20) -> list[str]:
        """Claim up to `limit` games whose deadline has passed, from every bucket.

        One look at every bucket (a command each, in one round trip), then a claim in
        those that hold something due: an idle bucket costs one command a poll.
        """
        buckets = range(self.keys.buckets)
        pipe = self._pipe()
        for bucket in buckets:
            pipe.zrangebyscore(self.keys.deadlines(bucket), "-inf", now_ms, start=0, num=1)
        due_in = [b for b, first in zip(buckets, await pipe.execute(), strict=True) if first]
        if not due_in:
            return []
        pipe = self._pipe()
        for bucket in due_in:
            pipe.eval(_CLAIM_DUE, 1, self.keys.deadlines(bucket), now_ms, now_ms + lease_ms, limit)
        return [m for due in await pipe.execute() for m in due]

    async def clear_deadline(self, game_id: str) -> None:
        """Forget a game's deadline (whatever revision set it)."""
        bucket = self.keys.bucket(game_id)
        dl_keys = [self.keys.deadlines(bucket), self.keys.deadline_revs(bucket)]
        await self.redis.eval(DEADLINE, 2, *dl_keys, game_id, 1 << 50, "")

    async def adopt_legacy(self) -> int:
        """Move what an older version kept in one global key (its deadlines, its set of
        pending outboxes) into the buckets; return how many entries moved. One server
        only: the older version never ran on a cluster."""
        if self.cluster:
            return 0
        moved = 0
        old_deadlines, old_pending = self.keys.legacy_deadlines(), self.keys.legacy_outboxes()
        for owner, due in await self.redis.zrange(old_deadlines, 0, -1, withscores=True):
            await self.redis.zadd(
                self.keys.deadlines(self.keys.bucket(owner)), {owner: due}, lt=True
            )
            moved += 1
        for owner in await self.redis.smembers(old_pending):
            await self.redis.zadd(self.keys.pending_outboxes(self.keys.bucket(owner)), {owner: 0})
            moved += 1
        await self.redis.delete(old_deadlines, old_pending)
        return moved

    async def deadline_counts(self, now_ms: int, late_ms: int) -> tuple[int, int, int]:
        """Deadlines due now, due for longer than `late_ms`, and all of them."""
        pipe = self._pipe()
        for bucket in range(self.keys.buckets):
            key = self.keys.deadlines(bucket)
            pipe.zcount(key, "-inf", now_ms)
            pipe.zcount(key, "-inf", now_ms - late_ms)
            pipe.zcard(key)
        rows = await pipe.execute()
        return sum(rows[0::3]), sum(rows[1::3]), sum(rows[2::3])
