"""A send cut short at any point (the process killed, Telegram's answer late or lost) leaves
every message the game edits in its final state: its id is recorded as soon as Telegram
answers, an edit of a message whose id was never learned goes out as a new message, and
a slow answer is waited for rather than the message sent again."""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from dataclasses import replace

import pytest

from tests.resilience.test_kill9 import play_one
from tests.store_probe import outbox_head
from tests.telegram_sim.harness import Harness, TgUser, running_bot
from tests.telegram_sim.server import TelegramSim
from tgbot.bootstrap import make_bot
from tgbot.config import Config
from tgbot.contract import callbacks as buttons
from tgbot.contract.plan import Deadline, Edit, Fallback, Op, Send
from tgbot.storage.clients import connect
from tgbot.storage.keys import Keys, chat_owner
from tgbot.storage.plan import Writes
from tgbot.storage.store import Store
from tgbot.telegram.sender import WRITE_READ_TIMEOUT_S, Sender


async def _nothing_moves(old_chat: int, new_chat: int) -> None:
    """No game follows a group here."""


async def _no_deadline(game_id: str, context: int, seconds: int) -> None:
    """No game's deadline waits for these messages."""


async def _queued(h: Harness, url: str, chat: int, ops: list[Op]) -> tuple[Config, Store]:
    """A store and config of a test's own (its key prefix), with `ops` queued for `chat`."""
    config = replace(h.config, key_prefix=f"c{uuid.uuid4().hex[:8]}")
    store = Store(connect(url), Keys(config.key_prefix))
    writes = Writes()
    for op in ops:
        writes.send(chat_owner(chat), op.to_op())
    await store.commits.commit(writes)
    return config, store


async def _sender(config: Config, store: Store) -> Sender:
    """A process's sender, its bot ready."""
    sender = Sender(make_bot(config, store), store, _nothing_moves, _no_deadline, _nobody_refused)
    await sender.bot.initialize()
    return sender


ONE_BUTTON = [[{"text": "Go", "data": "x.1.G"}]]


def _prompt(chat: int, text: str, context: int) -> Send:
    """A prompt with one button, under the reference of the chat's prompt."""
    return Send(chat, text, ONE_BUTTON, f"prompt:{chat}", deadline=Deadline(context, 60))


def _said_unconfirmed(caplog: pytest.LogCaptureFixture) -> list[str]:
    """What the sender said of sends whose answer it never had."""
    return [r.getMessage() for r in caplog.records if "unanswered" in r.getMessage()]


async def test_a_process_killed_right_after_a_send_keeps_its_id_and_makes_no_copy(
    redis_server_url: str,
) -> None:
    # A group's turn message (no buttons, edited later) is sent; the process is killed
    # while the rest of its lane is on its way. The message reached Telegram and its id
    # was recorded as soon as Telegram answered: the next process sends nothing again and
    # its edits reach it. (Recorded only with the lane's end, the id died with the
    # process: the message was sent a second time and the first copy was never edited.)
    group = -100971
    owner = chat_owner(group)
    async with running_bot(redis_server_url) as h:
        config, store = await _queued(
            h,
            redis_server_url,
            group,
            [Send(group, "turn 1", ref="turn"), Edit(group, "turn", "turn 1, closed")],
        )
        first = await _sender(config, store)
        h.sim.delay("editMessageText", group, 1.0)
        flushing = asyncio.create_task(first.flush(owner))
        await h.until(lambda: h.sim.slow_calls > 0)  # the send is done, the edit on its way
        flushing.cancel()  # killed: what it held in memory is gone
        with contextlib.suppress(asyncio.CancelledError):
            await flushing
        await first.bot.shutdown()
        await asyncio.sleep(1.2)  # Telegram took the edit all the same
        h.sim.delays.clear()
        again = await _sender(config, store)
        await again.flush(owner)
        await again.bot.shutdown()
        sent = [c for c in h.sim.calls_to(group, "sendMessage") if c.status == 200]
        assert len(sent) == 1, [c.params.get("text") for c in sent]
        [message] = h.sim.messages(group)
        assert message.text == "turn 1, closed"
        recorded = await store.redis.hget(store.keys.messages(owner), f"turn@{group}")
        assert recorded is not None and int(recorded) == message.message_id
        assert await outbox_head(store, owner) is None
        await store.redis.aclose()


