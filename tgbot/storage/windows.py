"""Rate windows shared by every process: a sliding window of sends per chat, and the
bot's calls in sharded windows (the policy is tgbot/telegram/rate_limit.py's)."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

from .keys import Keys

# A sliding window of sends per chat, shared by every process: admit up to ARGV[5] sends
# when the chat is not held (KEYS[2], after a 429) and fewer than ARGV[3] happened in the
# last ARGV[2] ms (several counted ARGV[6] ms ahead of now: the caller spends them within
# that time), else say how long to wait: until enough have left the window.
# A group's minute has two shares (ARGV[9]): its game's messages (KEYS[4]), which may
# hold at most ARGV[10] of the window (their class's cap), and replies to commands
# (KEYS[1]), which have ARGV[11] slots of their own in every minute and take more only
# while the game sent nothing in it; both count in the chat's limit. Anything else (a
# private chat, '' here) is counted in KEYS[1] alone.
# With ARGV[7] > 0, the chat also keeps a steady pace of one message every ARGV[7] ms
# (KEYS[3] holds when the next is due): a message goes only while it is due no later
# than ARGV[8] ms from now (a burst of that many intervals, after a quiet spell; 0: only
# when the chat is not behind its pace at all), so that a window is spent evenly, never
# all at once and then shut for its whole length. Every message taken pushes that time
# one interval on.
# All keys share a hash tag. {taken, ms to wait}.
_WINDOW_ADMIT = """
local held = redis.call('PTTL', KEYS[2])
if held > 0 then return {0, held} end
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local limit = tonumber(ARGV[3])
local share = ARGV[9]
local function scores(key)
  local out = {}
  local flat = redis.call('ZRANGE', key, 0, -1, 'WITHSCORES')
  for i = 2, #flat, 2 do out[#out + 1] = tonumber(flat[i]) end
  return out
end
local function gone(at)  -- ms until an entry counted at `at` leaves the window
  return math.max(1, at + window - now + 1)
end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local others = scores(KEYS[1])
local games = {}
if share ~= '' then
  redis.call('ZREMRANGEBYSCORE', KEYS[4], '-inf', now - window)
  games = scores(KEYS[4])
end
local count = #others + #games
local wait = 0
if count >= limit then  -- the one whose leaving makes room, of both shares
  local all = {}
  for _, at in ipairs(others) do all[#all + 1] = at end
  for _, at in ipairs(games) do all[#all + 1] = at end
  table.sort(all)
  wait = gone(all[count - limit + 1])
end
local free = limit - count
if share == 'game' then
  local cap = tonumber(ARGV[10])
  if #games >= cap then wait = math.max(wait, gone(games[#games - cap + 1])) end
  free = math.min(free, cap - #games)
elseif share == 'reply' then
  local own = tonumber(ARGV[11])
  if #games > 0 and #others >= own then  -- a reply of its own leaves, or the game's last
    wait = math.max(wait, math.min(gone(others[#others - own + 1]), gone(games[#games])))
  end
end
if wait > 0 then return {0, wait} end
local interval = tonumber(ARGV[7])
if interval > 0 then
  local due = math.max(now, tonumber(redis.call('GET', KEYS[3]) or '0'))
  local late = due - now - tonumber(ARGV[8])
  if late > 0 then return {0, late} end
  redis.call('SET', KEYS[3], due + interval, 'PX', due + interval - now + 1000)
  free = 1
end
local n = math.min(free, tonumber(ARGV[5]))
local at = n > 1 and now + tonumber(ARGV[6]) or now
local entries = {}
for i = 1, n do
  entries[#entries + 1] = at
  entries[#entries + 1] = ARGV[4] .. ':' .. i
end
local key = share == 'game' and KEYS[4] or KEYS[1]
redis.call('ZADD', key, unpack(entries))
redis.call('PEXPIRE', key, window + (at - now))
return {n, 0}
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


@dataclass(frozen=True)
class GroupShare:
    """Which share of a group's minute a message takes: the game's ("game", at most `cap`
    of the window) or a reply's ("reply", `own` slots of its own in every minute)."""

    kind: str
    cap: int = 0
    own: int = 0


class Windows:
    """The rate windows' sorted sets."""

    def __init__(self, redis: Any, keys: Keys) -> None:
        self.redis = redis
        self.keys = keys
        self._admit = redis.register_script(_WINDOW_ADMIT)
        self._take = redis.register_script(_WINDOW_TAKE)

    async def take_chat(
        self,
        chat_id: int,
        now_ms: int,
        limit: int,
        window_ms: int,
        n: int,
        ahead_ms: int,
        pace_ms: int = 0,
        ahead_of_pace_ms: int = 0,
        share: GroupShare | None = None,
    ) -> tuple[int, int]:
        """Count up to `n` messages to a chat at once if its window holds fewer than
        `limit` (several are counted `ahead_ms` ahead, to be spent within that time) and,
        with `pace_ms`, one if the chat's next message at one every `pace_ms` is due
        within `ahead_of_pace_ms`; in a group, within its game's or its replies' `share`:
        (taken, 0), or (0, the ms to wait first)."""
        keys = self.keys
        token = f"{now_ms}-{uuid.uuid4().hex[:8]}"
        kind, cap, own = ("", 0, 0) if share is None else (share.kind, share.cap, share.own)
        taken, wait = await self._admit(
            keys=[
                keys.chat_sends(chat_id),
                keys.chat_hold(chat_id),
                keys.chat_pace(chat_id),
                keys.chat_game_sends(chat_id),
            ],
            args=[
                now_ms,
                window_ms,
                limit,
                token,
                n,
                ahead_ms,
                pace_ms,
                ahead_of_pace_ms,
                kind,
                cap,
                own,
            ],
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
