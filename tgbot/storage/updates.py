"""Updates: each taken by one process (its lease), marked applied once, and what its
handling does explicitly (`Handling`), including the presser's throttle count.

A second delivery of an update is recognised where it was applied: a button press whose
every commit recorded it in the game record its button names, there (see
tgbot/storage/commit.py); any other, in its chat's latest update ids.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

from redis.asyncio.cluster import RedisCluster

from .keys import Keys, chat_owner
from .plan import UPDATE_MARK_TTL_S, Call, queue_calls

log = logging.getLogger(__name__)

CHAT_SEEN_KEPT = 32  # a chat's latest update ids kept
UPDATE_LEASE_MS = 10_000  # a process taking an update holds it this long at most


@dataclass(slots=True, eq=False)
class Handling:
    """One update being handled, opened by `Updates.update` and passed by the handler to
    the service and on to every read and commit made for it.

    A read given the update keeps what it read (its transaction on that key may start
    from it: the compare-and-set checks it). A commit given the update marks it applied
    and leaves the single-slot writes that follow it (on a cluster) to the update's end,
    where they go in one round trip with its mark.
    """

    update_id: int
    chat_id: int
    lease: str
    press: bool = False  # a button press (counted for the throttle with its lease)
    applied_before: bool = False  # seen before: nothing is to be done with it
    post: list[Call] = field(default_factory=list)
    counts: list[tuple[str, list[Any]]] = field(default_factory=list)
    read: dict[str, str] = field(default_factory=dict)
    # What the service decoded of a kept read, with the raw value it came from: the
    # transaction's first attempt, starting from that read, takes it instead of decoding.
    decoded: dict[str, tuple[str, Any]] = field(default_factory=dict)
    in_record: bool = False  # a commit recorded it in an existing game record
    elsewhere: bool = False  # a commit recorded it anywhere else
    lease_dropped: bool = False  # by the commit that recorded the press (one server)
    hits: dict[int, int] = field(default_factory=dict)

    def keep_read(self, key: str, raw: str | None) -> None:
        """Keep what was read of a key for a transaction on it (an absent key is read
        again)."""
        if raw is not None:
            self.read[key] = raw

    def keep_decoded(self, key: str, value: Any) -> None:
        """Keep the service's decoding of the read kept of `key` (nothing if none is)."""
        if key in self.read:
            self.decoded[key] = (self.read[key], value)

    def take_decoded(self, key: str, raw: str | None) -> Any:
        """The decoding kept of `key` if `raw` is the very value it was decoded from
        (the transaction's first attempt), once; else None."""
        kept = self.decoded.pop(key, None)
        return kept[1] if kept is not None and kept[0] is raw else None


def update_id_of(update: Handling | None) -> int | None:
    """The id of the update being handled, if any."""
    return None if update is None else update.update_id


