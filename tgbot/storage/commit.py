"""Compare-and-set transactions: a step's writes committed in one script on its slot.

The same code runs on one Redis server and on a Redis Cluster (see `clients.open_client`):
every atomic operation is one Lua script or command on keys of a single slot.

A step's transaction (`Commits.atomic`) commits everything in its game's slot in one script
that first checks, compare-and-set, that the game record is still what the step read.
What lives elsewhere is written in single-slot operations around it, in this order:

1. before the commit: claims of the indexes that must stay unique (a chat's open game, a
   person's game: SET unless held by a live game), the game's deadline made no later than
   the step's (ZADD LT in its bucket), and a mark in its pending-delivery bucket;
2. the commit (record, outbox, message ids, its update ids);
3. after it: the deadline set exactly (guarded by the record's revision, so a slow older
   step never overrides a newer one), deadlines cleared, index entries removed (only if
   they still name this game), counters in other slots incremented.

On one server all three go in the commit's script (every key is in reach there), so they
are written together or not at all, and the deadline is set exactly at once, with no
revision check (the script compares the record itself: no newer step can have committed),
and the lease of the press the commit records is dropped there too. On a cluster,
what follows a commit made for an update (given its `Handling`: tgbot/storage/updates.py)
goes with the update's end (`Updates.end`), in one round trip; a commit made for none
(deadlines, delivery) writes it at once.

The record is the truth. Whatever step 1 leaves behind when the commit never happens (a
conflict, a refusal, a crash) is harmless: a claim is released, or later read as absent
because the game it names does not exist or is over; a deadline fires early and is re-armed
from the record; a mark leads the sweeper to an empty outbox, which it drops. What a crash
between 2 and 3 loses errs the same way: an index entry left naming a finished game reads
as absent, a deadline left early fires and is re-armed, and a counter in another slot
misses that step (at most once, never twice). A finished game's ratings and stats are not
such counters: its deadline, armed by its last step, counts it once per scope afterwards
(tgbot/service/history.py).
"""

from __future__ import annotations

import asyncio
import functools
import json
import random
from collections.abc import Awaitable, Callable
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, ParamSpec, TypeVar

from redis.asyncio.cluster import RedisCluster

from .keys import Keys, slot_tag
from .plan import (
    RELEASE,
    Call,
    Plan,
    Writes,
    applied,
    doc_of,
    dumps,
    plan_writes,
    queue_calls,
    single_spec,
)
from .updates import Handling

# A Redis server or a Redis Cluster: both clients offer the commands used here.
Client = Any

# Take an index entry: set it when absent or held by ARGV[3] (a value the caller found to
# name no live game): 1; already ours (this game's, as a commit that won the race wrote
# it): 2, renewed, and never to be released by this attempt; someone else's: 0.
_CLAIM = """
local held = redis.call('GET', KEYS[1])
if held == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2])
  return 2
end
if (not held) or held == ARGV[3] then
  redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2])
  return 1
end
return 0
"""


_COMMIT = """
local spec = cjson.decode(ARGV[1])
for _, c in ipairs(spec.check) do
  local now = redis.call('GET', KEYS[c[1]])
  if c[2] == false then
    if now then return 0 end
  elseif now ~= c[2] then
    return 0
  end
end
local seen = spec.seen
if seen then
  local key, id, kept = KEYS[seen[1]], seen[2], seen[3]
  if redis.call('ZSCORE', key, id) then return 2 end
  if redis.call('ZCARD', key) >= kept then
    local oldest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
    if tonumber(id) < tonumber(oldest[2]) then return 2 end
  end
end
for _, op in ipairs(spec.ops) do
  local name, key = op[1], KEYS[op[2]]
  if name == 'set' then
    if op[4] then redis.call('SET', key, op[3], 'EX', op[4]) else redis.call('SET', key, op[3]) end
  elseif name == 'expire' then redis.call('EXPIRE', key, op[3])
  elseif name == 'del' then redis.call('DEL', key)
  elseif name == 'rpush' then
    redis.call('RPUSH', key, unpack(op[3]))
    redis.call('EXPIRE', key, op[4])
  elseif name == 'hset' then redis.call('HSET', key, unpack(op[3]))
  elseif name == 'hincr' then redis.call('HINCRBY', key, op[3], op[4])
  elseif name == 'zincr' then redis.call('ZINCRBY', key, op[4], op[3])
  elseif name == 'call' then redis.call(op[3], key, unpack(op[4]))
  elseif name == 'publish' then
    -- Sharded pub/sub on Redis 7 (a cluster delivers it on the channel's shard only);
    -- Redis 6 has no SPUBLISH: plain PUBLISH, heard by SUBSCRIBE (storage/app.py).
    local sent = redis.pcall('SPUBLISH', key, op[3])
    if type(sent) == 'table' and sent.err then redis.call('PUBLISH', key, op[3]) end
  elseif name == 'release' then
    if redis.call('GET', key) == op[3] then redis.call('DEL', key) end
  elseif name == 'due' then
    -- The game's record is compared in this script: no newer step can have set it.
    if op[4] == '' then
      redis.call('ZREM', key, op[3])
      redis.call('HDEL', KEYS[op[5]], op[3])
    else
      redis.call('ZADD', key, op[4], op[3])
    end
  elseif name == 'deadline' then
    local revs, member, rev = KEYS[op[3]], op[4], op[5]
    local seen = redis.call('HGET', revs, member)
    if not (seen and tonumber(seen) > tonumber(rev)) then
      if op[6] == '' then
        redis.call('ZREM', key, member)
        redis.call('HDEL', revs, member)
      else
        redis.call('ZADD', key, op[6], member)
        redis.call('HSET', revs, member, rev)
      end
    end
  end
end
if seen then
  local key = KEYS[seen[1]]
  redis.call('ZADD', key, seen[2], seen[2])
  redis.call('ZREMRANGEBYRANK', key, 0, -seen[3] - 1)
  redis.call('EXPIRE', key, seen[4])
end
return 1
"""