async def test_an_edit_of_a_private_message_whose_id_was_never_learned_goes_out_anew(
    redis_server_url: str,
) -> None:
    # A prompt reached a player, but its id never reached Redis (a crash between
    # Telegram's answer and the record); the game then closes it. The close is not
    # dropped: the player gets the prompt's final state as a new message, which the game
    # records and edits from then on. A person the bot cannot reach is not asked again.
    chat, blocked = 9710, 9711
    async with running_bot(redis_server_url) as h:
        config, store = await _queued(
            h, redis_server_url, chat, [Edit(chat, f"prompt:{chat}", "prompt, closed")]
        )
        await store.commits.commit(Writes(hset={store.keys.user_prefs(blocked): {"dm": "0"}}))
        writes = Writes()
        writes.send(chat_owner(blocked), Edit(blocked, f"prompt:{blocked}", "closed").to_op())
        await store.commits.commit(writes)
        sender = await _sender(config, store)
        await sender.flush(chat_owner(chat))
        await sender.flush(chat_owner(blocked))
        [message] = h.sim.messages(chat)
        assert message.text == "prompt, closed" and not message.keyboard
        recorded = await store.redis.hget(store.keys.messages(chat_owner(chat)), f"prompt:{chat}")
        assert recorded is not None and int(recorded) == message.message_id
        writes = Writes()
        writes.send(chat_owner(chat), Edit(chat, f"prompt:{chat}", "prompt, told").to_op())
        await store.commits.commit(writes)
        await sender.flush(chat_owner(chat))
        await sender.bot.shutdown()
        assert [m.text for m in h.sim.messages(chat)] == ["prompt, told"]
        assert not h.sim.calls_to(blocked)
        assert await outbox_head(store, chat_owner(chat)) is None
        assert await outbox_head(store, chat_owner(blocked)) is None
        await store.redis.aclose()


async def test_a_slow_answer_to_a_send_with_buttons_is_waited_for_not_sent_again(
    redis_server_url: str,
) -> None:
    # Telegram takes the prompt at once but answers 7 s later, past python-telegram-bot's
    # default read timeout (5 s), which made the bot send it again: two live keyboards.
    # The sender waits longer than Telegram's slow answers.
    chat = 9720
    owner = chat_owner(chat)
    assert WRITE_READ_TIMEOUT_S > 7
    async with running_bot(redis_server_url) as h:
        config, store = await _queued(
            h, redis_server_url, chat, [Send(chat, "choose", ONE_BUTTON, f"prompt:{chat}")]
        )
        h.sim.slow_answers("sendMessage", chat, 7.0)
        sender = await _sender(config, store)
        await sender.flush(owner)
        await sender.bot.shutdown()
        assert h.sim.slow_calls == 1
        [message] = h.sim.messages(chat)
        assert message.keyboard
        recorded = await store.redis.hget(store.keys.messages(owner), f"prompt:{chat}")
        assert recorded is not None and int(recorded) == message.message_id
        assert await outbox_head(store, owner) is None
        await store.redis.aclose()


async def test_a_whole_game_with_slow_answers_leaves_no_live_duplicate(
    redis_server_url: str,
) -> None:
    # One in twenty of Telegram's answers come 6 s late (past python-telegram-bot's default
    # read timeout, which sent those messages again), and so do the group's first two
    # sends, the lobby and a claim, with their buttons. The game ends with no message sent
    # twice and no live keyboard of it left anywhere (Play again aside).
    sim = TelegramSim()
    async with running_bot(redis_server_url, sim=sim) as h:
        group = -100973
        sim.slow_share(0.05, 6.0, seed=37)
        sim.slow_answers("sendMessage", group, 6.0, times=2)
        users = [TgUser(9730 + i, f"Slow{i}") for i in range(3)]
        game_id = await play_one(h, group, users)
        await h.delivered(game_id, timeout=60)
        await asyncio.sleep(6.5)  # answers still on their way land
        assert any(c.method == "sendMessage" and c.params.get("reply_markup") for c in sim.late)
        assert not sim.copies(), [[m.text[:40] for m in g] for g in sim.copies()]
        live = [
            (m.chat_id, m.text[:40])
            for chat in sim.chats
            for m in sim.messages(chat)
            for b in m.buttons()
            if str(b.get("callback_data", "")).startswith(f"{game_id}.")
            and not str(b["callback_data"]).endswith(f".{buttons.AGAIN}")
        ]
        assert not live, live


