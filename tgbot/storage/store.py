"""A thin Redis layer: compare-and-set transactions, deadlines, outboxes, preferences."""

from __future__ import annotations

import asyncio
import json
import random
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from redis.asyncio import BlockingConnectionPool, Redis
from redis.exceptions import WatchError

from .keys import Keys

# Claim due deadlines atomically: each claimed one is pushed `lease` ms into the future,
# so a process that dies while handling it leaves it to fire again later.
_CLAIM_DUE = """
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, ARGV[3])
for _, member in ipairs(due) do
  redis.call('ZADD', KEYS[1], ARGV[2], member)
end
return due
"""

# Release a lock only if we still hold it.
_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""

# Extend a lock only if we still hold it.
_EXTEND = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0
"""

# A sliding window of sends per chat, shared by every process: admit a send when the chat
# is not held (KEYS[2], after a 429) and fewer than ARGV[3] happened in the last ARGV[2]
# ms, else say how long to wait. Both keys share a hash tag.
_WINDOW_ADMIT = """
local held = redis.call('PTTL', KEYS[2])
if held > 0 then return held end
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
if redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[3]) then
  redis.call('ZADD', KEYS[1], now, ARGV[4])
  redis.call('PEXPIRE', KEYS[1], window)
  return 0
end
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
return tonumber(oldest[2]) + window - now + 1
"""

MAX_CAS_ATTEMPTS = 60
REDIS_CONNECTIONS = 100  # per process
REDIS_POOL_WAIT_S = 10.0
FINISHED_GAME_TTL = 24 * 3600
UPDATE_MARK_TTL_S = 3 * 24 * 3600  # longer than Telegram keeps retrying an update
OUTBOX_TTL_S = 3 * 24 * 3600  # undelivered messages this old are of no use to anyone


class Conflict(Exception):
    """Too many concurrent writers on the same keys; the caller may retry later."""


@dataclass(slots=True)
class Writes:
    """Everything one step writes, applied in one MULTI/EXEC."""

    set_json: dict[str, Any] = field(default_factory=dict)
    set_str: dict[str, str] = field(default_factory=dict)
    expire: dict[str, int] = field(default_factory=dict)
    delete: list[str] = field(default_factory=list)
    outbox: list[tuple[str, dict[str, Any]]] = field(default_factory=list)  # (game id, op)
    deadline_set: dict[str, int] = field(default_factory=dict)  # game id -> epoch ms
    deadline_clear: list[str] = field(default_factory=list)
    mark_update: int | None = None
    hincr: list[tuple[str, str, int]] = field(default_factory=list)
    zincr: list[tuple[str, str, int]] = field(default_factory=list)
    hset: dict[str, dict[str, str]] = field(default_factory=dict)

    def send(self, game_id: str, op: dict[str, Any]) -> None:
        """Queue one delivery in the game's outbox (with an id, so each entry is unique,
        and the time it was queued, for the delivery-lag metric)."""
        queued = {**op, "id": uuid.uuid4().hex[:12], "at": int(time.time() * 1000)}
        self.outbox.append((game_id, queued))


Builder = Callable[[dict[str, str | None]], Awaitable[Writes] | Writes]


def connect(url: str) -> Redis:
    """A Redis client whose pool makes a burst wait for a free connection.

    redis-py's default asyncio pool raises MaxConnectionsError at once when its 100
    connections are busy, which a busy process reaches (seen in bench/webhook.py).
    """
    pool = BlockingConnectionPool.from_url(
        url, max_connections=REDIS_CONNECTIONS, timeout=REDIS_POOL_WAIT_S
    )
    return Redis.from_pool(pool)


class Store:
    """Redis access for the game service."""

    def __init__(self, redis: Redis, keys: Keys) -> None:
        self.redis = redis
        self.keys = keys
        self._claim = redis.register_script(_CLAIM_DUE)
        self._release = redis.register_script(_RELEASE)
        self._extend = redis.register_script(_EXTEND)
        self._admit = redis.register_script(_WINDOW_ADMIT)

    async def ping(self) -> bool:
        """True when Redis answers."""
        return bool(await self.redis.ping())

    async def get_json(self, key: str) -> Any:
        """Read a JSON value (None when missing)."""
        raw = await self.redis.get(key)
        return None if raw is None else json.loads(raw)

    async def get(self, key: str) -> str | None:
        """Read a string value."""
        raw = await self.redis.get(key)
        return None if raw is None else raw.decode()

    async def atomic(self, watch: list[str], build: Builder) -> Writes:
        """Read `watch`, build the writes from what was read, commit them compare-and-set.

        `build` sees the watched keys' values and returns the writes; it may raise to
        abort with nothing written. A concurrent change to a watched key re-runs it.
        """
        for attempt in range(MAX_CAS_ATTEMPTS):
            async with self.redis.pipeline(transaction=True) as pipe:
                try:
                    await pipe.watch(*watch)
                    values = await pipe.mget(watch) if watch else []
                    seen = {
                        k: (None if v is None else v.decode())
                        for k, v in zip(watch, values, strict=False)
                    }
                    writes = build(seen)
                    if not isinstance(writes, Writes):
                        writes = await writes
                    pipe.multi()
                    self._queue(pipe, writes)
                    await pipe.execute()
                    return writes
                except WatchError:
                    # Back off a little, at random, so that racing writers spread out.
                    await asyncio.sleep(random.uniform(0, 0.002) * min(attempt, 10))
                    continue
        raise Conflict(f"gave up after {MAX_CAS_ATTEMPTS} conflicting attempts on {watch}")

    async def commit(self, writes: Writes) -> None:
        """Apply writes that depend on nothing read, in one MULTI/EXEC."""
        async with self.redis.pipeline(transaction=True) as pipe:
            self._queue(pipe, writes)
            await pipe.execute()

    def _queue(self, pipe: Any, writes: Writes) -> None:
        keys = self.keys
        for key, value in writes.set_json.items():
            pipe.set(key, json.dumps(value, ensure_ascii=False, separators=(",", ":")))
        for key, text in writes.set_str.items():
            pipe.set(key, text)
        for key, seconds in writes.expire.items():
            pipe.expire(key, seconds)
        if writes.delete:
            pipe.delete(*writes.delete)
        for game_id, op in writes.outbox:
            pipe.rpush(keys.outbox(game_id), json.dumps(op, ensure_ascii=False))
            pipe.expire(keys.outbox(game_id), OUTBOX_TTL_S)  # refreshed with every write
            pipe.sadd(keys.pending_outboxes, game_id)
        for game_id, due_ms in writes.deadline_set.items():
            pipe.zadd(keys.deadlines, {game_id: due_ms})
        if writes.deadline_clear:
            pipe.zrem(keys.deadlines, *writes.deadline_clear)
        if writes.mark_update is not None:
            pipe.set(keys.update(writes.mark_update), "1", ex=UPDATE_MARK_TTL_S)
        for key, name, amount in writes.hincr:
            pipe.hincrby(key, name, amount)
        for key, member, amount in writes.zincr:
            pipe.zincrby(key, amount, member)
        for key, mapping in writes.hset.items():
            pipe.hset(key, mapping=mapping)

    # ---- deadlines -----------------------------------------------------------------

    async def claim_due(self, now_ms: int, lease_ms: int, limit: int = 20) -> list[str]:
        """Claim up to `limit` games whose deadline has passed."""
        due = await self._claim(keys=[self.keys.deadlines], args=[now_ms, now_ms + lease_ms, limit])
        return [d.decode() for d in due]

    # ---- outboxes ------------------------------------------------------------------

    async def pending_games(self, limit: int = 50) -> list[str]:
        """Games that may have undelivered messages."""
        members = await self.redis.srandmember(self.keys.pending_outboxes, limit)
        return [m.decode() for m in members or []]

    async def lock(self, key: str, token: str, ttl_ms: int) -> bool:
        """Take a short lock."""
        return bool(await self.redis.set(key, token, nx=True, px=ttl_ms))

    async def extend(self, key: str, token: str, ttl_ms: int) -> bool:
        """Keep a lock we hold for another `ttl_ms`."""
        return bool(await self._extend(keys=[key], args=[token, ttl_ms]))

    async def unlock(self, key: str, token: str) -> None:
        """Release a lock we hold."""
        await self._release(keys=[key], args=[token])

    async def outbox_head(self, game_id: str) -> dict[str, Any] | None:
        """The oldest undelivered message of a game."""
        raw = await self.redis.lindex(self.keys.outbox(game_id), 0)
        return None if raw is None else json.loads(raw)

    async def admit_chat(self, chat_id: int, now_ms: int, limit: int, window_ms: int) -> int:
        """Count a message to a chat if its window allows it (0); else the ms to wait first."""
        keys = self.keys
        return await self._admit_in(
            keys.chat_sends(chat_id), keys.chat_hold(chat_id), now_ms, limit, window_ms
        )

    async def admit_bot(
        self, queued: bool, shard: int, now_ms: int, limit: int, window_ms: int
    ) -> int:
        """Count one of the bot's calls in a shard of its window (0); else the ms to wait."""
        key = self.keys.bot_sends(queued, shard)
        return await self._admit_in(key, key + ":hold", now_ms, limit, window_ms)

    async def hold_chat(self, chat_id: int, ms: int) -> None:
        """Make every process wait `ms` before writing to a chat again (Telegram's 429)."""
        await self.redis.set(self.keys.chat_hold(chat_id), "1", px=ms)

    async def _admit_in(self, key: str, hold: str, now_ms: int, limit: int, window_ms: int) -> int:
        token = f"{now_ms}-{uuid.uuid4().hex[:8]}"
        return int(await self._admit(keys=[key, hold], args=[now_ms, window_ms, limit, token]))

    async def outbox_items(self, game_id: str) -> list[tuple[bytes, dict[str, Any]]]:
        """Every undelivered message of a game, oldest first, with its stored form."""
        raw = await self.redis.lrange(self.keys.outbox(game_id), 0, -1)
        return [(r, json.loads(r)) for r in raw]

    async def outbox_remove(self, game_id: str, delivered: list[bytes]) -> None:
        """Drop delivered messages (each entry is unique: it carries an id)."""
        key = self.keys.outbox(game_id)
        async with self.redis.pipeline(transaction=True) as pipe:
            for raw in delivered:
                pipe.lrem(key, 1, raw)
            await pipe.execute()

    async def outbox_move_chat(self, owner: str, old_chat: int, new_chat: int) -> int:
        """Readdress an outbox's messages (and the group notes of its private ones) from a
        chat to the one it became, compare-and-set; return how many moved."""
        key = self.keys.outbox(owner)
        for attempt in range(MAX_CAS_ATTEMPTS):
            async with self.redis.pipeline(transaction=True) as pipe:
                try:
                    await pipe.watch(key)
                    entries = await pipe.lrange(key, 0, -1)
                    moved, kept = 0, []
                    for raw in entries:
                        op = json.loads(raw)
                        if old_chat not in (op.get("chat"), op.get("group")):
                            kept.append(raw)
                            continue
                        for field_name in ("chat", "group"):
                            if op.get(field_name) == old_chat:
                                op[field_name] = new_chat
                        kept.append(json.dumps(op, ensure_ascii=False).encode())
                        moved += 1
                    if not moved:
                        return 0
                    pipe.multi()
                    pipe.delete(key)
                    pipe.rpush(key, *kept)
                    await pipe.execute()
                    return moved
                except WatchError:
                    await asyncio.sleep(random.uniform(0, 0.002) * min(attempt, 10))
        raise Conflict(f"gave up after {MAX_CAS_ATTEMPTS} conflicting attempts on {key}")

    async def outbox_drop(self, owner: str) -> int:
        """Forget an outbox and everything in it; return how many messages it held."""
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.llen(self.keys.outbox(owner))
            pipe.delete(self.keys.outbox(owner))
            pipe.srem(self.keys.pending_outboxes, owner)
            held, _, _ = await pipe.execute()
        return int(held)

    async def outbox_done(self, game_id: str) -> None:
        """Forget a game's outbox once it is empty (checked atomically)."""
        async with self.redis.pipeline(transaction=True) as pipe:
            try:
                await pipe.watch(self.keys.outbox(game_id))
                if await pipe.llen(self.keys.outbox(game_id)) == 0:
                    pipe.multi()
                    pipe.srem(self.keys.pending_outboxes, game_id)
                    await pipe.execute()
            except WatchError:
                pass

    async def message_ids(self, game_id: str) -> dict[str, int]:
        """Message references of a game -> Telegram message ids."""
        raw = await self.redis.hgetall(self.keys.messages(game_id))
        return {k.decode(): int(v) for k, v in raw.items()}

    async def remember_message(self, game_id: str, ref: str, message_id: int) -> None:
        """Note which Telegram message a reference stands for."""
        key = self.keys.messages(game_id)
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.hset(key, ref, message_id)
            pipe.expire(key, 7 * 24 * 3600)
            await pipe.execute()

    # ---- preferences ---------------------------------------------------------------

    async def user_prefs(self, user_id: int) -> dict[str, str]:
        """A person's stored preferences."""
        raw = await self.redis.hgetall(self.keys.user_prefs(user_id))
        return {k.decode(): v.decode() for k, v in raw.items()}

    async def set_user_prefs(self, user_id: int, **values: str) -> None:
        """Store some of a person's preferences."""
        await self.redis.hset(self.keys.user_prefs(user_id), mapping=values)

    async def chat_settings(self, chat_id: int) -> dict[str, str]:
        """A group's stored settings."""
        raw = await self.redis.hgetall(self.keys.chat_settings(chat_id))
        return {k.decode(): v.decode() for k, v in raw.items()}

    async def set_chat_settings(self, chat_id: int, **values: str) -> None:
        """Store some of a group's settings."""
        await self.redis.hset(self.keys.chat_settings(chat_id), mapping=values)

    async def change_chat_settings(
        self, chat_id: int, update_id: int, change: Callable[[dict[str, str]], dict[str, str]]
    ) -> dict[str, str] | None:
        """Change a group's settings from their current values, compare-and-set, and mark
        the update applied in the same transaction; None if it was applied before."""
        key, mark = self.keys.chat_settings(chat_id), self.keys.update(update_id)
        for attempt in range(MAX_CAS_ATTEMPTS):
            async with self.redis.pipeline(transaction=True) as pipe:
                try:
                    await pipe.watch(key, mark)
                    if await pipe.exists(mark):
                        return None
                    raw = await pipe.hgetall(key)
                    current = {k.decode(): v.decode() for k, v in raw.items()}
                    values = change(current)
                    pipe.multi()
                    if values:
                        pipe.hset(key, mapping=values)
                    pipe.set(mark, "1", ex=UPDATE_MARK_TTL_S)
                    await pipe.execute()
                    return {**current, **values}
                except WatchError:
                    await asyncio.sleep(random.uniform(0, 0.002) * min(attempt, 10))
        raise Conflict(f"gave up after {MAX_CAS_ATTEMPTS} conflicting attempts on {key}")

    async def hash(self, key: str) -> dict[str, str]:
        """A whole hash."""
        raw = await self.redis.hgetall(key)
        return {k.decode(): v.decode() for k, v in raw.items()}

    async def top(self, key: str, n: int) -> list[tuple[str, int]]:
        """The n highest members of a sorted set."""
        rows = await self.redis.zrevrange(key, 0, n - 1, withscores=True)
        return [(m.decode(), int(score)) for m, score in rows]

    async def score(self, key: str, member: str) -> int:
        """One member's score in a sorted set (0 when absent)."""
        return int(await self.redis.zscore(key, member) or 0)

    async def seen_update(self, update_id: int) -> bool:
        """True if this update was already applied."""
        return bool(await self.redis.exists(self.keys.update(update_id)))

    async def hit(self, user_id: int, window_s: int) -> int:
        """Count one update from a person in the current window; return the count."""
        key = self.keys.throttle(user_id)
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.set(key, 0, ex=window_s, nx=True)  # starts the window (works on Redis 6 too)
            pipe.incr(key)
            _, count = await pipe.execute()
        return int(count)
