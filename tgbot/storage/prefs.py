"""A person's preferences and a group's settings, each a small hash of strings."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable
from typing import Any

from .commit import MAX_CAS_ATTEMPTS, Conflict
from .keys import Keys
from .plan import SEEN_KEPT, UPDATE_MARK_TTL_S, dumps

# /notify: a group's list lives this long after its last change or use (a group that
# plays no more forgets it); a person is told of a group's new game at most once per
# NOTIFY_COOLDOWN_S, and a game's opening tells at most NOTIFY_MAX_PER_LOBBY people (the
# bot's 30 messages a second are shared by every group).
NOTIFY_TTL_S = 180 * 24 * 3600
NOTIFY_COOLDOWN_S = 600
NOTIFY_MAX_PER_LOBBY = 30

# Toggle ARGV[1] in the hash KEYS[1] (its value ARGV[3], a language code); 1 when it is
# in the hash now. ARGV[2]: the hash's TTL.
_TOGGLE = """
local on = 1
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 then
  redis.call('HDEL', KEYS[1], ARGV[1])
  on = 0
else
  redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
end
if redis.call('EXISTS', KEYS[1]) == 1 then redis.call('EXPIRE', KEYS[1], ARGV[2]) end
return on
"""

# KEYS[1] the group's list, KEYS[2..] each candidate's mark: the (1-based) candidates
# whose mark was free, now set for ARGV[1] s; at most ARGV[3]. The list's TTL is renewed.
_CLAIM_NOTICES = """
local told = {}
for i = 2, #KEYS do
  if #told >= tonumber(ARGV[3]) then break end
  if redis.call('SET', KEYS[i], '1', 'NX', 'EX', ARGV[1]) then told[#told + 1] = i - 1 end
end
if redis.call('EXISTS', KEYS[1]) == 1 then redis.call('EXPIRE', KEYS[1], ARGV[2]) end
return told
"""


class Prefs:
    """Preferences and settings."""

    def __init__(self, redis: Any, keys: Keys) -> None:
        self.redis = redis
        self.keys = keys

    async def user_prefs(self, user_id: int) -> dict[str, str]:
        """A person's stored preferences."""
        prefs: dict[str, str] = await self.redis.hgetall(self.keys.user_prefs(user_id))
        return prefs

    async def set_user_prefs(self, user_id: int, **values: str) -> None:
        """Store some of a person's preferences."""
        await self.redis.hset(self.keys.user_prefs(user_id), mapping=values)

    async def toggle_notify(self, chat_id: int, user_id: int, language_code: str) -> bool:
        """/notify in a group: add the person to those told of a new game there (with their
        Telegram language then: the notice's, until they choose one), or take them off;
        True when they are now on it. The list lives NOTIFY_TTL_S after its last change
        or use."""
        key = self.keys.notify_list(chat_id)
        on = await self.redis.eval(_TOGGLE, 1, key, user_id, NOTIFY_TTL_S, language_code)
        return bool(int(on))

    async def claim_notices(
        self, chat_id: int, candidates: list[int], cooldown_s: int = NOTIFY_COOLDOWN_S
    ) -> list[int]:
        """Of `candidates` (people on the group's list), those to be told of a game opening
        now: each at most once per `cooldown_s` per group, at most NOTIFY_MAX_PER_LOBBY at a
        time. One script on the group's slot (the list and every mark share it)."""
        if not candidates:
            return []
        keys = [self.keys.notify_list(chat_id)]
        keys += [self.keys.notified(chat_id, u) for u in candidates]
        told = await self.redis.eval(
            _CLAIM_NOTICES, len(keys), *keys, cooldown_s, NOTIFY_TTL_S, NOTIFY_MAX_PER_LOBBY
        )
        return [candidates[int(i) - 1] for i in told]

    async def notify_list(self, chat_id: int) -> dict[int, str]:
        """The people of a group who asked to be told when a game opens there, each with
        their Telegram language when they asked ("" if none)."""
        listed = await self.redis.hgetall(self.keys.notify_list(chat_id))
        return {int(u): str(code) for u, code in sorted(listed.items())}

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
                    dumps(sorted(current.items())),
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
