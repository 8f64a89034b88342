"""One rate limiter for every process of the bot, kept in Redis (python-telegram-bot's
BaseRateLimiter, in place of its in-process AIORateLimiter).

Three kinds of window, all sliding and shared through Redis:

* a group's minute: at most `group_messages_per_minute` less a safety margin, counting
  edits as Telegram does, in two shares: replies to commands keep a few slots of every
  minute to themselves (`reply_slots`), and the game's messages share the rest by class
  (`rate_limit_args={"priority": c}`, contract/plan's NOW, BUTTONS, STATUS; a call that
  names none is a direct answer, REPLY): a class may fill the game's share only up to its
  cap (`group_caps`), so that the last slots are kept for the classes above it, and spends
  it at a steady pace (`AHEAD`: a few at once after a quiet spell, then one every few
  seconds), so that a fast game never shuts the group for most of a minute. It is never
  waited for: a call that finds its share full (or the group held after a 429) raises
  `WindowFull` at once, without asking Telegram, so that an update handler never waits
  for a busy group and the outbox sender defers that group's lane.
* a private chat's few seconds (about one message a second, a short burst allowed):
  a send waits for it, briefly; an edit, or a longer hold, raises `WindowFull` too.

A caller with several messages for one private chat in a row (the sender's lane) says so
(`rate_limit_args={"chat_calls": n}`): the chat's window then counts up to n at once,
ahead of now by the time they are spent in, and this process spends them within it. (A
group's minute is still counted a message at a time.)
* the bot's second, split into a share for queued game messages and a share for direct
  answers to a person, each spread over a few sharded keys, so that no single Redis key
  takes every call of every process. A process takes the calls it is waiting for a few
  at once and spends them within 0.2 s (Redis counts a batch that far ahead).

A 429 from Telegram holds its chat for `retry_after`, for every process, and is re-raised.
"""

from __future__ import annotations

import asyncio
import logging
import math
import random
import time
from collections.abc import Callable, Coroutine
from typing import Any

from telegram.error import RetryAfter
from telegram.ext import BaseRateLimiter

from ..contract.plan import BUTTONS, END, NOW, REPLY, STATUS
from ..storage.store import Store
from ..storage.windows import GroupShare

log = logging.getLogger(__name__)

GROUP_WINDOW_MS = 60_000
PRIVATE_WINDOW_MS = 3_000  # one a second, counted over three: a prompt and a card at once
PRIVATE_LONGEST_WAIT_MS = 3_000  # a private chat held longer than this raises WindowFull
BOT_WINDOW_MS = 1_000
QUEUED_SHARE_PERCENT = 80  # of the bot's pace, for queued game messages; the rest is direct
MAX_SHARDS = 4
BOT_SPEND_MS = 200  # the bot's calls taken together are spent within this (counted ahead)
CHAT_SPEND_MS = 250  # a chat's messages counted together are spent within this (ahead)
BANKED_CHATS = 1_000  # past this many chats with counted messages left, the stale are dropped
# A group's minute (18 of Telegram's 20) has two shares: replies to commands keep
# a sixth of every minute to themselves (3 of 18: an onlooker asking /help every 20 s is
# answered at once and never takes a slot of the game's), and take more only in a minute
# the game sent nothing; the game's messages share the rest (15), each class leaving so
# many of those to the classes above it: 15 with any message a person must see now (a new
# turn message, a verdict), 14 with an edit that changes buttons, 11 with an optional
# status edit. The end may take the whole minute and one slot of Telegram's margin
# (END_MARGIN): a game at its steady pace beside an onlooker's replies keeps the minute
# full, and the end must not wait the few seconds that free the next slot.
# An optional private edit (a prompt's close) is made only while a second's calls leave
# this much of a shard's budget unused (2 / 3: it takes no call the last third needs).
SPARE_SHARE = (2, 3)
REPLY_SHARE = 6  # replies keep 1 / REPLY_SHARE of a group's minute
RESERVED = {NOW: 0, BUTTONS: 1, STATUS: 4}
# And the game's share is spent at a steady pace, one message every minute / the NOW cap
# (4 s), each class going at most so many intervals ahead of it (a burst after a quiet
# spell: 3 messages a person must see now, 2 edits with buttons; an optional edit only
# when the group is not behind its pace at all), so that a fast game never spends the
# whole minute in a few seconds and then waits out the rest of it, the group shut. A
# reply and the end are not held to it: a reply never counts in it, the end does.
AHEAD = {NOW: 2, BUTTONS: 1, STATUS: 0}
END_MARGIN = 1  # at most once a game: 19 of Telegram's 20 in that minute
CLASS_NAMES = {END: "end", NOW: "now", REPLY: "reply", BUTTONS: "buttons", STATUS: "status"}
_NOT_MESSAGES = frozenset({"sendChatAction"})


class WindowFull(RetryAfter):
    """Not sent: the chat's window is full or Telegram asked it to wait; retry later."""


