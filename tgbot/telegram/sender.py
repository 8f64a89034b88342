"""Delivers each game's outbox in order, at least once, surviving crashes and 429s."""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Any

from redis.exceptions import RedisError
from telegram.error import ChatMigrated, RetryAfter
from telegram.ext import ExtBot

from .. import metrics
from ..contract.plan import REPLY, Edit, Fallback, Op
from ..storage.keys import CHAT_OWNER_PREFIX, OUTBOX_TTL_S
from ..storage.outbox import LEASED
from ..storage.store import Store
from . import outage
from .bot_calls import WRITE_READ_TIMEOUT_S as WRITE_READ_TIMEOUT_S
from .bot_calls import BotCalls
from .closes import Closes
from .delivery_log import say_unconfirmed, sweep_failed
from .lanes import (
    Pending,
    answered_elsewhere,
    asked_in_page,
    behind_the_table,
    fix_moment,
    from_lane,
    is_held,
    is_optional,
    is_prompt,
    latest_state,
    merge_sends,
    ride,
    told_in_page,
    with_heads,
    with_lane_priority,
)
from .message_refs import message_id as message_id_of
from .message_refs import recorded_ids, ref_key
from .rate_limit import CLASS_NAMES

log = logging.getLogger(__name__)

LEASE_MS = 6_000  # a killed process holds up the outboxes it was delivering this long
FIRST_BACKOFF_S = 1.0  # an outbox the sweep failed to deliver waits this, doubled each time
LONGEST_BACKOFF_S = 30.0


class _Deferred(Exception):
    """The chat's window is full (or Telegram asked it to wait): try again later."""


class _Moved(Exception):
    """A basic group became a supergroup (Telegram's ChatMigrated): follow it."""

    def __init__(self, old_chat: int, new_chat: int) -> None:
        super().__init__(f"chat {old_chat} is now {new_chat}")
        self.old_chat, self.new_chat = old_chat, new_chat


