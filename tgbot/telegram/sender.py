"""Delivers each game's outbox in order, at least once, surviving crashes and 429s."""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from datetime import timedelta
from typing import Any

from telegram import Bot
from telegram.error import BadRequest, Forbidden, NetworkError, RetryAfter

from .. import metrics
from ..storage.store import Store
from ..tasks import settle, sleep_unless
from .keyboards import markup

log = logging.getLogger(__name__)

LOCK_MS = 6_000
MAX_RETRY_AFTER_WAITS = 5
MAX_TEXT = 4096
SENDER_SHARE_PERCENT = 80


def _seconds(retry_after: int | timedelta) -> float:
    if isinstance(retry_after, timedelta):
        return retry_after.total_seconds()
    return float(retry_after)


def merge_sends(lane: list[tuple[bytes, dict[str, Any]]]) -> list[dict[str, Any]]:
    """Join consecutive plain messages (no buttons, nothing to edit later) of one chat.

    Each resulting op lists the stored entries it delivers under "_raws".
    """
    merged: list[dict[str, Any]] = []
    for raw, op in lane:
        previous = merged[-1] if merged else None
        if (
            previous is not None
            and _plain_send(previous)
            and _plain_send(op)
            and len(previous["text"]) + len(op["text"]) + 2 <= MAX_TEXT
        ):
            previous["text"] += "\n\n" + op["text"]
            previous["_raws"].append(raw)
        else:
            merged.append({**op, "_raws": [raw]})
    return merged


def _plain_send(op: dict[str, Any]) -> bool:
    return op["op"] == "send" and not op.get("kb") and not op.get("ref")


class _Deferred(Exception):
    """The group has had its share of messages this minute: try again later."""


