"""Outboxes: what steps queued, taken into one lane per chat and delivered a bounded head
at a time, so that a pass costs what it delivers, however much waits behind.

A step appends its messages to its owner's *inbox* (`Keys.outbox`, a list: one RPUSH in
its commit script, whatever this module does). The one process delivering an owner (its
lock, kept alive by that process's lease) moves them, at most ROUTE_BATCH a pass, into
the lane of the chat each is for (`Keys.outbox_lane`), keeping in the owner's states hash
(`Keys.outbox_states`) only the newest pending state of each message: an edit (or an
in-place show) of a message replaces its older pending one, whose place in the lane is
left as a stale marker, dropped when the lane's head reaches it. A send of a message
starts a new generation of it (an edit queued before the send concerns the message it
replaces). A pass then reads at most LANE_HEAD entries of each lane and removes what it
delivered (LREM from the head: each within the first LANE_HEAD), in one script.

A send with buttons goes out in one call, its Telegram id recorded (`outbox_sent`) before
anything more is done: a retry after that record makes no second copy. A send whose
outcome is unknown (the process killed, the answer too slow) is made again, and may leave
a copy with buttons that nothing records; a press on it acts as one on the recorded copy
while it is current. Its attempt notes the newest message id known in the chat
(`outbox_attempt`), so that the ids just above can be tried for the copy, and a press on a
copy not found that way is refused as stale and takes its buttons off (a close: see
`contract.plan.close_keyboard`).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

from .commit import MAX_CAS_ATTEMPTS, Conflict
from .keys import OUTBOX_TTL_S, Keys

ROUTE_BATCH = 128  # inbox entries taken into lanes per pass
LANE_HEAD = 64  # entries of each lane a pass reads
MESSAGE_IDS_TTL_S = 7 * 24 * 3600  # a game's message ids (a finished game's: 24 h)
LOCK_HOLD_MS = 60_000  # a delivery lock's life, renewed by every pass (a dead holder: lease)
LEASED = "p:"  # starts the token of a lock held under a process's lease
MARK = "\x01"  # starts a lane entry that names a state (no JSON entry starts with it)

# Take the inbox's head (ARGV[6]: its first n entries, each given with where it goes) into
# the lanes, then read every lane's head. KEYS: inbox, lanes set, states, lock, then one
# lane per chat in ARGV[8..7+L]. ARGV: lock token, lock ms, ttl s, head size, n, L, then
# the chats, then per entry: raw, lane (1-based, 0 drops it), kind ('e' a state of ref,
# 's' a send starting a new generation of ref, 'p' plain), ref, flags (a digit: 1 an
# in-place show, 2 a required state, not optional; a folded state keeps both, so that an
# optional newer state never makes a waiting required change optional), queued at.
# Returns {-1} (the lock is not ours), {0} (the inbox changed: read it again) or
# {1, lane rows...}, a row being flat triples: entry, its state ('' for a raw entry), what
# a send of it reached Telegram as ('' when not yet).
_ROUTE_AND_READ = """
local SEP = string.char(1)
if redis.call('GET', KEYS[4]) ~= ARGV[1] then return {-1} end
redis.call('PEXPIRE', KEYS[4], ARGV[2])
local ttl, m, n, l = ARGV[3], tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6])
local base = 6 + l
local function seq_of(value) return string.match(value, '^(%d+)\\n') end
if n > 0 then
  local head = redis.call('LRANGE', KEYS[1], 0, n - 1)
  if #head ~= n then return {0} end
  for i = 1, n do
    if head[i] ~= ARGV[base + (i - 1) * 6 + 1] then return {0} end
  end
  local touched, pushed = {}, 0
  for i = 1, n do
    local at = base + (i - 1) * 6
    local raw, lane, kind, ref = ARGV[at + 1], tonumber(ARGV[at + 2]), ARGV[at + 3], ARGV[at + 4]
    local show, queued = ARGV[at + 5], ARGV[at + 6]
    if lane > 0 then
      local key = KEYS[4 + lane]
      if kind == 'e' then
        local gen = redis.call('HGET', KEYS[3], 'g:' .. ref) or '0'
        local field = 's:' .. ref .. '#' .. gen
        local seq = redis.call('HINCRBY', KEYS[3], '#seq', 1)
        local old = redis.call('HGET', KEYS[3], field)
        if old then
          local oseq, oat, oshow = string.match(old, '^(%d+)\\n(%-?%d*)\\n(%d)\\n')
          -- Queued when the oldest state it carries was, but a required state over an
          -- optional one from its own time (see lanes._queued_at).
          local over_optional =
            bit.band(tonumber(oshow), 2) == 0 and bit.band(tonumber(show), 2) ~= 0
          if oat and oat ~= '' and not over_optional then queued = oat end
          show = tostring(bit.bor(tonumber(show), tonumber(oshow)))
          -- What the older state reached Telegram as (a show made before a crash) holds
          -- for the newer one: its close must not be taken for that of a show never made.
          local oprogress = 'p:' .. redis.sha1hex(SEP .. field .. SEP .. oseq)
          local made = redis.call('HGET', KEYS[3], oprogress)
          if made then
            redis.call('HSET', KEYS[3], 'p:' .. redis.sha1hex(SEP .. field .. SEP .. seq), made)
            redis.call('HDEL', KEYS[3], oprogress)
          end
        end
        redis.call('HSET', KEYS[3], field, seq .. '\\n' .. queued .. '\\n' .. show .. '\\n' .. raw)
        redis.call('RPUSH', key, SEP .. field .. SEP .. seq)
      else
        redis.call('RPUSH', key, raw)
        if kind == 's' and ref ~= '' then redis.call('HINCRBY', KEYS[3], 'g:' .. ref, 1) end
      end
      pushed = pushed + 1
      touched[lane] = true
    end
  end
  for lane in pairs(touched) do
    redis.call('SADD', KEYS[2], ARGV[6 + lane])
    redis.call('EXPIRE', KEYS[4 + lane], ttl)
  end
  if pushed > 0 then
    redis.call('HINCRBY', KEYS[3], '#n', pushed)
    redis.call('EXPIRE', KEYS[2], ttl)
    redis.call('EXPIRE', KEYS[3], ttl)
  end
  redis.call('LTRIM', KEYS[1], n, -1)
