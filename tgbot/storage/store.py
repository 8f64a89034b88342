"""A thin Redis layer: compare-and-set transactions, deadlines, outboxes, preferences.

The same code runs on one Redis server and on a Redis Cluster (see `open_client`): every
atomic operation is one Lua script or command on keys of a single slot.

A step's transaction (`Store.atomic`) commits everything in its game's slot in one script
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
what follows a commit made while handling an update goes with the update's end
(`Store.end_update`), in one round trip.

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
import contextvars
import json
import random
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from redis.asyncio.cluster import RedisCluster
from redis.exceptions import (
    AuthenticationError,
    ConnectionError,
    RedisError,
    TimeoutError,
)

from .clients import cluster_client, node_urls, single_client
from .keys import Keys, chat_owner, game_of_key, slot_tag
from .outbox import OUTBOX_TTL_S as OUTBOX_TTL_S
from .outbox import OutboxStore

# A Redis server or a Redis Cluster: both clients offer the commands used here.
Client = Any

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
# its record set it already. KEYS: the bucket's deadlines and revisions.
_DEADLINE = """
local seen = redis.call('HGET', KEYS[2], ARGV[1])
if seen and tonumber(seen) > tonumber(ARGV[2]) then return 0 end
if ARGV[3] == '' then
  redis.call('ZREM', KEYS[1], ARGV[1])
  redis.call('HDEL', KEYS[2], ARGV[1])
else
  redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
  redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
end
return 1
"""

# Forget a pending-delivery mark unless a step marked it again since ARGV[2] (its score).
_UNMARK = """
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if score and tonumber(score) <= tonumber(ARGV[2]) then
  return redis.call('ZREM', KEYS[1], ARGV[1])
end
return 0
"""

# Take an index entry: set it when absent, ours already, or held by ARGV[3] (a value the
# caller found to name no live game).
_CLAIM = """
local held = redis.call('GET', KEYS[1])
if (not held) or held == ARGV[1] or held == ARGV[3] then
  redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2])
  return 1
end
return 0
"""

# Delete a key only if it holds ARGV[1] (a lock we hold, an index naming our game).
_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""

# Extend a lock only if we still hold it.
_EXTEND = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0
"""


# A sliding window of sends per chat, shared by every process: admit up to ARGV[5] sends
# when the chat is not held (KEYS[2], after a 429) and fewer than ARGV[3] happened in the
# last ARGV[2] ms (several counted ARGV[6] ms ahead of now: the caller spends them within
# that time), else say how long to wait. Both keys share a hash tag. {taken, ms to wait}.
_WINDOW_ADMIT = """
local held = redis.call('PTTL', KEYS[2])
if held > 0 then return {0, held} end
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local free = tonumber(ARGV[3]) - redis.call('ZCARD', KEYS[1])
if free > 0 then
  local n = math.min(free, tonumber(ARGV[5]))
  local at = n > 1 and now + tonumber(ARGV[6]) or now
  local entries = {}
  for i = 1, n do
    entries[#entries + 1] = at
    entries[#entries + 1] = ARGV[4] .. ':' .. i
  end
  redis.call('ZADD', KEYS[1], unpack(entries))
  redis.call('PEXPIRE', KEYS[1], window + (at - now))
  return {n, 0}
end
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
return {0, math.max(1, tonumber(oldest[2]) + window - now + 1)}
"""

# Take up to ARGV[4] calls at once from a sliding window of the bot's calls (ARGV[3] in
# ARGV[2] ms), counted ARGV[6] ms ahead of now: the caller spends them within that time,
# so any window of their spending holds no more than the limit. Returns {taken, ms to
# wait when none}.
_WINDOW_TAKE = """
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local ahead = tonumber(ARGV[6])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local free = tonumber(ARGV[3]) - redis.call('ZCARD', KEYS[1])
if free > 0 then
  local n = math.min(free, tonumber(ARGV[4]))
  local entries = {}
  for i = 1, n do
    entries[#entries + 1] = now + ahead
    entries[#entries + 1] = ARGV[5] .. ':' .. i
  end
  redis.call('ZADD', KEYS[1], unpack(entries))
  redis.call('PEXPIRE', KEYS[1], window + ahead)
  return {n, 0}
end
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
return {0, math.max(1, tonumber(oldest[2]) + window - now + 1)}
"""