MAX_CAS_ATTEMPTS = 60
_LIVE = ("lobby", "playing")  # a game record's statuses that hold its index entries

# An index claimed for a game whose record is not there yet is read again this many times
# (its commit follows within a round trip or two) before it counts as left by a crash.
PENDING_READS = 20

Builder = Callable[[dict[str, str | None]], Awaitable[Writes] | Writes]


class _Pending(Exception):
    """An index names a game about to be written: read again."""


class Conflict(Exception):
    """Too many concurrent writers on the same keys; the caller may retry later."""


class Stale(Exception):
    """What an attempt read is out of date (a concurrent commit, or a game named being
    written): read again and decide again (`atomic` does; a service operation is run
    again, see `service.core.retried`)."""


# Which attempt of an operation this is (0: the first), as the retry sets it: an index
# naming a game not written yet is read again only so many times (PENDING_READS).
CAS_ATTEMPT: ContextVar[int] = ContextVar("cas_attempt", default=0)


P = ParamSpec("P")
R = TypeVar("R")


def retried(operation: Callable[P, Awaitable[R]]) -> Callable[P, Awaitable[R]]:
    """Run an operation again, whole (its reads and its checks too), when its
    compare-and-set found what it read out of date (Stale), with `CAS_ATTEMPT` telling it
    which attempt it is; Conflict after MAX_CAS_ATTEMPTS. The one retry of every
    compare-and-set: `Commits.atomic`'s and the service's operations (`service.core`)."""

    @functools.wraps(operation)
    async def run(*args: P.args, **kwargs: P.kwargs) -> R:
        for attempt in range(MAX_CAS_ATTEMPTS):
            token = CAS_ATTEMPT.set(attempt)
            try:
                return await operation(*args, **kwargs)
            except Stale:
                # Back off a little, at random, so that racing writers spread out.
                await asyncio.sleep(random.uniform(0, 0.002) * min(attempt + 1, 10))
            finally:
                CAS_ATTEMPT.reset(token)
        raise Conflict(f"{operation.__qualname__}: gave up after {MAX_CAS_ATTEMPTS} attempts")

    return run


@dataclass(slots=True)
class Read:
    """What one compare-and-set attempt read: the watched values (`seen`), to build its
    writes from, and what `Commits.write` needs to commit them."""

    watch: list[str]
    seen: dict[str, str | None]
    dangling: dict[str, str]
    update_id: int | None
    scope: str | None


class Duplicate(Exception):
    """The update was applied before: this delivery changes nothing."""