end
local out = {1}
for lane = 1, l do
  local key = KEYS[4 + lane]
  local row, stale = {}, 0
  for _, item in ipairs(redis.call('LRANGE', key, 0, m - 1)) do
    local value = ''
    if string.sub(item, 1, 1) == SEP then
      local field, seq = string.match(item, '^' .. SEP .. '(.*)' .. SEP .. '(%d+)$')
      value = field and redis.call('HGET', KEYS[3], field)
      if not value or seq_of(value) ~= seq then value = false end
    end
    if value then
      row[#row + 1] = item
      row[#row + 1] = value
      row[#row + 1] = redis.call('HGET', KEYS[3], 'p:' .. redis.sha1hex(item)) or ''
    else
      redis.call('LREM', key, 1, item)
      stale = stale + 1
    end
  end
  if stale > 0 then redis.call('HINCRBY', KEYS[3], '#n', -stale) end
  if redis.call('LLEN', key) == 0 then redis.call('SREM', KEYS[2], ARGV[6 + lane]) end
  out[#out + 1] = row
end
if redis.call('EXISTS', KEYS[1], KEYS[2]) == 0 then redis.call('DEL', KEYS[3]) end
return out
"""

# Remove what a pass delivered and note the message ids it made. KEYS: lanes set, states,
# message ids, inbox, then the lanes named in the spec (ARGV[1], JSON: "lanes" [[chat,
# [entries]]...], "ids" [[ref, id]...], "ttl"). Removals first (Redis allows them when it
# is out of memory). Returns how many lanes and inbox entries are left.
_DELIVERED = """
local SEP = string.char(1)
local spec = cjson.decode(ARGV[1])
local removed = 0
for i, lane in ipairs(spec.lanes) do
  local key = KEYS[4 + i]
  for _, item in ipairs(lane[2]) do
    removed = removed + redis.call('LREM', key, 1, item)
    redis.call('HDEL', KEYS[2], 'p:' .. redis.sha1hex(item))
    if string.sub(item, 1, 1) == SEP then
      local field, seq = string.match(item, '^' .. SEP .. '(.*)' .. SEP .. '(%d+)$')
      local value = field and redis.call('HGET', KEYS[2], field)
      if value and string.match(value, '^(%d+)\\n') == seq then
        redis.call('HDEL', KEYS[2], field)
      end
    end
  end
  if redis.call('LLEN', key) == 0 then redis.call('SREM', KEYS[1], lane[1]) end
end
local left = redis.call('SCARD', KEYS[1])
if left == 0 then
  redis.call('DEL', KEYS[2])
elseif removed > 0 then
  redis.call('HINCRBY', KEYS[2], '#n', -removed)
end
if #spec.ids > 0 then
  local flat = {}
  for _, pair in ipairs(spec.ids) do
    flat[#flat + 1] = pair[1]
    flat[#flat + 1] = pair[2]
  end
  redis.call('HSET', KEYS[3], unpack(flat))
  if redis.call('TTL', KEYS[3]) < 0 then redis.call('EXPIRE', KEYS[3], spec.ttl) end
end
return left + redis.call('LLEN', KEYS[4])
"""

# Replace lists and state values read whole (moving a chat's messages to another chat) if
# the lists still hold what was read. KEYS: lanes set, states, then the lists; ARGV[1],
# JSON: "lists" [[key index, read (count:joined), new entries]...], "states" [[field,
# value]...], "srem" and "sadd" (chats), "ttl". 1 when replaced.
_REWRITE = """
local spec = cjson.decode(ARGV[1])
for _, list in ipairs(spec.lists) do
  local now = redis.call('LRANGE', KEYS[list[1]], 0, -1)
  if #now .. ':' .. table.concat(now, '\\0') ~= list[2] then return 0 end
end
for _, list in ipairs(spec.lists) do
  local key = KEYS[list[1]]
  redis.call('DEL', key)
  if #list[3] > 0 then
    redis.call('RPUSH', key, unpack(list[3]))
    redis.call('EXPIRE', key, spec.ttl)
  end
end
for _, pair in ipairs(spec.states) do redis.call('HSET', KEYS[2], pair[1], pair[2]) end
for _, chat in ipairs(spec.srem) do redis.call('SREM', KEYS[1], chat) end
for _, chat in ipairs(spec.sadd) do redis.call('SADD', KEYS[1], chat) end
if #spec.sadd > 0 then redis.call('EXPIRE', KEYS[1], spec.ttl) end
return 1
"""


# Note a message's head (KEYS[1], field ARGV[1], value ARGV[2]); a TTL (ARGV[3]) only if it
# has none: a finished game's shorter one stays.
_HEAD = """
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
if redis.call('TTL', KEYS[1]) < 0 then redis.call('EXPIRE', KEYS[1], ARGV[3]) end
return 1
"""


@dataclass(slots=True)
class LaneEntry:
    """One entry of a chat's lane as a pass reads it: the lane's element (a raw entry, or
    a marker naming a state), the stored entry it stands for, when the oldest state it
    carries was queued, whether it must be sent anew when there is no message to edit,
    what a send of it already reached Telegram as (None: not yet), and whether a state
    folded into it was required (its change must not wait for a quiet minute)."""

    token: str
    raw: str
    at: int | None
    show: bool
    sent: int | None
    required: bool = False
    # Attempted and unanswered (sent 0): the newest message id known in its chat before the
    # attempt, above which a copy it left may be (see `outbox_attempt`).
    floor: int | None = None


@dataclass(slots=True)
class Head:
    """What a pass reads: each chat's lane head, the owner's message ids, the queued
    entries it dropped as no entry at all, and the verdicts that rode at the top of its
    messages."""

    lanes: dict[int, list[LaneEntry]]
    message_ids: dict[str, int]
    dropped: list[str] = field(default_factory=list)
    heads: dict[str, str] = field(default_factory=dict)  # see `Keys.message_heads`


def progress_field(token: str) -> str:
    """The states field that notes what a lane entry's send reached Telegram as."""
    return "p:" + hashlib.sha1(token.encode()).hexdigest()


SHOW, REQUIRED = 1, 2  # a state's flags


def route_of(raw: str) -> tuple[int, str, str, str, int | None] | None:
    """Where an inbox entry goes: (its chat, kind, ref, flags, queued at); None when it is
    no entry (dropped, as the sender drops what it cannot read)."""
    try:
        entry = json.loads(raw)
        chat = int(entry["chat"])
    except (ValueError, TypeError, KeyError):
        return None
    if not isinstance(entry, dict) or entry.get("op") not in ("send", "show", "edit", "close"):
        return None
    ref = entry.get("ref") or ""
    at = entry.get("at")
    # A quiet turn's rider edit is kept as it is, not folded into the message's pending
    # state: which verdicts it adds must reach the sender (see `contract.plan.Riders`).
    state = ref and entry.get("rides") is None
    kind = "s" if entry["op"] == "send" else "e" if state else "p"
    optional = entry.get("optional") or entry["op"] == "close"  # a close: plan.close_keyboard
    flags = (SHOW if entry["op"] == "show" else 0) | (0 if optional else REQUIRED)
    return chat, kind, str(ref), str(flags), at if isinstance(at, int) else None


def lane_entries(row: list[str]) -> list[LaneEntry]:
    """A lane's head as the route-and-read script returns it (flat triples)."""
    entries = []
    for i in range(0, len(row), 3):
        token, state, sent = row[i], row[i + 1], row[i + 2]
        raw, at, show, required = token, None, False, False
        if state:
            _, queued, shown, raw = state.split("\n", 3)
            at = int(queued) if queued else None
            show, required = bool(int(shown) & SHOW), bool(int(shown) & REQUIRED)
        else:
            route = route_of(token)
            at = route[4] if route else None
        made, _, floor = sent.partition("/")
        entries.append(
            LaneEntry(
                token,
                raw,
                at,
                show,
                int(made) if made else None,
                required,
                int(floor) if floor else None,
            )
        )
    return entries


class Outboxes:
    """Outboxes' inboxes, lanes and states (see the module's docstring)."""

    def __init__(self, redis: Any, keys: Keys) -> None:
        self.redis = redis
        self.keys = keys
        self._route = redis.register_script(_ROUTE_AND_READ)
        self._delivered = redis.register_script(_DELIVERED)
        self._rewrite = redis.register_script(_REWRITE)
        self._head = redis.register_script(_HEAD)

    def _pipe(self) -> Any:
        return self.redis.pipeline(transaction=False)

    async def outbox_pass(self, owner: str, token: str, ttl_s: int) -> Head | None:
        """Take up to ROUTE_BATCH queued entries into their chats' lanes and read every
        lane's head (at most LANE_HEAD entries each), renewing the delivery lock `token`
        holds; None when the lock is no longer ours. Two round trips (one when there is
        nothing), whatever the backlog."""
        keys = self.keys
        inbox, lanes_key = keys.outbox(owner), keys.outbox_lanes(owner)
        states = keys.outbox_states(owner)
        while True:
            pipe = self._pipe()
            pipe.lrange(inbox, 0, ROUTE_BATCH - 1)
            pipe.smembers(lanes_key)
            pipe.hgetall(keys.messages(owner))
            pipe.hgetall(keys.message_heads(owner))
            head, members, ids, heads = await pipe.execute()
            message_ids = {k: int(v) for k, v in ids.items()}
            if not head and not members:
                return Head({}, message_ids, heads=heads)
            chats = sorted({int(c) for c in members})
            routes = [route_of(raw) for raw in head]
            chats += sorted({r[0] for r in routes if r is not None} - set(chats))
            index = {chat: i + 1 for i, chat in enumerate(chats)}
            args: list[Any] = [token, LOCK_HOLD_MS, ttl_s, LANE_HEAD, len(head), len(chats)]
            args += [str(c) for c in chats]
            for raw, route in zip(head, routes, strict=True):
                if route is None:
                    args += [raw, 0, "p", "", "0", ""]
                else:
                    chat, kind, ref, show, at = route
                    args += [raw, index[chat], kind, ref, show, "" if at is None else str(at)]
            lane_keys = [keys.outbox_lane(owner, c) for c in chats]
            reply = await self._route(
                keys=[inbox, lanes_key, states, keys.sending(owner), *lane_keys], args=args
            )
            if int(reply[0]) == -1:
                return None
            if int(reply[0]) == 1:
                rows = reply[1:]
                return Head(
                    {c: lane_entries(row) for c, row in zip(chats, rows, strict=True) if row},
                    message_ids,
                    [raw for raw, route in zip(head, routes, strict=True) if route is None],
                    heads,
                )

    async def outbox_attempt(self, owner: str, token: str, floor: int | None = None) -> None:
        """Note that a lane entry's send is about to reach Telegram (its progress 0: sent
        perhaps, its id unknown), so that after a crash the next pass cannot take it for
        a message never sent (see `lanes.is_prompt`) and says that a copy may be left;
        `floor`, the newest message id known in its chat, bounds where that copy may be."""
        progress = f"0/{floor}" if floor else "0"
        await self.redis.hsetnx(self.keys.outbox_states(owner), progress_field(token), progress)

    async def outbox_shown(self, owner: str, token: str, message_id: int) -> None:
        """Note that a lane entry's in-place show is about to edit message `message_id`, so
        that after a crash a newer state folded into it (its close) is still made there."""
        await self.redis.hset(self.keys.outbox_states(owner), progress_field(token), message_id)

    async def outbox_head(self, owner: str, ref: str, head: str) -> None:
        """Note the verdicts that ride at the top of the message `ref` (before it is sent:
        its every later state keeps them)."""
        await self._head(keys=[self.keys.message_heads(owner)], args=[ref, head, MESSAGE_IDS_TTL_S])

    async def outbox_unattempt(self, owner: str, token: str) -> None:
        """Take back `outbox_attempt`: Telegram refused the send (429), so it is not there."""
        await self.redis.hdel(self.keys.outbox_states(owner), progress_field(token))

    async def outbox_sent(self, owner: str, token: str, ref: str | None, message_id: int) -> None:
        """Note what a lane entry's send reached Telegram as (and its reference's id),
        before anything more is done with it: a retry then makes no second copy."""
        pipe = self._pipe()
        pipe.hset(self.keys.outbox_states(owner), progress_field(token), message_id)
        if ref:
            pipe.hset(self.keys.messages(owner), ref, message_id)
        await pipe.execute()

    async def outbox_delivered(
        self, owner: str, delivered: dict[int, list[str]], message_ids: dict[str, int]
    ) -> int:
        """Remove delivered lane entries (by chat) and note the Telegram message ids of the
        references they sent, in one script on the owner's slot; return how many lanes
        and queued entries are left (-1: nothing to do, not asked)."""
        delivered = {chat: tokens for chat, tokens in delivered.items() if tokens}
        if not delivered and not message_ids:
            return -1
        keys = self.keys
        chats = sorted(delivered)
        spec = {
            "lanes": [[str(c), delivered[c]] for c in chats],
            "ids": [[ref, str(mid)] for ref, mid in message_ids.items()],
            "ttl": MESSAGE_IDS_TTL_S,
        }
        lane_keys = [keys.outbox_lane(owner, c) for c in chats]
        return int(
            await self._delivered(
                keys=[
                    keys.outbox_lanes(owner),
                    keys.outbox_states(owner),
                    keys.messages(owner),
                    keys.outbox(owner),
                    *lane_keys,
                ],
                args=[json.dumps(spec, ensure_ascii=False)],
            )
        )

    async def outbox_items(self, owner: str) -> list[tuple[str, dict[str, Any]]]:
        """Every undelivered message of an owner (the lanes', then the inbox's), each as
        stored and as read. It reads everything: for tests and tools, not for delivery."""
        keys = self.keys
        members = await self.redis.smembers(keys.outbox_lanes(owner))
        while True:
            # The inbox first, the lanes after: an entry taken from one into the other
            # meanwhile is read twice rather than missed (a new lane: read again).
            pipe = self._pipe()
            pipe.lrange(keys.outbox(owner), 0, -1)
            pipe.hgetall(keys.outbox_states(owner))
            for chat in sorted(members):
                pipe.lrange(keys.outbox_lane(owner, chat), 0, -1)
            pipe.smembers(keys.outbox_lanes(owner))
            inbox, states, *lanes, now = await pipe.execute()
            if set(now) <= set(members):
                break
            members = now
        raws: list[str] = []
        for lane in lanes:
            for item in lane:
                if not item.startswith(MARK):
                    raws.append(item)
                    continue
                field, seq = item[1:].rsplit(MARK, 1)
                value = states.get(field, "")
                if value.split("\n", 1)[0] == seq:
                    raws.append(value.split("\n", 3)[3])
        return [(raw, _read(raw)) for raw in raws + list(inbox)]

    async def outbox_move_chat(self, owner: str, old_chat: int, new_chat: int) -> int:
        """Readdress an outbox's messages (and the group notes of its private ones) from a
        chat to the one it became, compare-and-set; return how many moved."""

        keys = self.keys
        for _ in range(MAX_CAS_ATTEMPTS):
            members = sorted(await self.redis.smembers(keys.outbox_lanes(owner)))
            lists = [keys.outbox(owner)] + [keys.outbox_lane(owner, c) for c in members]
            target = keys.outbox_lane(owner, new_chat)
            if target not in lists:
                lists.append(target)
            pipe = self._pipe()
            for key in lists:
                pipe.lrange(key, 0, -1)
            pipe.hgetall(keys.outbox_states(owner))
            *read, states = await pipe.execute()
            moved = 0

            def readdress(raw: str) -> str:
                nonlocal moved
                op = _read(raw)
                if old_chat not in (op.get("chat"), op.get("group")) or "message_id" in op:
                    # A close, or a screen's edit, names a message of the old group by its
                    # id: the supergroup numbers its own, so it stays addressed there.
                    return raw
                for name in ("chat", "group"):
                    if op.get(name) == old_chat:
                        op[name] = new_chat
                moved += 1
                return json.dumps(op, ensure_ascii=False)

            new_lists = [
                [item if item.startswith(MARK) else readdress(item) for item in r] for r in read
            ]
            new_states = []
            for name, value in states.items():
                if name.startswith("s:"):
                    seq, at, show, raw = value.split("\n", 3)
                    changed = readdress(raw)
                    if changed != raw:
                        new_states.append([name, f"{seq}\n{at}\n{show}\n{changed}"])
            if not moved:
                return 0
            old_key = keys.outbox_lane(owner, old_chat)
            if old_key in lists and old_key != target:
                old_at, new_at = lists.index(old_key), lists.index(target)
                new_lists[new_at] = new_lists[old_at] + new_lists[new_at]
                new_lists[old_at] = []
            spec = {
                "lists": [
                    [i + 3, f"{len(r)}:" + "\0".join(r), new]
                    for i, (r, new) in enumerate(zip(read, new_lists, strict=True))
                ],
                "states": new_states,
                "srem": [str(old_chat)] if old_key in lists and read[lists.index(old_key)] else [],
                "sadd": [str(new_chat)] if new_lists[lists.index(target)] else [],
                "ttl": OUTBOX_TTL_S,
            }
            done = await self._rewrite(
                keys=[keys.outbox_lanes(owner), keys.outbox_states(owner), *lists],
                args=[json.dumps(spec, ensure_ascii=False)],
            )
            if int(done):
                return moved
        raise Conflict(f"gave up after {MAX_CAS_ATTEMPTS} conflicting attempts on {owner}")

    async def outbox_drop(self, owner: str) -> int:
        """Forget an outbox and everything in it; return how many messages it held."""
        held = len(await self.outbox_items(owner))
        keys = self.keys
        members = await self.redis.smembers(keys.outbox_lanes(owner))
        lanes = [keys.outbox_lane(owner, c) for c in members]
        pipe = self._pipe()
        pipe.delete(keys.outbox(owner), keys.outbox_lanes(owner), keys.outbox_states(owner))
        for key in lanes:
            pipe.delete(key)
        pipe.zrem(keys.pending_outboxes(keys.bucket(owner)), owner)
        await pipe.execute()
        return held

    async def outbox_gauges(self, sample: int) -> tuple[int, int]:
        """Owners marked pending, and the messages the `sample` longest-waiting of them
        hold: a bounded number of commands, however many wait."""
        keys = self.keys
        pipe = self._pipe()
        for bucket in range(keys.buckets):
            pipe.zcard(keys.pending_outboxes(bucket))
        for bucket in range(keys.buckets):
            pipe.zrange(keys.pending_outboxes(bucket), 0, max(0, sample // keys.buckets - 1))
        rows = await pipe.execute()
        waiting = sum(int(n) for n in rows[: keys.buckets])
        owners = [m for row in rows[keys.buckets :] for m in row]
        if not owners:
            return waiting, 0
        pipe = self._pipe()
        for owner in owners:
            pipe.llen(keys.outbox(owner))
            pipe.hget(keys.outbox_states(owner), "#n")
        counts = await pipe.execute()
        return waiting, sum(int(n or 0) for n in counts)


def _read(raw: str) -> dict[str, Any]:
    """An entry as read (one that is not a JSON object reads as an empty one)."""
    try:
        value = json.loads(raw)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}