# One transaction on one slot. ARGV[1] is JSON: "check", [key index, expected value or
# false] pairs (compare-and-set on string keys); "seen", [key index, update id, kept, ttl]
# or false (a sorted set of the latest update ids applied in this slot; an id already in
# it, or older than all of a full set's, was applied before); "ops", the writes.
# Returns 1 (committed), 0 (a checked key changed: read again) or 2 (applied before).
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
FINISHED_GAME_TTL = 24 * 3600
# Telegram gives up on an update within a day; a game keeps its last SEEN_KEPT update ids
# in its record (a chat or a group's settings in a small sorted set, for as long).
UPDATE_MARK_TTL_S = 24 * 3600
SEEN_KEPT = 32
CHAT_SEEN_KEPT = 32  # a chat's latest update ids kept
UPDATE_LEASE_MS = 10_000  # a process taking an update holds it this long at most
SEEN_FIELD = "_seen"  # the update ids a game record's steps applied, kept in the record
INDEX_TTL_S = 7 * 24 * 3600  # an index entry written without a TTL of its own
# The sweeper looks at pending-delivery marks older than this: a fresh one is the sender's,
# which delivers a step's messages at once and drops the mark (see Sender.flush).
MARK_GRACE_MS = 3_000
_LIVE = ("lobby", "playing")  # a game record's statuses that hold its index entries


# An index claimed for a game whose record is not there yet is read again this many times
# (its commit follows within a round trip or two) before it counts as left by a crash.
PENDING_READS = 20


@dataclass(slots=True)
class _UpdateWork:
    """What one update's handling left for its end (see `Store.begin_update`): the
    single-slot writes that follow its commits, records read before its transaction,
    and whether every commit recorded the update in a game record."""

    post: list[tuple[str, list[str], list[Any]]] = field(default_factory=list)
    counts: list[tuple[str, list[Any]]] = field(default_factory=list)
    read: dict[str, str | None] = field(default_factory=dict)
    in_record: bool = False
    press: bool = False
    elsewhere: bool = False
    hits: dict[int, int] = field(default_factory=dict)
    task: asyncio.Task[Any] | None = None
    lease: str = ""
    lease_dropped: bool = False


# Set by begin_update for the task handling that update (and the tasks it starts copy it,
# which is why a delivery task drops it: see `Store.outside_update`).
_update_work: contextvars.ContextVar[_UpdateWork | None] = contextvars.ContextVar(
    "update_work", default=None
)


def _work() -> _UpdateWork | None:
    """The update this task is handling, if any (not one a task it was started from is)."""
    work = _update_work.get()
    if work is None or work.task is not asyncio.current_task():
        return None
    return work


class _Pending(Exception):
    """An index names a game about to be written: read again."""


class Conflict(Exception):
    """Too many concurrent writers on the same keys; the caller may retry later."""


class Duplicate(Exception):
    """The update was applied before: this delivery changes nothing."""


@dataclass(slots=True)
class Writes:
    """Everything one step writes (see the module's docstring for what goes where)."""

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


def connect(url: str, cluster: bool = False) -> Client:
    """A client for one server or, with `cluster`, for a Redis Cluster; both ride what a
    dropped connection or a failover interrupts (`tgbot/storage/clients.py`).

    Both decode every reply as UTF-8 text (`decode_responses`): the one place where Redis
    bytes become str. Everything stored is text (JSON, ids, numbers), and an outbox entry
    read back is the exact text written, so LREM by entry still matches it."""
    return cluster_client(url) if cluster else single_client(url)


class NotACluster(Exception):
    """REDIS_URL names several nodes, and one of them is a server outside any cluster."""

    def __init__(self, node: str, nodes: int) -> None:
        super().__init__(f"REDIS_URL names {nodes} nodes, and one is not in cluster mode")
        self.node = node
        self.nodes = nodes


async def open_client(url: str) -> Client:
    """The right client for `url`, decided at start by the first node it names that answers
    `INFO cluster`: a cluster's client (which learns the cluster from whichever named node
    answers) or one server's. When no node answers, the last one's error is raised
    (ConnectionError or TimeoutError): the caller tries again a bounded time."""
    nodes = node_urls(url)
    for i, node in enumerate(nodes):
        plain = connect(node)
        try:
            info = await plain.info("cluster")
        except AuthenticationError:
            await plain.aclose()
            raise
        except (ConnectionError, TimeoutError, OSError):
            await plain.aclose()
            if i + 1 == len(nodes):
                raise
            continue
        except RedisError:  # INFO not allowed (an ACL, a renamed command): cannot tell
            info = {"cluster_enabled": len(nodes) > 1}
        except BaseException:
            await plain.aclose()
            raise
        if info.get("cluster_enabled"):
            await plain.aclose()
            return connect(url, cluster=True)
        if len(nodes) > 1:
            await plain.aclose()
            raise NotACluster(node, len(nodes))
        return plain
    raise ValueError("REDIS_URL names no node")