class Commits:
    """Reads and compare-and-set transactions on Redis (see the module's docstring)."""

    def __init__(self, redis: Client, keys: Keys) -> None:
        self.redis = redis
        self.keys = keys
        self.cluster = isinstance(redis, RedisCluster)
        self._commit = redis.register_script(_COMMIT)
        self._claim_key = redis.register_script(_CLAIM)
        self._release = redis.register_script(RELEASE)

    async def get_json(self, key: str, update: Handling | None = None) -> Any:
        """Read a JSON value (None when missing); kept in `update` for its transaction."""
        raw = await self.redis.get(key)
        if update is not None:
            update.keep_read(key, raw)
        return None if raw is None else json.loads(raw)

    async def get_json_and_prefs(
        self, key: str, user_id: int, update: Handling | None = None
    ) -> tuple[Any, dict[str, str]]:
        """A JSON value and a person's preferences, in one round trip (the value kept in
        `update` for its transaction)."""
        pipe = self._pipe()
        pipe.get(key)
        pipe.hgetall(self.keys.user_prefs(user_id))
        raw, prefs = await pipe.execute()
        if update is not None:
            update.keep_read(key, raw)
        value = None if raw is None else json.loads(raw)
        return value, dict(prefs)

    async def get(self, key: str) -> str | None:
        """Read a string value."""
        value: str | None = await self.redis.get(key)
        return value

    def _pipe(self) -> Any:
        return self.redis.pipeline(transaction=False)

    async def atomic(
        self,
        watch: list[str],
        build: Builder,
        update_id: int | None = None,
        scope: str | None = None,
        update: Handling | None = None,
    ) -> Writes:
        """Read `watch`, build the writes from what was read, commit them compare-and-set.

        `watch[0]` is the transaction's key (a game record, or a chat's outbox): the keys
        of its slot are compared and written in one script. Other watched keys are
        indexes naming a game; one naming no live game reads as None. `build` sees the
        values and returns the writes; it may raise to abort with nothing written. A
        concurrent change re-runs it. With `update` (the update being handled: see
        tgbot/storage/updates.py), or `update_id` alone, the update is marked applied in
        the same script; Duplicate if it was applied before. With `update`, the first
        attempt starts from what a read given it kept of `watch`, and on a cluster what
        follows the commit waits for the update's end. With no `watch`, `scope` names the
        transaction's key (a chat's outbox, say).
        """

        @retried
        async def attempt() -> Writes:
            read = await self.read(watch, update, update_id, scope)
            writes = build(read.seen)
            if not isinstance(writes, Writes):
                writes = await writes
            await self.write(read, writes, update)
            return writes

        return await attempt()

    async def read(
        self,
        watch: list[str],
        update: Handling | None = None,
        update_id: int | None = None,
        scope: str | None = None,
    ) -> Read:
        """One attempt's read of `watch` (see `atomic`): with `update`, the first attempt
        takes what a read given it kept. Duplicate if the update was applied; Stale while
        a game an index names is not written yet."""
        if update is not None:
            update_id = update.update_id
        attempt = CAS_ATTEMPT.get()
        kept = update.read if update is not None else {}
        seen: dict[str, str | None]
        dangling: dict[str, str]
        if attempt == 0 and len(watch) == 1 and watch[0] in kept:
            seen, dangling = {watch[0]: kept.pop(watch[0])}, {}
        else:
            kept.clear()
            try:
                seen, dangling = await self._read(watch, update_id, attempt)
            except _Pending:
                await asyncio.sleep(0.005 * min(attempt + 1, 10))
                raise Stale(f"a game named by {watch[1:]} is being written") from None
        if update_id is not None and watch and applied(doc_of(seen[watch[0]]) or {}, update_id):
            raise Duplicate
        return Read(watch, seen, dangling, update_id, scope)

    async def write(self, read: Read, writes: Writes, update: Handling | None = None) -> None:
        """Commit `writes`, built from `read`, compare-and-set (see `atomic`): Stale if
        what it read changed meanwhile, Duplicate if its update was applied meanwhile."""
        if read.update_id is not None:
            writes.mark_update = read.update_id
        plan = plan_writes(self.keys, read.watch, read.seen, writes, scope=read.scope)
        # A second delivery of a press finds it in the record it names; not so for a new
        # record (a second /newgame would make another).
        in_record = read.seen.get(plan.primary or "") is not None and isinstance(
            writes.set_json.get(plan.primary or ""), dict
        )
        drop_lease = (
            update is not None
            and update.press
            and in_record
            and not update.lease_dropped
            and not self.cluster
        )
        if drop_lease and update is not None:
            # One server: the lease goes with the commit that records the press.
            plan.ops.append(["del", plan.ki(update.lease)])
        claimed: dict[str, str] = {}
        try:
            outcome = await self._run(plan, read.dangling, claimed, update)
            if outcome == 1:
                claimed.clear()  # the claims are the indexes' new values: kept
                if update is not None:
                    if in_record:
                        update.in_record = True
                        update.lease_dropped = update.lease_dropped or drop_lease
                    else:
                        update.elsewhere = True
                return
            if outcome == 2:
                raise Duplicate
            raise Stale(f"{read.watch[:1] or read.scope} changed meanwhile")
        finally:
            for key, value in claimed.items():
                await self._release(keys=[key], args=[value])

    async def queue(
        self, owner: str, ops: list[dict[str, Any]], update: Handling | None = None
    ) -> None:
        """Queue deliveries in an owner's outbox (a chat's replies, say) in one transaction
        that marks `update` applied there; Duplicate if it was."""

        def build(_: dict[str, str | None]) -> Writes:
            writes = Writes()
            for op in ops:
                writes.send(owner, op)
            return writes

        await self.atomic([], build, scope=self.keys.outbox(owner), update=update)

    async def commit(self, writes: Writes) -> None:
        """Apply writes that depend on nothing read (each slot's part atomically)."""
        primary = self.keys.outbox(writes.outbox[0][0]) if writes.outbox else None
        plan = plan_writes(self.keys, [], {}, writes, check=False, scope=primary)
        await self._run(plan, {}, {}, None)

    async def _read(
        self, watch: list[str], update_id: int | None = None, attempt: int = 0
    ) -> tuple[dict[str, str | None], dict[str, str]]:
        """The watched values; an index naming no live game reads as None (and may be
        taken over: `dangling` keeps what it held). Duplicate if the game an index names
        applied `update_id` (another process took the same update); _Pending while the
        game it names is not written yet (claimed just before its commit)."""
        if not watch:
            return {}, {}
        if len(watch) == 1:
            raw = [await self.redis.get(watch[0])]
        else:
            pipe = self._pipe()
            for key in watch:
                pipe.get(key)
            raw = await pipe.execute()
        seen: dict[str, str | None] = dict(zip(watch, raw, strict=True))
        tag = slot_tag(watch[0])
        pointers = {k: v for k, v in seen.items() if v and slot_tag(k) != tag}
        dangling: dict[str, str] = {}
        if pointers:
            pipe = self._pipe()
            for game_id in pointers.values():
                pipe.get(self.keys.game(game_id))
            for (key, game_id), record in zip(pointers.items(), await pipe.execute(), strict=True):
                doc = doc_of(record)
                if doc is None and attempt < PENDING_READS:
                    raise _Pending
                if doc is not None and applied(doc, update_id):
                    raise Duplicate
                if doc is None or doc.get("status") not in _LIVE:
                    dangling[key] = game_id
                    seen[key] = None
        return seen, dangling

    async def _run(
        self,
        plan: Plan,
        dangling: dict[str, str],
        claimed: dict[str, str],
        update: Handling | None,
    ) -> int:
        """Apply a plan in order: claims and marks, the slot's script, what follows it.
        1 committed, 0 conflict (read again), 2 applied before.

        On one server everything goes in the script (one round trip, all or nothing).
        On a cluster the marks live on other nodes, so they are written first, and what
        follows a commit made while handling an update waits for the update's end, where
        it goes in one round trip with the update's own mark (see `Updates.end`).
        """
        for key, (value, ttl) in plan.claims.items():
            taken = await self._claim_key(keys=[key], args=[value, ttl, dangling.get(key, "")])
            if not taken:
                return 0  # someone else's now: the next read shows it
            if int(taken) == 1:  # newly ours: released if this attempt does not commit
                claimed[key] = value
        if not plan.empty():
            spec = dumps({"check": plan.check, "seen": plan.seen, "ops": plan.ops})
            if not self.cluster:
                # One server: every key is in reach of the script, so what goes before and
                # after the commit goes in it (one round trip, all or nothing), and a
                # deadline is set exactly at once (no earlier one first).
                spec = dumps(single_spec(self.keys, plan))
                plan.post, plan.counts = [], []
            else:
                await self._batch(plan.pre)
            outcome = await self._commit(keys=plan.keys, args=[spec])
            if int(outcome) != 1:
                return int(outcome)
        else:
            await self._batch(plan.pre)
        if update is not None:
            update.post += plan.post
            update.counts += plan.counts
            return 1
        await self._batch(plan.post)
        if plan.counts:
            pipe = self._pipe()
            for command, args in plan.counts:
                pipe.execute_command(command, *args)
            await pipe.execute()
        return 1

    async def _batch(self, calls: list[Call]) -> None:
        """Single-slot commands and scripts, in one round trip (idempotent ones only)."""
        if not calls:
            return
        pipe = self._pipe()
        queue_calls(pipe, calls)
        await pipe.execute()