async def test_a_prompt_answered_after_a_kill_left_its_id_unrecorded_is_not_sent_again(
    redis_server_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    # bench/kill9.py's trace (bench/README.md, issue 37): a prompt reaches Telegram, the
    # process is killed before its id is recorded, the player answers it anyway (another
    # process takes the press) and the game queues its close. The send's attempt was noted
    # as Telegram took it, so the next holder of the lane knows it may be in the chat: it
    # neither sends it again just to close it nor takes it for one never sent in silence;
    # it says so (nothing noted before it bounds where it is, so its buttons stay until
    # pressed: see test_delivery_unknown.py for a copy found by its id). Still
    # awaited, such a prompt is sent again, with its buttons, and its id recorded.
    chat = 9740
    owner = chat_owner(chat)
    ref = f"prompt:{chat}"
    async with running_bot(redis_server_url) as h:
        config, store = await _queued(h, redis_server_url, chat, [_prompt(chat, "choose", 1)])
        first = await _sender(config, store)
        first.app_first_ms = 5000
        h.sim.slow_answers("sendMessage", chat, 1.0)  # taken at once, answered late
        flushing = asyncio.create_task(first.flush(owner))
        await h.until(lambda: bool(h.sim.messages(chat)))  # Telegram took it
        flushing.cancel()  # killed before the answer: its id is never recorded
        with contextlib.suppress(asyncio.CancelledError):
            await flushing
        await first.bot.shutdown()
        h.sim.delays.clear()
        writes = Writes()
        writes.send(owner, Edit(chat, ref, "choose: Go").to_op())  # the answer's close
        await store.commits.commit(writes)
        again = await _sender(config, store)
        again.app_first_ms = 5000
        await again.flush(owner)
        await asyncio.sleep(1.2)  # the late answer lands
        assert len(h.sim.messages(chat)) == 1  # not sent again
        assert _said_unconfirmed(caplog) == [
            f"a message to chat {chat} may have reached Telegram unanswered; "
            "answered since: not sent again"
        ]
        assert await outbox_head(store, owner) is None
        # A prompt still awaited when its answer was lost goes again, and is recorded.
        caplog.clear()
        writes = Writes()
        writes.send(owner, _prompt(chat, "next", 2).to_op())
        await store.commits.commit(writes)
        h.sim.slow_answers("sendMessage", chat, 1.0)
        flushing = asyncio.create_task(again.flush(owner))
        await h.until(lambda: len(h.sim.messages(chat)) == 2)
        flushing.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await flushing
        await again.bot.shutdown()
        h.sim.delays.clear()
        last = await _sender(config, store)
        await last.flush(owner)
        await last.bot.shutdown()
        assert [m.text for m in h.sim.messages(chat)] == ["choose", "next", "next"]
        assert _said_unconfirmed(caplog) == [
            f"a message to chat {chat} may have reached Telegram unanswered; sent again"
        ]
        recorded = await store.redis.hget(store.keys.messages(owner), ref)
        assert recorded is not None and int(recorded) == h.sim.messages(chat)[-1].message_id
        await store.redis.aclose()


async def test_a_send_telegram_refused_with_429_is_not_said_unconfirmed(
    redis_server_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    # Telegram answers a prompt's send with 429: it was not sent. Its attempt is taken back,
    # so the send after the hold is no "may have reached Telegram" case: one message, its
    # id recorded, nothing said.
    chat = 9750
    owner = chat_owner(chat)
    ref = f"prompt:{chat}"
    async with running_bot(redis_server_url) as h:
        config, store = await _queued(h, redis_server_url, chat, [_prompt(chat, "choose", 1)])
        sender = await _sender(config, store)
        h.sim.fail_next("sendMessage", 429, "Too Many Requests: retry after 1", chat, 1)
        await sender.flush(owner)
        assert not h.sim.messages(chat) and await outbox_head(store, owner) is not None
        await asyncio.sleep(1.1)
        await sender.flush(owner)
        await sender.bot.shutdown()
        [message] = h.sim.messages(chat)
        recorded = await store.redis.hget(store.keys.messages(owner), ref)
        assert recorded is not None and int(recorded) == message.message_id
        assert not _said_unconfirmed(caplog)
        await store.redis.aclose()


async def test_a_prompt_shown_in_place_then_answered_after_a_kill_is_closed(
    redis_server_url: str,
) -> None:
    # CI's kill -9 failure (session 18): a prompt is shown in place of the chat's last
    # one (an edit of that message); the process is killed after Telegram took the edit
    # and before the lane counted it delivered. The player answers it, and its close folds
    # into the waiting show. The close must still be made: the message shows the prompt,
    # with live buttons. (Taken for a show never made, the close was dropped, and the
    # buttons outlived the game.)
    chat = 9760
    owner = chat_owner(chat)
    ref = f"prompt:{chat}"
    async with running_bot(redis_server_url) as h:
        config, store = await _queued(h, redis_server_url, chat, [_prompt(chat, "first", 1)])
        first = await _sender(config, store)
        first.app_first_ms = 5000  # as the bot runs (APP_FIRST_SECONDS)
        await first.flush(owner)
        [message] = h.sim.messages(chat)
        writes = Writes()
        writes.send(owner, replace(_prompt(chat, "second", 2), in_place=True).to_op())
        await store.commits.commit(writes)
        h.sim.slow_answers("editMessageText", chat, 1.0)  # taken at once, answered late
        flushing = asyncio.create_task(first.flush(owner))
        await h.until(lambda: message.text == "second")  # Telegram took the edit
        flushing.cancel()  # killed before the lane counted it delivered
        with contextlib.suppress(asyncio.CancelledError):
            await flushing
        await first.bot.shutdown()
        await asyncio.sleep(1.2)
        h.sim.delays.clear()
        writes = Writes()
        writes.send(owner, Edit(chat, ref, "second: Go").to_op())  # the answer's close
        await store.commits.commit(writes)
        again = await _sender(config, store)
        again.app_first_ms = 5000
        await again.flush(owner)
        await again.bot.shutdown()
        assert [(m.text, bool(m.keyboard)) for m in h.sim.messages(chat)] == [("second: Go", False)]
        assert await outbox_head(store, owner) is None
        await store.redis.aclose()


async def _nobody_refused(game_id: str, user_id: int, fallback: Fallback | None) -> None:
    raise AssertionError(f"no private message of {game_id} is refused here ({user_id})")