def is_cluster(client: Client) -> bool:
    """Whether the client talks to a Redis Cluster."""
    return isinstance(client, RedisCluster)


def applied(doc: dict[str, Any], update_id: int | None) -> bool:
    """Whether a game record (as read) already applied this update."""
    if update_id is None:
        return False
    ids = doc.get(SEEN_FIELD) or []
    return update_id in ids or (len(ids) >= SEEN_KEPT and update_id < min(ids))


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _doc(raw: str | None) -> dict[str, Any] | None:
    if raw is None:
        return None
    try:
        value = json.loads(raw)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


class _Plan:
    """One attempt's writes, split by where they go (see the module's docstring)."""

    def __init__(self, primary: str | None) -> None:
        self.primary = primary
        self.tag = None if primary is None else slot_tag(primary)
        self.keys: list[str] = []
        self._index: dict[str, int] = {}
        self.check: list[list[Any]] = []
        self.seen: list[Any] | bool = False
        self.ops: list[list[Any]] = []
        self.claims: dict[str, tuple[str, int]] = {}  # index key -> (value, ttl)
        self.pre: list[tuple[str, list[str], list[Any]]] = []  # (command or script, keys, args)
        self.post: list[tuple[str, list[str], list[Any]]] = []
        self.counts: list[tuple[str, list[Any]]] = []  # stats: (command, args), after

    def local(self, key: str) -> bool:
        """Whether a key lives in the transaction's slot."""
        if self.tag is None:
            self.tag = slot_tag(key)
            self.primary = key
        return slot_tag(key) == self.tag

    def ki(self, key: str) -> int:
        """The (1-based) index of a key in the script's KEYS."""
        if key not in self._index:
            self.keys.append(key)
            self._index[key] = len(self.keys)
        return self._index[key]

    def empty(self) -> bool:
        """Whether nothing needs the transaction's script."""
        return not self.ops and not self.seen