class Sender:
    """Drains outboxes; one process at a time per game, oldest message first."""

    def __init__(
        self,
        bot: Bot,
        store: Store,
        group_messages_per_minute: int = 20,
        messages_per_second: int = 30,
    ) -> None:
        self.bot = bot
        self.store = store
        self.keys = store.keys
        self.group_limit = group_messages_per_minute
        # Queued game messages take at most this share of the bot's overall rate, counted
        # in Redis across processes. The rest is left for what answers a person directly
        # (command replies, target pickers), so those never queue behind a busy game.
        self.bot_limit = max(1, messages_per_second * SENDER_SHARE_PERCENT // 100)
        self._slot_turn = asyncio.Lock()

    async def bot_slot(self) -> None:
        """Wait until the sender may make another call this second (every process counts)."""
        # One waiter per process asks Redis at a time, the others queue here in order:
        # otherwise every waiting lane would poll Redis each time a slot frees up.
        async with self._slot_turn:
            while wait_ms := await self.store.admit_bot_send(
                int(time.time() * 1000), self.bot_limit, 1000
            ):
                await asyncio.sleep(wait_ms / 1000)

    async def _admitted(self, chat_id: int) -> bool:
        """Take one of the group's messages of this minute, if one is left."""
        return not await self.store.admit_send(
            chat_id, int(time.time() * 1000), self.group_limit, 60_000
        )

    async def group_slot(self, chat_id: int) -> None:
        """Wait until the group may get another message: never more than the limit in
        any 60 seconds, counted in Redis so that every process keeps to it together.
        (python-telegram-bot's limiter is a leaky bucket: it lets a burst through on top.)"""
        if chat_id > 0:
            return
        while wait_ms := await self.store.admit_send(
            chat_id, int(time.time() * 1000), self.group_limit, 60_000
        ):
            await asyncio.sleep(wait_ms / 1000)

    async def flush(self, game_id: str) -> None:
        """Deliver everything queued for a game (returns early if another process is on it)."""
        while True:
            token = secrets.token_hex(8)
            lock = self.keys.sending(game_id)
            if not await self.store.lock(lock, token, LOCK_MS):
                return
            # The lock is short and kept alive while we work, so a process killed mid-way
            # holds up its game's messages for LOCK_MS at most.
            done = asyncio.Event()
            keeper = asyncio.create_task(self._keep(lock, token, done))
            try:
                progressed = await self._drain(game_id)
            finally:
                done.set()  # not keeper.cancel(): see tgbot/tasks.py
                await settle([keeper], LOCK_MS / 1000)
                await self.store.unlock(lock, token)
            if await self.store.outbox_head(game_id) is None:
                await self.store.outbox_done(game_id)
                return
            if not progressed:
                return  # only group messages waiting for their minute: the sweeper retries

    async def _keep(self, lock: str, token: str, done: asyncio.Event) -> None:
        while not done.is_set():
            await sleep_unless(done, LOCK_MS / 3000)
            if not done.is_set() and not await self.store.extend(lock, token, LOCK_MS):
                return  # lost the lock: whoever holds it now delivers

    async def flush_pending(self) -> None:
        """Deliver what any game still has queued (after a crash, or a failed send)."""
        for game_id in await self.store.pending_games():
            try:
                await self.flush(game_id)
            except NetworkError as err:  # TimedOut and BadRequest are NetworkErrors too
                log.warning("outbox of game %s not delivered yet: %s", game_id, err)
            except Exception:  # one game's failure must not stop the sweep of the others
                log.exception("outbox of game %s not delivered yet", game_id)

    async def _drain(self, game_id: str) -> bool:
        """Deliver the queued messages, one lane per chat, the lanes side by side.

        Order matters only within a chat, so a group held back by its 20-a-minute limit
        does not hold back the players' prompts: its lane stops, the others go on, and its
        messages wait in the outbox, where later ones are merged with them. Return whether
        anything was delivered.
        """
        progressed = False
        while items := await self.store.outbox_items(game_id):
            refs = await self.store.message_ids(game_id)
            lanes: dict[int, list[tuple[bytes, dict[str, Any]]]] = {}
            for raw, op in items:
                lanes.setdefault(op["chat"], []).append((raw, op))
            done = await asyncio.gather(
                *(self._deliver_lane(game_id, merge_sends(lane), refs) for lane in lanes.values())
            )
            delivered = [raw for lane_done, _ in done for raw in lane_done]
            if delivered:
                await self.store.outbox_remove(game_id, delivered)
                progressed = True
            # What the other lanes delivered is recorded first, so that a retry repeats
            # nothing; the failure then ends this flush and the sweeper tries again later.
            failure = next((err for _, err in done if err is not None), None)
            if failure is not None:
                raise failure
            if not delivered:
                return progressed
        return progressed

    async def _deliver_lane(
        self, game_id: str, lane: list[dict[str, Any]], refs: dict[str, int]
    ) -> tuple[list[bytes], Exception | None]:
        """Deliver one chat's messages in order; stop at the first that must wait or fails."""
        delivered: list[bytes] = []
        for op in lane:
            try:
                await self._deliver(game_id, op, refs)
            except _Deferred:
                break
            except Exception as err:  # handed back: raised once every lane is in
                return delivered, err
            delivered += op["_raws"]
            metrics.observe_delivery(op, int(time.time() * 1000))
        return delivered, None

    async def _deliver(self, game_id: str, op: dict[str, Any], refs: dict[str, int]) -> None:
        for _ in range(MAX_RETRY_AFTER_WAITS):
            try:
                if op["op"] == "send":
                    await self._send(game_id, op, refs)
                elif op["op"] == "show":
                    await self._show(game_id, op, refs)
                else:
                    await self._edit(op, refs)
                return
            except RetryAfter as err:  # the rate limiter's own retries were not enough
                await asyncio.sleep(_seconds(err.retry_after))
        raise NetworkError("flood control did not clear")

    async def _send(self, game_id: str, op: dict[str, Any], refs: dict[str, int]) -> None:
        if op["chat"] < 0 and not await self._admitted(op["chat"]):
            raise _Deferred
        if not op.get("direct"):  # a reply to a person is outside the queued share
            await self.bot_slot()
        try:
            message = await self.bot.send_message(
                chat_id=op["chat"],
                text=op["text"],
                reply_markup=markup(op.get("kb")),
                message_thread_id=op.get("thread"),
            )
        except Forbidden:
            await self._unreachable(op)
            return
        except BadRequest as err:
            log.warning("message to chat %s refused: %s", op["chat"], err.message)
            return
        if op.get("ref"):
            refs[op["ref"]] = message.message_id
            await self.store.remember_message(game_id, op["ref"], message.message_id)

    async def _show(self, game_id: str, op: dict[str, Any], refs: dict[str, int]) -> None:
        """Edit the referenced message into this one; send it anew if there is none."""
        message_id = refs.get(op["ref"])
        if message_id is None or not await self._edit_text(op, message_id):
            await self._send(game_id, op, refs)

    async def _edit(self, op: dict[str, Any], refs: dict[str, int]) -> None:
        message_id = refs.get(op["ref"])
        if message_id is not None:  # else never delivered (the person was unreachable)
            await self._edit_text(op, message_id)

    async def _edit_text(self, op: dict[str, Any], message_id: int) -> bool:
        """Edit a message; False when it cannot be edited (gone, too old)."""
        await self.bot_slot()
        try:
            await self.bot.edit_message_text(
                text=op["text"],
                chat_id=op["chat"],
                message_id=message_id,
                reply_markup=markup(op.get("kb")),
            )
        except BadRequest as err:
            if "not modified" in err.message.lower():
                return True
            log.warning("edit in chat %s refused: %s", op["chat"], err.message)
            return False
        except Forbidden:
            await self._unreachable(op)
        return True

    async def _unreachable(self, op: dict[str, Any]) -> None:
        """A private message was refused: note it, and tell the group how to fix it."""
        user_id = op["chat"]
        if user_id < 0:  # a group: the bot was removed; chat_closed deals with that
            return
        already_known = (await self.store.user_prefs(user_id)).get("dm") == "0"
        await self.store.set_user_prefs(user_id, dm="0")
        note = op.get("unreachable")
        if not note or op.get("group") is None or already_known:
            return
        await self.group_slot(op["group"])
        await self.bot_slot()
        try:
            await self.bot.send_message(
                chat_id=op["group"], text=note, message_thread_id=op.get("group_thread")
            )
        except (Forbidden, BadRequest) as err:
            log.warning("could not tell group %s about %s: %s", op["group"], user_id, err)