class Updates:
    """Taking, ending and throttling updates."""

    def __init__(self, redis: Any, keys: Keys) -> None:
        self.redis = redis
        self.keys = keys
        self.cluster = isinstance(redis, RedisCluster)
        self._begin = redis.register_script(_BEGIN_UPDATE)
        self._begin_press = redis.register_script(_BEGIN_PRESS)

    def _pipe(self) -> Any:
        return self.redis.pipeline(transaction=False)

    @asynccontextmanager
    async def update(
        self, chat_id: int, update_id: int, counting: tuple[int, int] | None = None
    ) -> AsyncIterator[Handling]:
        """Take an update of a chat for this process (`begin`) and end it when its
        handling returns (`end`), or do what its commits left if it raises (`abandon`).
        An update applied before comes back with `applied_before` set, and is not ended.
        """
        update = await self.begin(chat_id, update_id, counting)
        if update.applied_before:
            yield update
            return
        try:
            yield update
        except BaseException:
            try:
                await self.abandon(update)
            except Exception as err:  # Redis is away: the webhook says so for the update
                log.info("update %s: writes after its commits failed: %r", update_id, err)
            raise
        await self.end(update)

    def _lease(self, chat_id: int, update_id: int) -> str:
        return self.keys.update_lease(chat_id, update_id)

    async def begin(
        self, chat_id: int, update_id: int, counting: tuple[int, int] | None = None
    ) -> Handling:
        """Take an update of a chat for this process (`applied_before` if it was applied
        before).

        While another process holds it (the same update delivered twice at once), wait
        until that one marks it applied or its lease runs out (it died). `counting` (the
        presser, a window in s) is given for a button press: the press is counted for
        `hit` in the same round trip, and a press is marked applied in the game record it
        names when it changes one (see `end`).
        """
        keys = self.keys
        seen = keys.seen(keys.outbox(chat_owner(chat_id)))
        lease = self._lease(chat_id, update_id)
        update = Handling(update_id, chat_id, lease, press=counting is not None)
        if counting is not None and not self.cluster:
            # One server: the press's throttle count goes in its lease's script.
            user_id, window_s = counting
            got, count = await self._begin_press(
                keys=[seen, lease, keys.throttle(user_id)],
                args=[update_id, UPDATE_LEASE_MS, window_s],
            )
            update.hits[user_id] = int(count)
        elif counting is not None:
            user_id, window_s = counting
            pipe = self._pipe()
            pipe.eval(_BEGIN_UPDATE, 2, seen, lease, update_id, UPDATE_LEASE_MS)
            self._count_hit(pipe, user_id, window_s)
            got, _, count = await pipe.execute()
            update.hits[user_id] = int(count)
        else:
            got = await self._begin(keys=[seen, lease], args=[update_id, UPDATE_LEASE_MS])
        while int(got) == 0:
            await asyncio.sleep(0.02)
            got = await self._begin(keys=[seen, lease], args=[update_id, UPDATE_LEASE_MS])
        update.applied_before = int(got) != 1
        return update

    async def end(self, update: Handling) -> None:
        """Mark an update applied and drop its lease, in one round trip with what its
        commits left to do after them.

        A button press whose every commit recorded it in the existing game record its
        button names is marked there already (a second delivery reads that record before
        anything else, and stops there): only its lease is dropped.
        Any other goes into the chat's latest update ids.
        """
        keys = self.keys
        pipe = self._pipe()
        queue_calls(pipe, update.post)
        for command, args in update.counts:
            pipe.execute_command(command, *args)
        update.post, update.counts = [], []
        if update.press and update.in_record and not update.elsewhere:
            if update.lease_dropped:  # by the commit that recorded the press (one server)
                if pipe.command_stack:
                    await pipe.execute()
                return
            pipe.delete(update.lease)
        else:
            pipe.eval(
                _MARK_UPDATE,
                2,
                keys.seen(keys.outbox(chat_owner(update.chat_id))),
                update.lease,
                update.update_id,
                CHAT_SEEN_KEPT,
                UPDATE_MARK_TTL_S,
            )
        await pipe.execute()

    async def abandon(self, update: Handling) -> None:
        """An update's handling failed: do what its commits left for after them (they are
        committed), without marking the update applied; errors are the caller's to log."""
        pipe = self._pipe()
        queue_calls(pipe, update.post)
        for command, args in update.counts:
            pipe.execute_command(command, *args)
        update.post, update.counts = [], []
        if not update.lease_dropped:
            # Telegram's retry of this update (after the 503) need not wait out the lease.
            pipe.delete(update.lease)
        await pipe.execute()

    async def hit(self, user_id: int, window_s: int, update: Handling | None = None) -> int:
        """Count one update from a person in the current window; return the count (a
        press's was counted with its update's lease)."""
        if update is not None and user_id in update.hits:
            return update.hits.pop(user_id)
        pipe = self._pipe()
        self._count_hit(pipe, user_id, window_s)
        _, count = await pipe.execute()
        return int(count)

    def _count_hit(self, pipe: Any, user_id: int, window_s: int) -> None:
        count_in_window(pipe, self.keys.throttle(user_id), window_s)


def count_in_window(pipe: Any, key: str, window_s: int) -> None:
    """Queue on `pipe` one more hit in a fixed window of `window_s` s at `key`, started
    by its first hit; the pipe's last result is the count so far."""
    pipe.set(key, 0, ex=window_s, nx=True)  # starts the window (works on Redis 6 too)
    pipe.incr(key)


_BEGIN_UPDATE = """
if redis.call('ZSCORE', KEYS[1], ARGV[1]) then return 2 end
if redis.call('SET', KEYS[2], '1', 'NX', 'PX', ARGV[2]) then return 1 end
return 0
"""

# A button press (one server): _BEGIN_UPDATE, and its presser's count in the current
# window (KEYS[3], ARGV[3] s, started by the first). Returns {that outcome, the count}.
_BEGIN_PRESS = """
local hits = redis.call('INCR', KEYS[3])
if hits == 1 then redis.call('EXPIRE', KEYS[3], ARGV[3]) end
if redis.call('ZSCORE', KEYS[1], ARGV[1]) then return {2, hits} end
if redis.call('SET', KEYS[2], '1', 'NX', 'PX', ARGV[2]) then return {1, hits} end
return {0, hits}
"""

# Mark an update applied in a chat's latest ids (ARGV[2] kept, ARGV[3] s to live).
_MARK_UPDATE = """
redis.call('ZADD', KEYS[1], ARGV[1], ARGV[1])
redis.call('ZREMRANGEBYRANK', KEYS[1], 0, -tonumber(ARGV[2]) - 1)
redis.call('EXPIRE', KEYS[1], ARGV[3])
redis.call('DEL', KEYS[2])
return 1
"""

# After a drain (one server): release the lock (KEYS[1]) if it holds ARGV[1]; if the
# outbox (its inbox KEYS[2], its lanes KEYS[4]) is empty, forget its owner's (ARGV[2])
# pending mark in KEYS[3] unless a step marked it since ARGV[3] (its score, '' when