class Store(OutboxStore):
    """Redis access for the game service."""

    def __init__(self, redis: Client, keys: Keys) -> None:
        self.redis = redis
        self.keys = keys
        self.cluster = is_cluster(redis)
        self._commit = redis.register_script(_COMMIT)
        self._claim_key = redis.register_script(_CLAIM)
        self._release = redis.register_script(_RELEASE)
        self._extend = redis.register_script(_EXTEND)
        self._admit = redis.register_script(_WINDOW_ADMIT)
        self._take = redis.register_script(_WINDOW_TAKE)
        self._begin = redis.register_script(_BEGIN_UPDATE)
        self._begin_press = redis.register_script(_BEGIN_PRESS)
        self._mark = redis.register_script(_MARK_UPDATE)
        self._finish = redis.register_script(_FINISH_DRAIN)
        self._register_outbox_scripts()

    async def ping(self) -> bool:
        """True when Redis answers."""
        return bool(await self.redis.ping())

    async def get_json(self, key: str) -> Any:
        """Read a JSON value (None when missing)."""
        raw = await self.redis.get(key)
        self._keep_read(key, raw)
        return None if raw is None else json.loads(raw)

    async def get_json_and_prefs(self, key: str, user_id: int) -> tuple[Any, dict[str, str]]:
        """A JSON value and a person's preferences, in one round trip."""
        pipe = self._pipe()
        pipe.get(key)
        pipe.hgetall(self.keys.user_prefs(user_id))
        raw, prefs = await pipe.execute()
        self._keep_read(key, raw)
        value = None if raw is None else json.loads(raw)
        return value, dict(prefs)

    @staticmethod
    def _keep_read(key: str, raw: str | None) -> None:
        """Keep what an update's handling read of a key: its transaction on that key may
        start from it instead of reading it again (its compare-and-set checks it)."""
        work = _work()
        if work is not None and raw is not None:  # an absent key is read again
            work.read[key] = raw

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
    ) -> Writes:
        """Read `watch`, build the writes from what was read, commit them compare-and-set.

        `watch[0]` is the transaction's key (a game record, or a chat's outbox): the keys
        of its slot are compared and written in one script. Other watched keys are
        indexes naming a game; one naming no live game reads as None. `build` sees the
        values and returns the writes; it may raise to abort with nothing written. A
        concurrent change re-runs it. With `update_id` (or writes.mark_update), the update
        is marked applied in the same script; Duplicate if it was applied before. With no
        `watch`, `scope` names the transaction's key (a chat's outbox, say).
        """
        claimed: dict[str, str] = {}
        try:
            for attempt in range(MAX_CAS_ATTEMPTS):
                work = _work()
                seen: dict[str, str | None]
                dangling: dict[str, str]
                if attempt == 0 and work is not None and len(watch) == 1 and watch[0] in work.read:
                    seen, dangling = {watch[0]: work.read.pop(watch[0])}, {}
                else:
                    if work is not None:
                        work.read.clear()
                    try:
                        seen, dangling = await self._read(watch, update_id, attempt)
                    except _Pending:
                        await asyncio.sleep(0.005 * min(attempt + 1, 10))
                        continue
                if (
                    update_id is not None
                    and watch
                    and applied(_doc(seen[watch[0]]) or {}, update_id)
                ):
                    raise Duplicate
                writes = build(seen)
                if not isinstance(writes, Writes):
                    writes = await writes
                if update_id is not None:
                    writes.mark_update = update_id
                plan = self._plan(watch, seen, writes, scope=scope)
                # A second delivery of a press finds it in the record it names; not so for
                # a new record (a second /newgame would make another).
                in_record = seen.get(plan.primary or "") is not None and isinstance(
                    writes.set_json.get(plan.primary or ""), dict
                )
                drop_lease = (
                    work is not None
                    and update_id is not None
                    and work.press
                    and in_record
                    and not work.lease_dropped
                    and not self.cluster
                )
                if drop_lease and work is not None:
                    # One server: the lease goes with the commit that records the press.
                    plan.ops.append(["del", plan.ki(work.lease)])
                outcome = await self._run(plan, dangling, claimed)
                if outcome == 1:
                    if work is not None and update_id is not None:
                        if in_record:
                            work.in_record = True
                            work.lease_dropped = work.lease_dropped or drop_lease
                        else:
                            work.elsewhere = True
                    for key in set(claimed) - set(plan.claims):
                        await self._release(keys=[key], args=[claimed.pop(key)])
                    claimed.clear()
                    return writes
                if outcome == 2:
                    raise Duplicate
                # Back off a little, at random, so that racing writers spread out.
                await asyncio.sleep(random.uniform(0, 0.002) * min(attempt, 10))
            raise Conflict(f"gave up after {MAX_CAS_ATTEMPTS} conflicting attempts on {watch}")
        finally:
            for key, value in claimed.items():
                await self._release(keys=[key], args=[value])

    async def commit(self, writes: Writes) -> None:
        """Apply writes that depend on nothing read (each slot's part atomically)."""
        primary = self.keys.outbox(writes.outbox[0][0]) if writes.outbox else None
        plan = self._plan([], {}, writes, check=False, scope=primary)
        await self._run(plan, {}, {})

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
                doc = _doc(record)
                if doc is None and attempt < PENDING_READS:
                    raise _Pending
                if doc is not None and applied(doc, update_id):
                    raise Duplicate
                if doc is None or doc.get("status") not in _LIVE:
                    dangling[key] = game_id
                    seen[key] = None
        return seen, dangling

    def _plan(
        self,
        watch: list[str],
        seen: dict[str, str | None],
        writes: Writes,
        check: bool = True,
        scope: str | None = None,
    ) -> _Plan:
        keys = self.keys
        plan = _Plan(watch[0] if watch else scope)
        primary = plan.primary
        if check:
            for key in watch:
                if plan.local(key):
                    value = seen.get(key)
                    plan.check.append([plan.ki(key), False if value is None else value])
        owner_game = None if primary is None else game_of_key(primary)
        old = _doc(seen.get(primary)) if primary else None
        doc = writes.set_json.get(primary) if primary else None
        if writes.mark_update is not None:
            if isinstance(doc, dict):
                ids = [*list((old or {}).get(SEEN_FIELD) or []), writes.mark_update]
                doc[SEEN_FIELD] = ids[-SEEN_KEPT:]
            elif primary is not None:
                seen_key = keys.seen(primary)
                plan.seen = [plan.ki(seen_key), writes.mark_update, SEEN_KEPT, UPDATE_MARK_TTL_S]
        expire = dict(writes.expire)
        strings = {k: _dumps(v) for k, v in writes.set_json.items()}
        strings.update(writes.set_str)
        for key, text in strings.items():
            ttl = expire.pop(key, None)
            if plan.local(key):
                plan.ops.append(["set", plan.ki(key), text] + ([ttl] if ttl else []))
            else:
                plan.claims[key] = (text, ttl or INDEX_TTL_S)
        for key, seconds in expire.items():
            if plan.local(key):
                plan.ops.append(["expire", plan.ki(key), seconds])
            else:
                plan.post.append(("EXPIRE", [key], [seconds]))
        for key in writes.delete:
            if plan.local(key):
                plan.ops.append(["del", plan.ki(key)])
            elif owner_game is not None:
                plan.post.append((_RELEASE, [key], [owner_game]))  # only if it names us
            else:
                plan.post.append(("DEL", [key], []))
        now = int(time.time() * 1000)
        queued: dict[str, list[str]] = {}
        for owner, op in writes.outbox:
            queued.setdefault(owner, []).append(json.dumps(op, ensure_ascii=False))
        for owner, entries in queued.items():
            key = keys.outbox(owner)
            # A mark's score changes with every step (ms, and a random part for the same ms).
            score = now * 1000 + random.randrange(1000)
            plan.pre.append(("ZADD", [keys.pending_outboxes(keys.bucket(owner))], [score, owner]))
            if plan.local(key):
                plan.ops.append(["rpush", plan.ki(key), entries, OUTBOX_TTL_S])
            else:
                plan.post.append(("RPUSH", [key], entries))
                plan.post.append(("EXPIRE", [key], [OUTBOX_TTL_S]))
        rev = (doc if isinstance(doc, dict) else old or {}).get("rev", 1 << 50)
        for game_id, due_ms in writes.deadline_set.items():
            bucket = keys.bucket(game_id)
            plan.pre.append(("ZADD", [keys.deadlines(bucket)], ["LT", due_ms, game_id]))
            dl_keys = [keys.deadlines(bucket), keys.deadline_revs(bucket)]
            plan.post.append((_DEADLINE, dl_keys, [game_id, rev, due_ms]))
        for game_id in writes.deadline_clear:
            bucket = keys.bucket(game_id)
            dl_keys = [keys.deadlines(bucket), keys.deadline_revs(bucket)]
            plan.post.append((_DEADLINE, dl_keys, [game_id, rev, ""]))
        for key, name, amount in writes.hincr:
            if plan.local(key):
                plan.ops.append(["hincr", plan.ki(key), name, amount])
            else:
                plan.counts.append(("HINCRBY", [key, name, amount]))
        for key, member, amount in writes.zincr:
            if plan.local(key):
                plan.ops.append(["zincr", plan.ki(key), member, amount])
            else:
                plan.counts.append(("ZINCRBY", [key, amount, member]))
        for key, mapping in writes.hset.items():
            flat = [x for pair in mapping.items() for x in pair]
            if plan.local(key):
                plan.ops.append(["hset", plan.ki(key), flat])
            else:
                plan.counts.append(("HSET", [key, *flat]))
        return plan

    async def _run(self, plan: _Plan, dangling: dict[str, str], claimed: dict[str, str]) -> int:
        """Apply a plan in order: claims and marks, the slot's script, what follows it.
        1 committed, 0 conflict (read again), 2 applied before.

        On one server everything goes in the script (one round trip, all or nothing).
        On a cluster the marks live on other nodes, so they are written first, and what
        follows a commit made while handling an update waits for the update's end, where
        it goes in one round trip with the update's own mark (see `end_update`).
        """
        for key, (value, ttl) in plan.claims.items():
            if not await self._claim_key(keys=[key], args=[value, ttl, dangling.get(key, "")]):
                return 0  # someone else's now: the next read shows it
            claimed[key] = value
        if not plan.empty():
            spec = _dumps({"check": plan.check, "seen": plan.seen, "ops": plan.ops})
            if not self.cluster:
                # One server: every key is in reach of the script, so what goes before and
                # after the commit goes in it (one round trip, all or nothing), and a
                # deadline is set exactly at once (no earlier one first).
                spec = _dumps(self._single_spec(plan))
                plan.post, plan.counts = [], []
            else:
                await self._batch(plan.pre)
            outcome = await self._commit(keys=plan.keys, args=[spec])
            if int(outcome) != 1:
                return int(outcome)
        else:
            await self._batch(plan.pre)
        work = _work()
        if work is not None:
            work.post += plan.post
            work.counts += plan.counts
            return 1
        await self._batch(plan.post)
        if plan.counts:
            pipe = self._pipe()
            for command, args in plan.counts:
                pipe.execute_command(command, *args)
            await pipe.execute()
        return 1

    def _single_spec(self, plan: _Plan) -> dict[str, Any]:
        """The commit script's spec with the plan's writes before and after it as ops (for
        one server). Arguments as text: Lua would print a large number in 14 digits.

        A deadline of a game whose record the script compares is set unguarded: a newer
        step would have to commit after this script, so no revision check is needed."""
        checked = {index for index, _ in plan.check}
        deadlines = {args[0] for command, _, args in plan.post if command == _DEADLINE}
        before: list[list[Any]] = []
        for command, keys, args in plan.pre:
            if command == "ZADD" and args[0] == "LT" and args[2] in deadlines:
                continue  # set exactly below, in the same script
            before.append(["call", plan.ki(keys[0]), command, [str(a) for a in args]])
        after: list[list[Any]] = []
        for command, keys, args in plan.post:
            if command == _DEADLINE:
                record = self.keys.game(str(args[0]))
                if record in plan.keys and plan.ki(record) in checked:
                    revs = plan.ki(keys[1])
                    after.append(["due", plan.ki(keys[0]), str(args[0]), str(args[2]), revs])
                    continue
                revs = plan.ki(keys[1])
                after.append(["deadline", plan.ki(keys[0]), revs, *[str(a) for a in args]])
            elif command == _RELEASE:
                after.append(["release", plan.ki(keys[0]), str(args[0])])
            else:
                after.append(["call", plan.ki(keys[0]), command, [str(a) for a in args]])
        for command, args in plan.counts:
            after.append(["call", plan.ki(args[0]), command, [str(a) for a in args[1:]]])
        return {"check": plan.check, "seen": plan.seen, "ops": before + plan.ops + after}

    @staticmethod
    def _queue(pipe: Any, calls: list[tuple[str, list[str], list[Any]]]) -> None:
        for command, keys, args in calls:
            if command.startswith("\n"):  # a script's text
                pipe.eval(command, len(keys), *keys, *args)
            else:
                pipe.execute_command(command, *keys, *args)

    async def _batch(self, calls: list[tuple[str, list[str], list[Any]]]) -> None:
        """Single-slot commands and scripts, in one round trip (idempotent ones only)."""
        if not calls:
            return
        pipe = self._pipe()
        self._queue(pipe, calls)
        await pipe.execute()

    # ---- deadlines -----------------------------------------------------------------

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
        await self.redis.eval(_DEADLINE, 2, *dl_keys, game_id, 1 << 50, "")

    async def deadline_of(self, game_id: str) -> int | None:
        """A game's armed deadline (epoch ms), None when it has none."""
        due = await self.redis.zscore(self.keys.deadlines(self.keys.bucket(game_id)), game_id)
        return None if due is None else int(due)

    async def adopt_legacy(self) -> int:
        """Move what an older version kept in one global key (its deadlines, its set of
        pending outboxes) into the buckets; return how many entries moved. One server
        only: the older version never ran on a cluster."""
        if self.cluster:
            return 0
        prefix, moved = self.keys.prefix, 0
        old_deadlines, old_pending = f"{prefix}:deadlines", f"{prefix}:outboxes"
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

    # ---- outboxes ------------------------------------------------------------------

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

    async def extend(self, key: str, token: str, ttl_ms: int) -> bool:
        """Keep a lock we hold for another `ttl_ms`."""
        return bool(await self._extend(keys=[key], args=[token, ttl_ms]))

    async def unlock(self, key: str, token: str) -> None:
        """Release a lock we hold."""
        await self._release(keys=[key], args=[token])

    async def admit_chat(self, chat_id: int, now_ms: int, limit: int, window_ms: int) -> int:
        """Count a message to a chat if its window allows it (0); else the ms to wait first."""
        taken, wait = await self.take_chat(chat_id, now_ms, limit, window_ms, 1, 0)
        return 0 if taken else wait

    async def take_chat(
        self, chat_id: int, now_ms: int, limit: int, window_ms: int, n: int, ahead_ms: int
    ) -> tuple[int, int]:
        """Count up to `n` messages to a chat at once if its window allows (several are
        counted `ahead_ms` ahead, to be spent within that time): (taken, 0), or (0, the
        ms to wait first)."""
        keys = self.keys
        token = f"{now_ms}-{uuid.uuid4().hex[:8]}"
        taken, wait = await self._admit(
            keys=[keys.chat_sends(chat_id), keys.chat_hold(chat_id)],
            args=[now_ms, window_ms, limit, token, n, ahead_ms],
        )
        return int(taken), int(wait)

    async def take_bot(
        self,
        queued: bool,
        shard: int,
        now_ms: int,
        limit: int,
        window_ms: int,
        n: int,
        ahead_ms: int,
    ) -> tuple[int, int]:
        """Take up to `n` of the bot's calls at once from a shard of its window, each
        counted `ahead_ms` ahead (to be spent within that time): (taken, 0), or (0, the
        ms to wait)."""
        token = f"{now_ms}-{uuid.uuid4().hex[:8]}"
        key = self.keys.bot_sends(queued, shard)
        taken, wait = await self._take(
            keys=[key], args=[now_ms, window_ms, limit, n, token, ahead_ms]
        )
        return int(taken), int(wait)

    async def hold_chat(self, chat_id: int, ms: int) -> None:
        """Make every process wait `ms` before writing to a chat again (Telegram's 429)."""
        await self.redis.set(self.keys.chat_hold(chat_id), "1", px=ms)

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

    # ---- preferences ---------------------------------------------------------------

    async def user_prefs(self, user_id: int) -> dict[str, str]:
        """A person's stored preferences."""
        prefs: dict[str, str] = await self.redis.hgetall(self.keys.user_prefs(user_id))
        return prefs

    async def set_user_prefs(self, user_id: int, **values: str) -> None:
        """Store some of a person's preferences."""
        await self.redis.hset(self.keys.user_prefs(user_id), mapping=values)

    async def chat_settings(self, chat_id: int) -> dict[str, str]:
        """A group's stored settings."""
        settings: dict[str, str] = await self.redis.hgetall(self.keys.chat_settings(chat_id))
        return settings

    async def set_chat_settings(self, chat_id: int, **values: str) -> None:
        """Store some of a group's settings."""
        await self.redis.hset(self.keys.chat_settings(chat_id), mapping=values)

    async def change_chat_settings(
        self, chat_id: int, update_id: int, change: Callable[[dict[str, str]], dict[str, str]]
    ) -> dict[str, str] | None:
        """Change a group's settings from their current values, compare-and-set, and mark
        the update applied in the same script; None if it was applied before."""
        key = self.keys.chat_settings(chat_id)
        for attempt in range(MAX_CAS_ATTEMPTS):
            raw = await self.redis.hgetall(key)
            current = dict(raw)
            values = change(current)
            outcome = int(
                await self.redis.eval(
                    _CHANGE_HASH,
                    2,
                    key,
                    self.keys.seen(key),
                    _dumps(sorted(current.items())),
                    update_id,
                    SEEN_KEPT,
                    UPDATE_MARK_TTL_S,
                    *[x for pair in values.items() for x in pair],
                )
            )
            if outcome == 2:
                return None
            if outcome == 1:
                return {**current, **values}
            await asyncio.sleep(random.uniform(0, 0.002) * min(attempt, 10))
        raise Conflict(f"gave up after {MAX_CAS_ATTEMPTS} conflicting attempts on {key}")

    # ---- updates -------------------------------------------------------------------

    async def begin_update(
        self, chat_id: int, update_id: int, counting: tuple[int, int] | None = None
    ) -> bool:
        """Take an update of a chat for this process; False if it was applied before.

        While another process holds it (the same update delivered twice at once), wait
        until that one marks it applied (False) or its lease runs out (it died: True).
        `counting` (the presser, a window in s) is given for a button press: the press is
        counted for `hit` in the same round trip, and a press is marked applied in the
        game record it names when it changes one (see `end_update`). Until `end_update`
        (or `abandon_update`), the task's commits leave what follows them to the update's
        end.
        """
        keys = self.keys
        scope = keys.outbox(chat_owner(chat_id))
        lease = f"{keys.prefix}:{{{slot_tag(scope)}}}:u:{update_id}"
        work = _UpdateWork(task=asyncio.current_task(), press=counting is not None, lease=lease)
        _update_work.set(work)
        if counting is not None and not self.cluster:
            # One server: the press's throttle count goes in its lease's script.
            user_id, window_s = counting
            got, count = await self._begin_press(
                keys=[keys.seen(scope), lease, keys.throttle(user_id)],
                args=[update_id, UPDATE_LEASE_MS, window_s],
            )
            work.hits[user_id] = int(count)
        elif counting is not None:
            user_id, window_s = counting
            pipe = self._pipe()
            pipe.eval(_BEGIN_UPDATE, 2, keys.seen(scope), lease, update_id, UPDATE_LEASE_MS)
            self._count_hit(pipe, user_id, window_s)
            got, _, count = await pipe.execute()
            work.hits[user_id] = int(count)
        else:
            got = await self._begin(
                keys=[keys.seen(scope), lease], args=[update_id, UPDATE_LEASE_MS]
            )
        while int(got) == 0:
            await asyncio.sleep(0.02)
            got = await self._begin(
                keys=[keys.seen(scope), lease], args=[update_id, UPDATE_LEASE_MS]
            )
        return int(got) == 1

    async def end_update(self, chat_id: int, update_id: int) -> None:
        """Mark an update of a chat applied and drop its lease, in one round trip with
        what its commits left to do after them.

        A button press whose every commit recorded it in the existing game record its
        button names is marked there already (a second delivery reads that record before
        anything else, and stops there): only its lease is dropped.
        Any other goes into the chat's latest update ids.
        """
        keys = self.keys
        scope = keys.outbox(chat_owner(chat_id))
        lease = f"{keys.prefix}:{{{slot_tag(scope)}}}:u:{update_id}"
        work = _work()
        _update_work.set(None)
        pipe = self._pipe()
        if work is not None:
            self._queue(pipe, work.post)
            for command, args in work.counts:
                pipe.execute_command(command, *args)
        if work is not None and work.press and work.in_record and not work.elsewhere:
            if work.lease_dropped:  # by the commit that recorded the press (one server)
                if pipe.command_stack:
                    await pipe.execute()
                return
            pipe.delete(lease)
        else:
            pipe.eval(
                _MARK_UPDATE,
                2,
                keys.seen(scope),
                lease,
                update_id,
                CHAT_SEEN_KEPT,
                UPDATE_MARK_TTL_S,
            )
        await pipe.execute()

    async def abandon_update(self) -> None:
        """An update's handling failed: do what its commits left for after them (they are
        committed), without marking the update applied; errors are the caller's to log."""
        work = _work()
        _update_work.set(None)
        if work is None:
            return
        pipe = self._pipe()
        self._queue(pipe, work.post)
        for command, args in work.counts:
            pipe.execute_command(command, *args)
        if work.lease and not work.lease_dropped:
            # Telegram's retry of this update (after the 503) need not wait out the lease.
            pipe.delete(work.lease)
        await pipe.execute()

    async def hit(self, user_id: int, window_s: int) -> int:
        """Count one update from a person in the current window; return the count."""
        work = _work()
        if work is not None and user_id in work.hits:
            return work.hits.pop(user_id)  # counted with the update's lease
        pipe = self._pipe()
        self._count_hit(pipe, user_id, window_s)
        _, count = await pipe.execute()
        return int(count)

    def _count_hit(self, pipe: Any, user_id: int, window_s: int) -> None:
        key = self.keys.throttle(user_id)
        pipe.set(key, 0, ex=window_s, nx=True)  # starts the window (works on Redis 6 too)
        pipe.incr(key)