class Sender:
    """Drains outboxes; one process at a time per game, oldest message first.

    Pacing is the bot's rate limiter's (shared in Redis by every process): a chat whose
    window is full is refused at once, and its lane waits for a later sweep.
    """

    def __init__(
        self,
        bot: ExtBot[Any],
        store: Store,
        on_migrated: Callable[[int, int], Awaitable[None]],
        on_prompt_delivered: Callable[[str, int, int], Awaitable[None]],
        on_unreachable: Callable[[str, int, Fallback | None], Awaitable[None]],
        app_first_ms: int = 0,
    ) -> None:
        self.bot = bot
        self.calls = BotCalls(bot, on_unreachable)
        self.store = store
        self.closes = Closes(store, self.calls)
        self.keys = store.keys
        # Moves a group's game and settings to the supergroup it became (the game service's).
        self.on_migrated = on_migrated
        # A prompt reached Telegram: (game, context, seconds) starts its deadline from now.
        self.on_prompt_delivered = on_prompt_delivered
        # Asked in the page first (config.app_first_s): how long a prompt of a player whose
        # page is open waits for the decision to come from there (0: never).
        self.app_first_ms = app_first_ms
        # Prompts asked in the page, whose deadlines have started: game -> {(chat, context)}.
        self._asked: dict[str, set[tuple[int, int]]] = {}
        # Outboxes the sweep failed to deliver: (failures in a row, when to try again).
        self._backoff: dict[str, tuple[int, float]] = {}
        # What reached Telegram but Redis refused to record (it is out of memory, say): lane
        # entries to drop and message references to keep, recorded by this process before
        # it delivers anything more of that game. A message can go out twice if the
        # process dies meanwhile (one with buttons too: see `_send_recorded`).
        self._owed_raws: dict[str, dict[int, list[str]]] = {}
        self._owed_refs: dict[str, dict[str, int]] = {}
        # Sends with buttons that reached Telegram while Redis refused to note them (lane
        # entry -> message id): this process does not make them again, and notes them
        # before it delivers anything more of that lane.
        self._owed_sent: dict[str, dict[str, int]] = {}
        # Outboxes this process delivers now, and those asked for again meanwhile.
        self._running: set[str] = set()
        self._again: set[str] = set()
        # Every delivery lock this process takes holds this token; one lease in Redis, kept
        # alive by one task while any delivery runs, says the process is alive (a lock whose
        # holder's lease is gone is taken over), however many outboxes it delivers.
        self.token = LEASED + secrets.token_hex(8)
        self._leased_at = -LEASE_MS / 1000
        self._keeper: asyncio.Task[None] | None = None

    def in_flight(self) -> int:
        """Outboxes this process is delivering now."""
        return len(self._running)

    async def flush(self, game_id: str) -> None:
        """Deliver what a game (or chat) has queued, or ask its running delivery in this
        process to go round once more.

        Every commit asks for a delivery, and at a steady rate most find their outbox's
        delivery already running (waiting for the bot's pace or a chat's window): each
        would try the outbox's lock in Redis and give up, and the many tasks waiting side
        by side would take the event loop and the Redis connections the updates need.
        """
        if game_id in self._running:
            self._again.add(game_id)
            return
        self._running.add(game_id)
        try:
            await self._lease()
            while True:
                self._again.discard(game_id)
                await self._flush_once(game_id)
                if game_id not in self._again:
                    return
        finally:
            self._running.discard(game_id)
            self._again.discard(game_id)

    async def _lease(self) -> None:
        """Make sure this process's lease is fresh, and kept so while deliveries run."""
        if time.monotonic() - self._leased_at > LEASE_MS / 3000:
            await self.store.delivery.renew_sender_lease(self.token, LEASE_MS)
            self._leased_at = time.monotonic()
        if self._keeper is None or self._keeper.done():
            self._keeper = asyncio.create_task(self._keep())

    async def _keep(self) -> None:
        """Renew the lease every third of its life while this process delivers anything."""
        while self._running:
            await asyncio.sleep(LEASE_MS / 3000)
            if not self._running:
                return
            try:
                await self.store.delivery.renew_sender_lease(self.token, LEASE_MS)
            except Exception as err:  # the next delivery renews it; its lock may be taken over
                if not outage.STORAGE.failed("delivery lease", err):
                    log.warning("delivery lease not renewed: %s", err)
                continue
            self._leased_at = time.monotonic()

    async def _flush_once(self, game_id: str) -> None:
        """Deliver everything queued for a game (returns early if another process is on it)."""
        while True:
            # The mark is read with the lock, before draining: a step that marks the outbox
            # meanwhile keeps its mark.
            taken, mark = await self.store.delivery.lock_outbox(game_id, self.token)
            if not taken:
                return
            drained = False
            try:
                progressed = await self._drain(game_id)
                drained = True
            finally:
                if not drained:
                    await self.store.delivery.unlock(self.keys.sending(game_id), self.token)
            if await self.store.delivery.unlock_outbox(game_id, self.token, mark):
                return
            if not progressed:
                return  # only group messages waiting for their minute: the sweeper retries

    async def flush_pending(self) -> None:
        """Deliver what any game still has queued (after a crash, or a failed send)."""
        now = time.monotonic()
        for game_id in await self.store.delivery.pending_games():
            failures, next_try = self._backoff.get(game_id, (0, 0.0))
            if next_try > now:
                continue
            try:
                if await self._gone(game_id):
                    continue
                await self.flush(game_id)
            except Exception as err:  # one game's failure must not stop the sweep of the others
                failures += 1
                pause = min(LONGEST_BACKOFF_S, FIRST_BACKOFF_S * 2 ** (failures - 1))
                self._backoff[game_id] = (failures, time.monotonic() + pause)
                sweep_failed(game_id, failures, pause, err)
            else:
                self._backoff.pop(game_id, None)
                outage.STORAGE.working()

    async def _gone(self, owner: str) -> bool:
        """Drop, with a log line, what a game that no longer exists still had queued."""
        if owner.startswith(CHAT_OWNER_PREFIX) or await self.store.redis.exists(
            self.keys.game(owner)
        ):
            return False
        dropped = await self.store.outboxes.outbox_drop(owner)
        if dropped:
            log.warning("game %s is gone: %d undelivered messages dropped", owner, dropped)
        return True

    async def _drain(self, game_id: str) -> bool:
        """Deliver the queued messages, one lane per chat, the lanes side by side.

        Order matters within a chat: a group held back by its 20-a-minute limit stops
        its lane, and its messages wait there, where later states of a message replace
        older ones. Across chats only the game's order does: a player's prompt waits until
        the group has shown what was queued before it (`behind_the_table`), so that
        nobody is asked to act on a turn the table does not show yet; the players'
        other messages (a closed prompt, a card told) go on.
        Each round reads a bounded head of every lane (`Outboxes.outbox_pass`) and removes
        what it delivered. Return whether anything was delivered.
        """
        progressed = await self._settle(game_id)
        while True:
            head = await self.store.outboxes.outbox_pass(game_id, self.token, OUTBOX_TTL_S)
            if head is None:  # the lock was taken over: its new holder delivers
                return progressed
            for raw in head.dropped:
                log.warning("game %s: outbox entry dropped (not an entry): %.200s", game_id, raw)
            if not head.lanes:
                self._asked.pop(game_id, None)  # nothing left waiting for a page
                return progressed
            refs = head.message_ids
            lanes: dict[int, list[Pending]] = {}
            delivered: dict[int, list[str]] = {}
            for chat, entries in head.lanes.items():
                for entry in entries:
                    try:
                        item = from_lane(entry)
                    except ValueError as err:
                        log.warning(
                            "game %s: outbox entry dropped (%s): %.200s", game_id, err, entry.raw
                        )
                        delivered.setdefault(chat, []).append(entry.token)
                        continue
                    lanes.setdefault(chat, []).append(item)
            known = dict(refs)
            states = {
                chat: with_heads(
                    ride(latest_state(lane)) if chat < 0 else latest_state(lane), head.heads
                )
                for chat, lane in lanes.items()
            }
            if self.app_first_ms:
                states = await self._page_first(game_id, states, delivered, known)
            ready = behind_the_table(
                {chat: with_lane_priority(merge_sends(lane)) for chat, lane in states.items()}
            )
            chats = list(ready)
            done = await asyncio.gather(
                *(self._deliver_lane(game_id, ready[chat], refs) for chat in chats)
            )
            for chat, (lane_done, _) in zip(chats, done, strict=True):
                delivered.setdefault(chat, []).extend(lane_done)
            sent = {ref: mid for ref, mid in refs.items() if known.get(ref) != mid}
            any_delivered = any(delivered.values())
            left = -1
            if any_delivered or sent:
                progressed = True
                try:
                    left = await self.store.outboxes.outbox_delivered(game_id, delivered, sent)
                except RedisError:
                    # Sent all the same: nothing of it may be sent again (see _settle).
                    owed = self._owed_raws.setdefault(game_id, {})
                    for chat, tokens in delivered.items():
                        owed.setdefault(chat, []).extend(tokens)
                    self._owed_refs.setdefault(game_id, {}).update(sent)
                    raise
            # What the other lanes delivered is recorded first, so that a retry repeats
            # nothing (and a move readdresses only what is left); a failure then ends this
            # flush and the sweeper tries again later.
            moves = {(e.old_chat, e.new_chat) for _, e in done if isinstance(e, _Moved)}
            for old_chat, new_chat in moves:
                await self._follow(game_id, old_chat, new_chat)
            failure = next(
                (e for _, e in done if e is not None and not isinstance(e, _Moved)), None
            )
            if failure is not None:
                raise failure
            if (not any_delivered and not moves) or (left == 0 and not moves):
                return progressed

    async def _page_first(
        self,
        game_id: str,
        lanes: dict[int, list[Pending]],
        delivered: dict[int, list[str]],
        refs: dict[str, int],
    ) -> dict[int, list[Pending]]:
        """The lanes as they may go with the players whose page is open asked there first
        (`lanes.asked_in_page`): a prompt answered meanwhile is not sent at all (its
        entries go into `delivered`), one held starts its deadline now, as the page shows
        it (once: its chat message, if it comes to that, does not start it again)."""
        for chat, lane in list(lanes.items()):
            lanes[chat], dropped = answered_elsewhere(lane)
            if dropped:
                delivered.setdefault(chat, []).extend(dropped)
                for item in lane:
                    if item.sent == 0 and item.raws[0] in dropped:
                        say_unconfirmed(chat)
                        await self.closes.copies(game_id, item, None, refs)
        prompts = [item for lane in lanes.values() for item in lane if is_prompt(item)]
        now_ms = int(time.time() * 1000)
        asked = self._asked.pop(game_id, set())
        if any((item.at or now_ms) + self.app_first_ms > now_ms for item in prompts) or any(
            told_in_page(item) for lane in lanes.values() for item in lane
        ):
            present = await self.store.app.present(game_id)
            lanes, held, told = asked_in_page(lanes, present, self.app_first_ms, now_ms)
            for item in told:
                delivered.setdefault(item.op.chat, []).extend(item.raws)
            for item in held:
                deadline = item.op.deadline
                assert deadline is not None  # a prompt's
                if (item.op.chat, deadline.context) in asked:
                    continue
                # From when it was queued: the page showed it then.
                waited_s = max(0, now_ms - (item.at or now_ms)) // 1000
                try:
                    await self.on_prompt_delivered(
                        game_id, deadline.context, max(1, deadline.seconds - waited_s)
                    )
                except Exception as err:  # asked again on the next pass
                    log.warning("deadline of game %s not started: %s", game_id, err)
                    continue
                asked.add((item.op.chat, deadline.context))
        keep = set()
        for item in prompts:
            deadline = item.op.deadline
            if deadline is not None and (item.op.chat, deadline.context) in asked:
                item.asked = True
                keep.add((item.op.chat, deadline.context))
        if keep:
            self._asked[game_id] = keep
        return lanes

    async def _settle(self, game_id: str) -> bool:
        """Record what an earlier flush delivered but could not record; True if any."""
        refs = self._owed_refs.pop(game_id, {})
        raws = self._owed_raws.pop(game_id, {})
        if not (refs or raws):
            return False
        try:
            await self.store.outboxes.outbox_delivered(game_id, raws, refs)
        except RedisError:
            self._owed_refs.setdefault(game_id, {}).update(refs)
            owed = self._owed_raws.setdefault(game_id, {})
            for chat, tokens in raws.items():
                owed.setdefault(chat, []).extend(tokens)
            raise
        return True

    async def _deliver_lane(
        self, game_id: str, lane: list[Pending], refs: dict[str, int]
    ) -> tuple[list[str], Exception | None]:
        """Deliver one chat's messages in order; stop at the first that must wait or fails.
        The message ids of what it sends go into `refs` (recorded with the delivered
        entries' removal, in one script, by the caller)."""
        delivered: list[str] = []
        # What this lane sends to its chat from each point on, not counting held or
        # optional edits (the chat's window may count that many at once: see the limiter).
        due = [not is_held(item) and not is_optional(item.op) for item in lane]
        for i, item in enumerate(lane):
            op = item.op
            # A held or optional edit is the newest state of its message in this lane
            # (latest_state merged the older ones into it): the lane goes on without it,
            # and it stays queued for a later sweep or a newer state.
            if is_held(item):
                continue
            try:
                if item.head and (key := ref_key(op)):
                    # Noted before the send: killed after it, the next pass gives its later
                    # states the same head (and makes the same ride again, if it must send).
                    await self.store.outboxes.outbox_head(game_id, key, item.head)
                await self._deliver(game_id, item, refs, max(1, sum(due[i:])))
            except _Deferred:
                if is_optional(op):
                    if op.chat > 0 and isinstance(op, Edit) and op.closes is None:
                        # A private prompt's closing echo with no room in the bot's second:
                        # not made (its stale buttons answer "already decided"; the next
                        # prompt is a new message), and never later over a newer prompt
                        # in place. Its buttons come off when there is room, so that no
                        # keyboard outlives its game.
                        try:
                            await self.closes.later(game_id, op, refs, lane[i + 1 :])
                        except Exception as err:  # handed back, as a failed call is
                            return delivered, err
                        delivered += item.raws
                    continue
                break
            except Exception as err:  # handed back: raised once every lane is in
                return delivered, err
            delivered += item.raws
            kind = CLASS_NAMES.get(op.rank, "?")
            now_ms = int(time.time() * 1000)
            metrics.observe_delivery(op.chat, kind, item.at, now_ms, is_optional(op))
            # A prompt Telegram refused (403) starts its deadline all the same: nobody will
            # see it, and the game must not wait the delivery grace for them. One asked in
            # the page first started it then.
            if op.deadline is not None and not item.asked:
                try:
                    await self.on_prompt_delivered(
                        game_id, op.deadline.context, op.deadline.seconds
                    )
                except Exception as err:  # delivered all the same: the step-time deadline holds
                    log.warning("deadline of game %s not moved: %s", game_id, err)
        return delivered, None

    async def _deliver(
        self, game_id: str, item: Pending, refs: dict[str, int], calls: int = 1
    ) -> None:
        """Make one call (or an edit and then a send); `calls`: how many this lane still
        makes to the chat, this one included (the limiter may count them together)."""
        # One moment for every call this delivery makes (an edit, then a send).
        op = fix_moment(item.op, int(time.time() * 1000))
        try:
            if item.send:
                await self._send(game_id, item, op, refs, calls)
            elif item.show:
                await self._show(game_id, item, op, refs, calls)
            elif isinstance(op, Edit) and op.closes is not None:
                await self.closes.make(op, op.closes, refs)
            elif isinstance(op, Edit) and op.message_id is not None:
                await self._edit_by_id(game_id, op, op.message_id, calls)
            else:
                await self._edit(game_id, item, op, refs, calls)
        except ChatMigrated as err:
            raise _Moved(op.chat, err.new_chat_id) from None
        except RetryAfter as err:  # a full window, or Telegram's 429: the chat waits
            log.info("chat %s waits %s before its next message", op.chat, err.retry_after)
            raise _Deferred from None

    async def _follow(self, owner: str, old_chat: int, new_chat: int) -> None:
        """The group became a supergroup: move its game, then readdress what is queued."""
        log.warning("chat %s is now %s: its game and queued messages follow", old_chat, new_chat)
        await self.on_migrated(old_chat, new_chat)
        await self.store.outboxes.outbox_move_chat(owner, old_chat, new_chat)

    async def _send(
        self, game_id: str, item: Pending, op: Op, refs: dict[str, int], calls: int = 1
    ) -> None:
        """Send a message anew: one the game edits later, or with buttons, is recorded as
        soon as Telegram answers (see `_send_recorded`)."""
        if op.kb or ref_key(op):
            await self._send_recorded(game_id, item, op, refs, calls)
            return
        await self.calls.send_text(game_id, op, calls)

    async def _send_recorded(
        self, game_id: str, item: Pending, op: Op, refs: dict[str, int], calls: int = 1
    ) -> None:
        """Send a message the game edits later (or one with buttons, sent with them in one
        call), and record its id as soon as Telegram answers, before anything more of the
        lane is done: a crash after that record loses no id (its later edits reach it) and
        a retry sends nothing.

        A send whose outcome is unknown (this process killed before its answer was
        recorded, an answer slower than even WRITE_READ_TIMEOUT_S) is made again, so a
        chat may show a message twice, both with buttons. They carry the same data: a
        press on the copy nothing records acts as one on the other while it is current.
        The copy is looked for by id once the send made again has one
        (`Closes.copies`), and closed by a press refused as stale if it was not found."""
        token = item.raws[-1]
        message_id = item.sent
        if message_id:
            # Sent and recorded before. A version that put the buttons on with an edit
            # after the record may have stopped between the two: put them on ("not
            # modified" when they are there); only a retry makes this call.
            if op.kb:
                await self.calls.edit_text(game_id, op, message_id, calls)
        else:
            # The lanes of one game run side by side: each keeps to its own entry here.
            message_id = self._owed_sent.get(game_id, {}).get(token)
            if message_id is None:
                attempted = None
                if item.sent == 0:
                    # Taken to Telegram before, its answer lost (with a killed process, or
                    # past the read timeout): a copy may be there already, whose id is
                    # unknown; once this send has one, the ids between are tried for it.
                    say_unconfirmed(op.chat, "sent again")
                else:

                    async def attempted() -> None:
                        # Once the limiter admits the send, just before Telegram takes it.
                        floor = max(
                            self.calls.newest_id(op.chat),
                            max(recorded_ids(refs, op.chat), default=0),
                        )
                        await self.store.outboxes.outbox_attempt(game_id, token, floor)

                try:
                    message_id = await self.calls.send_text(game_id, op, calls, attempted)
                except RetryAfter:
                    if attempted is not None:  # Telegram's 429: it was not sent after all
                        await self.store.outboxes.outbox_unattempt(game_id, token)
                    raise
                if message_id is None:
                    return
                self._owed_sent.setdefault(game_id, {})[token] = message_id
            if item.sent == 0:  # queued first: killed before the record, asked again
                await self.closes.copies(game_id, item, message_id, refs)
            await self.store.outboxes.outbox_sent(game_id, token, ref_key(op), message_id)
            self._forget_sent(game_id, token)
            item.sent = message_id
        key = ref_key(op)
        if key:
            refs[key] = message_id

    def _forget_sent(self, game_id: str, token: str) -> None:
        """A send with buttons is recorded in Redis: this process owes nothing for it."""
        owed = self._owed_sent.get(game_id)
        if owed is None:
            return
        owed.pop(token, None)
        if not owed:
            del self._owed_sent[game_id]

    async def _show(
        self, game_id: str, item: Pending, op: Op, refs: dict[str, int], calls: int = 1
    ) -> None:
        """Edit the referenced message into this one; send it anew if there is none."""
        message_id = message_id_of(refs, op)
        if message_id is not None:
            if item.sent is None:
                # Noted before the call: killed after Telegram took the edit, the next
                # holder knows the prompt may be shown (see `lanes.answered_elsewhere`).
                await self.store.outboxes.outbox_shown(game_id, item.raws[-1], message_id)
                item.sent = message_id
            if await self.calls.edit_text(game_id, op, message_id, calls):
                return
            item.sent = None  # not shown there after all: a new message, recorded as one
        await self._send(game_id, item, op, refs, calls)

    async def _edit(
        self, game_id: str, item: Pending, op: Op, refs: dict[str, int], calls: int = 1
    ) -> None:
        """Edit a message into its newest state; send it anew when its id is not known."""
        message_id = message_id_of(refs, op)
        if message_id is None:
            # Not in this chat (a group that became a supergroup), or sent without its id
            # ever reaching Redis (a crash between Telegram's answer and the record; no
            # edit of it may be dropped): anew. A person the bot cannot reach, whose
            # message was never delivered, is not asked again.
            if op.chat > 0 and await self.store.prefs.refused_us(op.chat):
                return
            await self._send(game_id, item, op, refs, calls)
            return
        if not await self.calls.edit_text(game_id, op, message_id, calls) and op.kb:
            # Gone or too old to edit, and it still offers buttons (a lobby): send it anew,
            # as a new message the group must see (an optional edit's class would wait for
            # a quiet spell, and the refused edit was just counted: it would never go).
            # In a reply's class: not held to the group's pace, which the refused edit
            # just spent (a turn's class may have gone as far ahead of it as it may).
            await self._send(game_id, item, replace(op, priority=min(op.rank, REPLY)), refs, calls)

    async def _edit_by_id(self, game_id: str, op: Edit, message_id: int, calls: int) -> None:
        """Edit the message a press named (a prompt, or a screen sent as a reply:
        `plan.screen_edit`). Gone or too old, it stays as it is (never sent anew); in a
        group that became a supergroup, the group's game and settings follow, and the old
        group's message is left alone."""
        try:
            await self.calls.edit_text(game_id, op, message_id, calls)
        except ChatMigrated as err:
            await self.on_migrated(op.chat, err.new_chat_id)
