"""Who delivers an outbox and which outboxes wait: an owner's delivery lock (held under
a process's lease) and its pending-delivery mark (set by the step that queued, in a
bucketed sorted set the sweeper reads)."""

from __future__ import annotations

import random
import time
from typing import Any

from redis.asyncio.cluster import RedisCluster

from .keys import Keys
from .outbox import LEASED, LOCK_HOLD_MS
from .plan import RELEASE

# The sweeper looks at pending-delivery marks older than this: a fresh one is the sender's,
# which delivers a step's messages at once and drops the mark (see Sender.flush).
MARK_GRACE_MS = 3_000

# Forget a pending-delivery mark unless a step marked it again since ARGV[2] (its score).
_UNMARK = """
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if score and tonumber(score) <= tonumber(ARGV[2]) then
  return redis.call('ZREM', KEYS[1], ARGV[1])
end
return 0
"""

# Take an index entry: set it when absent, ours already, or held by ARGV[3] (a value the

# Take an owner's delivery lock (KEYS[1]) for ARGV[1] (ARGV[2] ms) unless another holds
# it: 1, or the holder's token.
_TAKE_LOCK = """
local held = redis.call('GET', KEYS[1])
if held and held ~= ARGV[1] then return held end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1
"""

# Take a delivery lock over from a holder (ARGV[1]) found dead. 1 when taken.
_TAKE_OVER = """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
return 1
"""

# After a drain (one server): release the lock (KEYS[1]) if it holds ARGV[1]; if the
# outbox (its inbox KEYS[2], its lanes KEYS[4]) is empty, forget its owner's (ARGV[2])
# pending mark in KEYS[3] unless a step marked it since ARGV[3] (its score, '' when
# unmarked). 1 when empty.
_FINISH_DRAIN = """
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
if redis.call('EXISTS', KEYS[2], KEYS[4]) > 0 then return 0 end
if ARGV[3] ~= '' then
  local score = redis.call('ZSCORE', KEYS[3], ARGV[2])
  if score and tonumber(score) <= tonumber(ARGV[3]) then redis.call('ZREM', KEYS[3], ARGV[2]) end
end
return 1
"""


class Delivery:
    """Delivery locks and pending-delivery marks."""

    def __init__(self, redis: Any, keys: Keys) -> None:
        self.redis = redis
        self.keys = keys
        self.cluster = isinstance(redis, RedisCluster)
        self._take_lock = redis.register_script(_TAKE_LOCK)
        self._take_over = redis.register_script(_TAKE_OVER)
        self._release = redis.register_script(RELEASE)
        self._finish = redis.register_script(_FINISH_DRAIN)

    def _pipe(self) -> Any:
        return self.redis.pipeline(transaction=False)

    async def pending_games(self, limit: int = 50) -> list[str]:
        """Owners whose outbox may still hold messages a step queued a while ago (the
        sender delivers fresh ones at once; the sweeper looks only at older marks)."""
        stale = (int(time.time() * 1000) - MARK_GRACE_MS) * 1000
        per_bucket = max(1, limit // self.keys.buckets)
        pipe = self._pipe()
        for bucket in random.sample(range(self.keys.buckets), self.keys.buckets):
            pipe.zrangebyscore(
                self.keys.pending_outboxes(bucket),
                "-inf",
                stale,
                start=0,
                num=per_bucket,
                withscores=True,
            )
        rows = await pipe.execute()
        return [m for row in rows for m, _ in row]

    async def unlock(self, key: str, token: str) -> None:
        """Release a lock we hold."""
        await self._release(keys=[key], args=[token])

    async def take_outbox_lock(self, owner: str, token: str) -> bool:
        """Take an owner's delivery lock for `token` (a process's: see `sender_lease`),
        taking it over from a holder whose process is gone."""
        lock = self.keys.sending(owner)
        held = await self._take_lock(keys=[lock], args=[token, LOCK_HOLD_MS])
        if held == 1 or held == "1":
            return True
        held = str(held)
        if not held.startswith(LEASED) or await self.redis.exists(self.keys.sender_lease(held)):
            return False  # alive, or an older version's lock (it lapses within seconds)
        return bool(await self._take_over(keys=[lock], args=[held, token, LOCK_HOLD_MS]))

    async def renew_sender_lease(self, token: str, ttl_ms: int) -> None:
        """Say that the process whose delivery locks hold `token` is alive, for `ttl_ms`."""
        await self.redis.set(self.keys.sender_lease(token), "1", px=ttl_ms)

    async def lock_outbox(self, owner: str, token: str) -> tuple[bool, int | None]:
        """Take an outbox's delivery lock for a process's `token` (see `take_outbox_lock`),
        then read its pending-delivery mark (None: not marked): (whether the lock is ours,
        the mark). The mark is read only once the lock is ours (a flush often finds
        another one on it)."""
        if not await self.take_outbox_lock(owner, token):
            return False, None
        return True, await self.pending_mark(owner)

    async def unlock_outbox(self, owner: str, token: str, mark: int | None) -> bool:
        """Release an outbox's delivery lock after a drain; if the outbox is empty then,
        forget its pending-delivery mark unless a step marked it again since `mark`.
        True when it was empty. One script on one server; three calls on a cluster."""
        keys = self.keys
        lock, bucket = keys.sending(owner), keys.pending_outboxes(keys.bucket(owner))
        inbox, lanes = keys.outbox(owner), keys.outbox_lanes(owner)
        if not self.cluster:
            args = [token, owner, "" if mark is None else mark]
            return bool(await self._finish(keys=[lock, inbox, bucket, lanes], args=args))
        await self.unlock(lock, token)
        if await self.redis.exists(inbox, lanes):
            return False
        await self.outbox_done(owner, mark)
        return True

    async def pending_mark(self, owner: str) -> int | None:
        """When a step last marked an owner's outbox pending (None: not marked)."""
        score = await self.redis.zscore(self.keys.pending_outboxes(self.keys.bucket(owner)), owner)
        return None if score is None else int(score)

    async def outbox_done(self, owner: str, mark: int | None) -> None:
        """Forget the pending-delivery mark of an outbox found empty, unless a step marked
        it again since `mark` was read (before the outbox was drained)."""
        if mark is None:
            return
        bucket = self.keys.pending_outboxes(self.keys.bucket(owner))
        await self.redis.eval(_UNMARK, 1, bucket, owner, mark)
