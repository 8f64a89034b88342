"""A person's preferences and a group's settings, each a small hash of strings."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable
from typing import Any

from .commit import MAX_CAS_ATTEMPTS, Conflict
from .keys import Keys
from .plan import SEEN_KEPT, UPDATE_MARK_TTL_S, dumps


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