def safe_group_limit(per_minute: int) -> int:
    """A group's messages a minute with a safety margin (18 of Telegram's 20)."""
    return max(1, per_minute - max(1, per_minute // 10))


def reply_slots(limit: int) -> int:
    """The slots of a group's minute (of `limit`) that replies to commands keep."""
    return max(1, limit // REPLY_SHARE)


def group_caps(limit: int) -> dict[int, int]:
    """How full a group's window (of `limit`) each class may make its share: a game's
    class its share less what it leaves to the classes above (at least one slot each);
    a reply and the end the whole window."""
    game = max(1, limit - reply_slots(limit))
    caps = {c: max(1, game - reserved) for c, reserved in RESERVED.items()}
    return caps | {END: limit + END_MARGIN, REPLY: limit}


def group_share(limit: int, priority: int) -> GroupShare:
    """The share of a group's minute a message of this class takes (see `reply_slots`)."""
    if priority == REPLY:
        return GroupShare("reply", own=reply_slots(limit))
    return GroupShare("game", cap=group_caps(limit).get(priority, 1))


def group_pace(limit: int) -> tuple[int, dict[int, int]]:
    """A group's steady pace: ms between its game's messages, and how many ms ahead of it
    each class may go (the end: a whole window, so only the caps hold it; a reply is
    never held to it)."""
    interval = GROUP_WINDOW_MS // group_caps(limit)[NOW]
    ahead = {c: AHEAD.get(c, GROUP_WINDOW_MS // interval) * interval for c in (*RESERVED, END)}
    return interval, ahead


def counts(endpoint: str) -> bool:
    """Whether Telegram counts a method toward its flood limits (messages and their edits)."""
    return endpoint.startswith(("send", "edit", "copyMessage", "forwardMessage")) and (
        endpoint not in _NOT_MESSAGES
    )


def _chat_of(data: dict[str, Any]) -> int | None:
    raw = data.get("chat_id")
    if isinstance(raw, int):
        return raw
    if isinstance(raw, str) and raw.lstrip("-").isdigit():
        return int(raw)
    return None


def _split(budget: int) -> list[int]:
    """A per-second budget over a few shards (each at least one call a second)."""
    shards = max(1, min(MAX_SHARDS, budget // 3))
    return [budget // shards + (1 if i < budget % shards else 0) for i in range(shards)]


class RedisRateLimiter(BaseRateLimiter[dict[str, Any]]):
    """Telegram's flood limits, kept together by every process through Redis.

    `rate_limit_args={"queued": True}` marks a queued game message (the sender's share of
    the bot's pace); anything else is a direct answer to a person.
    """

    def __init__(
        self,
        store: Store,
        group_messages_per_minute: int = 20,
        messages_per_second: int = 30,
        private_messages_per_second: int = 1,
    ) -> None:
        self.store = store
        self.group_limit = safe_group_limit(group_messages_per_minute)
        self.group_interval, self.group_ahead = group_pace(self.group_limit)
        self.private_limit = max(1, private_messages_per_second * PRIVATE_WINDOW_MS // 1000)
        queued = max(1, messages_per_second * QUEUED_SHARE_PERCENT // 100)
        direct = max(1, messages_per_second - queued)
        self._shares = {True: _split(queued), False: _split(direct)}
        # This process's calls taken from Redis and not spent yet: (how many, spend by).
        self._bank: dict[bool, tuple[int, float]] = {True: (0, 0.0), False: (0, 0.0)}
        self._waiting = {True: 0, False: 0}  # callers wanting one of the share's calls
        self._taking = {True: asyncio.Lock(), False: asyncio.Lock()}
        # A chat's messages counted together and not sent yet: chat -> (how many, spend by).
        self._chat_bank: dict[int, tuple[int, float]] = {}

    async def initialize(self) -> None:
        """Nothing to set up: the windows live in Redis."""

    async def shutdown(self) -> None:
        """Nothing to release."""

    async def process_request(
        self,
        callback: Callable[..., Coroutine[Any, Any, bool | dict[str, Any] | list[dict[str, Any]]]],
        args: Any,
        kwargs: dict[str, Any],
        endpoint: str,
        data: dict[str, Any],
        rate_limit_args: dict[str, Any] | None,
    ) -> bool | dict[str, Any] | list[dict[str, Any]]:
        """Take the chat's and the bot's slots, then make the call; a 429 holds the chat."""
        chat = _chat_of(data)
        pace = rate_limit_args or {}
        if counts(endpoint):
            if chat is not None:
                calls = max(1, int(pace.get("chat_calls") or 1))
                priority = int(pace.get("priority", REPLY))
                await self._chat_slot(chat, priority, calls, endpoint.startswith("edit"))
            if chat is not None and chat > 0 and priority >= STATUS:
                await self._spare_bot_slot(bool(pace.get("queued")))
            else:
                await self._bot_slot(bool(pace.get("queued")))
        before_call = pace.get("before_call")
        if before_call is not None:  # admitted: the call is made now (see Sender._send_recorded)
            await before_call()
        try:
            return await callback(*args, **kwargs)
        except RetryAfter as err:
            if chat is not None:
                self._chat_bank.pop(chat, None)  # what was counted ahead waits out the hold
                seconds = _seconds(err.retry_after)
                await self.store.windows.hold_chat(chat, max(1, int(seconds * 1000)))
                log.warning("Telegram holds chat %s for %.0f s (%s)", chat, seconds, endpoint)
            raise

    async def _chat_slot(
        self, chat: int, priority: int = REPLY, calls: int = 1, edit: bool = False
    ) -> None:
        """Count a message to a chat; raise WindowFull rather than wait for a group. In a
        group a reply takes its own share, and each of the game's classes fills the game's
        only up to its cap (`group_caps`); an optional message (STATUS: an edit a newer one
        may replace) only what is left.

        With `calls` > 1 (this one and the next ones of a lane) to a private chat, the
        window counts up to that many at once, CHAT_SPEND_MS ahead, and the rest wait
        here for the next calls to this chat (an optional one never uses them).

        An edit (`edit`) is never waited for either: its lane goes again later, from the
        store, where a newer state of that message may have replaced it meanwhile (waited
        for, it would be made, and then the newer one: a call spent on a state nobody
        needs, after a 429's hold).
        """
        optional = priority >= STATUS
        if not optional:
            left, until = self._chat_bank.pop(chat, (0, 0.0))
            if left > 0 and time.monotonic() < until:
                if left > 1:
                    self._chat_bank[chat] = (left - 1, until)
                return
        group = chat < 0
        limit = self.group_limit if group else self.private_limit
        if group and priority == END:
            limit += END_MARGIN
        share = group_share(self.group_limit, priority) if group else None
        # A group's minute is counted one message at a time: a slot counted ahead and not
        # spent in time (a slow lane) would be lost to the group for a minute.
        want = 1 if group or optional else calls
        window = GROUP_WINDOW_MS if group else PRIVATE_WINDOW_MS
        pace = self.group_interval if group and priority != REPLY else 0
        ahead = self.group_ahead.get(priority, 0) if group else 0
        while True:
            taken, wait_ms = await self.store.windows.take_chat(
                chat, _now_ms(), limit, window, want, CHAT_SPEND_MS, pace, ahead, share
            )
            if taken:
                if taken > 1:
                    now = time.monotonic()
                    if len(self._chat_bank) > BANKED_CHATS:
                        self._chat_bank = {c: b for c, b in self._chat_bank.items() if b[1] > now}
                    self._chat_bank[chat] = (taken - 1, now + CHAT_SPEND_MS / 1000)
                return
            if group or optional or edit or wait_ms > PRIVATE_LONGEST_WAIT_MS:
                raise WindowFull(math.ceil(wait_ms / 1000))
            await asyncio.sleep(wait_ms / 1000)

    async def _spare_bot_slot(self, queued: bool) -> None:
        """Take one of the bot's calls of this second for an optional private edit, only
        while the second has room to spare (a shard with SPARE_SHARE of its budget unused); raise
        WindowFull rather than wait: the bot's lowest priority never delays another call."""
        shares = self._shares[queued]
        first = random.randrange(len(shares))
        for i in range(len(shares)):
            shard = (first + i) % len(shares)
            limit = max(1, shares[shard] * SPARE_SHARE[0] // SPARE_SHARE[1])
            taken, _ = await self.store.windows.take_bot(
                queued, shard, _now_ms(), limit, BOT_WINDOW_MS, 1, 0
            )
            if taken:
                return
        raise WindowFull(1)

    async def _bot_slot(self, queued: bool) -> None:
        """Take one of the bot's calls of this second for this process.

        Calls are taken from Redis a few at once (as many as this process is waiting
        for, up to a third of a shard's budget), from a randomly chosen shard of the
        share (then one more shard), and spent here within BOT_SPEND_MS: Redis counts
        a batch that far ahead, so every process together keeps to the bot's pace, and no
        key takes every call of every process.
        """
        shares = self._shares[queued]
        self._waiting[queued] += 1
        try:
            async with self._taking[queued]:
                while True:
                    left, until = self._bank[queued]
                    if left > 0 and time.monotonic() < until:
                        self._bank[queued] = (left - 1, until)
                        return
                    first = random.randrange(len(shares))
                    tries = [first] if len(shares) == 1 else [first, (first + 1) % len(shares)]
                    waits = []
                    for shard in tries:
                        want = min(self._waiting[queued], max(1, shares[shard] // 3))
                        # A single call is spent at once: counted now, it costs no pace.
                        ahead = BOT_SPEND_MS if want > 1 else 0
                        limit = shares[shard]
                        taken, wait_ms = await self.store.windows.take_bot(
                            queued, shard, _now_ms(), limit, BOT_WINDOW_MS, want, ahead
                        )
                        if taken:
                            spend_by = time.monotonic() + BOT_SPEND_MS / 1000
                            self._bank[queued] = (taken - 1, spend_by)
                            return
                        waits.append(wait_ms)
                    await asyncio.sleep(min(waits) / 1000)
        finally:
            self._waiting[queued] -= 1


def _now_ms() -> int:
    return int(time.time() * 1000)


def _seconds(retry_after: Any) -> float:
    """RetryAfter.retry_after as seconds (an int, or a timedelta with PTB_TIMEDELTA)."""
    total = getattr(retry_after, "total_seconds", None)
    return float(total() if total is not None else retry_after)
