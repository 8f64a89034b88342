"""What one step writes (`Writes`), and where each write goes (`plan_writes`).

See tgbot/storage/commit.py for the order in which a plan's parts are written.
"""

from __future__ import annotations

import json
import random
import time
import uuid
from dataclasses import dataclass, field
from typing import Any

from .keys import OUTBOX_TTL_S, Keys, game_of_key, slot_tag

# Telegram gives up on an update within a day; a game keeps its last SEEN_KEPT update ids
# in its record (a chat or a group's settings in a small sorted set, for as long).
UPDATE_MARK_TTL_S = 24 * 3600
SEEN_KEPT = 32
SEEN_FIELD = "_seen"  # the update ids a game record's steps applied, kept in the record
INDEX_TTL_S = 7 * 24 * 3600  # an index entry written without a TTL of its own

# Delete a key only if it holds ARGV[1] (a lock we hold, an index naming our game).
RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""

# Set (ARGV[3] a time) or clear (ARGV[3] '') a game's deadline unless a newer revision of
# its record set it already. KEYS: the bucket's deadlines and revisions.
DEADLINE = """
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

# Publish ARGV[1] on the channel KEYS[1]: sharded (SPUBLISH) where Redis has it (7 and
# later), else plain PUBLISH; storage/app.py subscribes the same way.
PUBLISH = """
local sent = redis.pcall('SPUBLISH', KEYS[1], ARGV[1])
if type(sent) == 'table' and sent.err then return redis.call('PUBLISH', KEYS[1], ARGV[1]) end
return sent
"""

Call = tuple[str, list[str], list[Any]]  # (command or script text, keys, args)


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
    # Sharded pub/sub messages published with the commit: channel -> message (the last).
    publish: dict[str, str] = field(default_factory=dict)

    def send(self, game_id: str, op: dict[str, Any]) -> None:
        """Queue one delivery in the game's outbox (with an id, so each entry is unique,
        and the time it was queued, for the delivery-lag metric)."""
        queued = {**op, "id": uuid.uuid4().hex[:12], "at": int(time.time() * 1000)}
        self.outbox.append((game_id, queued))


def applied(doc: dict[str, Any], update_id: int | None) -> bool:
    """Whether a game record (as read) already applied this update."""
    if update_id is None:
        return False
    ids = doc.get(SEEN_FIELD) or []
    return update_id in ids or (len(ids) >= SEEN_KEPT and update_id < min(ids))


def dumps(value: Any) -> str:
    """Compact JSON, as stored."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def doc_of(raw: str | None) -> dict[str, Any] | None:
    """A stored JSON object as read (None when absent or not an object)."""
    if raw is None:
        return None
    try:
        value = json.loads(raw)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


class Plan:
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
        self.pre: list[Call] = []
        self.post: list[Call] = []
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


def plan_writes(
    keys: Keys,
    watch: list[str],
    seen: dict[str, str | None],
    writes: Writes,
    check: bool = True,
    scope: str | None = None,
) -> Plan:
    """Split a step's writes by where they go: the transaction's slot (checked and written
    in its script), claims before it, and what goes before (`pre`) and after (`post`,
    `counts`) it in other slots."""
    plan = Plan(watch[0] if watch else scope)
    primary = plan.primary
    if check:
        for key in watch:
            if plan.local(key):
                value = seen.get(key)
                plan.check.append([plan.ki(key), False if value is None else value])
    owner_game = None if primary is None else game_of_key(primary)
    old = doc_of(seen.get(primary)) if primary else None
    doc = writes.set_json.get(primary) if primary else None
    if writes.mark_update is not None:
        if isinstance(doc, dict):
            ids = [*list((old or {}).get(SEEN_FIELD) or []), writes.mark_update]
            doc[SEEN_FIELD] = ids[-SEEN_KEPT:]
        elif primary is not None:
            seen_key = keys.seen(primary)
            plan.seen = [plan.ki(seen_key), writes.mark_update, SEEN_KEPT, UPDATE_MARK_TTL_S]
    expire = dict(writes.expire)
    strings = {k: dumps(v) for k, v in writes.set_json.items()}
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
            plan.post.append((RELEASE, [key], [owner_game]))  # only if it names us
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
        plan.post.append((DEADLINE, dl_keys, [game_id, rev, due_ms]))
    for game_id in writes.deadline_clear:
        bucket = keys.bucket(game_id)
        dl_keys = [keys.deadlines(bucket), keys.deadline_revs(bucket)]
        plan.post.append((DEADLINE, dl_keys, [game_id, rev, ""]))
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
    for channel, message in writes.publish.items():
        # Published by the commit's script when the channel is in its slot (a game's is).
        if plan.local(channel):
            plan.ops.append(["publish", plan.ki(channel), message])
        else:
            plan.post.append((PUBLISH, [channel], [message]))
    return plan


def single_spec(keys: Keys, plan: Plan) -> dict[str, Any]:
    """The commit script's spec with the plan's writes before and after it as ops (for
    one server). Arguments as text: Lua would print a large number in 14 digits.

    A deadline of a game whose record the script compares is set unguarded: a newer
    step would have to commit after this script, so no revision check is needed."""
    checked = {index for index, _ in plan.check}
    deadlines = {args[0] for command, _, args in plan.post if command == DEADLINE}
    before: list[list[Any]] = []
    for command, on, args in plan.pre:
        if command == "ZADD" and args[0] == "LT" and args[2] in deadlines:
            continue  # set exactly below, in the same script
        before.append(["call", plan.ki(on[0]), command, [str(a) for a in args]])
    after: list[list[Any]] = []
    for command, on, args in plan.post:
        if command == DEADLINE:
            record = keys.game(str(args[0]))
            if record in plan.keys and plan.ki(record) in checked:
                revs = plan.ki(on[1])
                after.append(["due", plan.ki(on[0]), str(args[0]), str(args[2]), revs])
                continue
            revs = plan.ki(on[1])
            after.append(["deadline", plan.ki(on[0]), revs, *[str(a) for a in args]])
        elif command == RELEASE:
            after.append(["release", plan.ki(on[0]), str(args[0])])
        elif command == PUBLISH:
            after.append(["publish", plan.ki(on[0]), str(args[0])])
        else:
            after.append(["call", plan.ki(on[0]), command, [str(a) for a in args]])
    for command, args in plan.counts:
        after.append(["call", plan.ki(args[0]), command, [str(a) for a in args[1:]]])
    return {"check": plan.check, "seen": plan.seen, "ops": before + plan.ops + after}


def queue_calls(pipe: Any, calls: list[Call]) -> None:
    """Queue single-slot commands and scripts (given by their text) on a pipeline."""
    for command, keys, args in calls:
        if command.startswith("\n"):  # a script's text
            pipe.eval(command, len(keys), *keys, *args)
        else:
            pipe.execute_command(command, *keys, *args)