# Change a hash if it still holds what was read (ARGV[1]: its sorted pairs as JSON) and the
# update (ARGV[2]) is not in the slot's latest ones (KEYS[2], ARGV[3] kept, ARGV[4] ttl);
# ARGV[5..] the new field/value pairs. 1 changed, 0 changed meanwhile, 2 applied before.
_CHANGE_HASH = """
local seen, id, kept = KEYS[2], ARGV[2], tonumber(ARGV[3])
if redis.call('ZSCORE', seen, id) then return 2 end
if redis.call('ZCARD', seen) >= kept then
  local oldest = redis.call('ZRANGE', seen, 0, 0, 'WITHSCORES')
  if tonumber(id) < tonumber(oldest[2]) then return 2 end
end
local flat = redis.call('HGETALL', KEYS[1])
local pairs_ = {}
for i = 1, #flat, 2 do pairs_[#pairs_ + 1] = {flat[i], flat[i + 1]} end
table.sort(pairs_, function(a, b) return a[1] < b[1] end)
local now = #pairs_ == 0 and '[]' or cjson.encode(pairs_)
if now ~= ARGV[1] then return 0 end
if #ARGV > 4 then redis.call('HSET', KEYS[1], unpack(ARGV, 5)) end
redis.call('ZADD', seen, id, id)
redis.call('ZREMRANGEBYRANK', seen, 0, -kept - 1)
redis.call('EXPIRE', seen, ARGV[4])
return 1
"""


# An update of a chat: 2 if applied before (in the chat's latest ids, KEYS[1]), else 1 if
# its lease (KEYS[2], ARGV[2] ms) is ours now, 0 if another process holds it.
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
