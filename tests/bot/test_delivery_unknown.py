"""A send whose outcome the bot cannot know is made again, but never as a second live copy
of its buttons: Telegram takes a prompt and answers it after the read timeout."""

from __future__ import annotations

import asyncio
import uuid
from dataclasses import replace

import pytest
from redis.exceptions import RedisError

from tests.bot.play import open_lobby, players
from tests.store_probe import outbox_head
from tests.telegram_sim.harness import running_bot
from tests.telegram_sim.server import TelegramSim
from tgbot.bootstrap import make_bot
from tgbot.service.plan import Send
from tgbot.storage.clients import connect
from tgbot.storage.keys import Keys, chat_owner
from tgbot.storage.plan import Writes
from tgbot.storage.store import Store
from tgbot.telegram.sender import Sender


async def _nothing_moves(old_chat: int, new_chat: int) -> None:
    """No game follows a group here."""


async def _no_deadline(game_id: str, context: int, seconds: int) -> None:
    """No game's deadline waits for these messages."""


# Past python-telegram-bot's read timeout (5 s): the bot sees TimedOut, Telegram sent it.
LATE_S = 6.0


async def test_a_prompt_answered_after_the_read_timeout_has_one_live_copy(
    any_redis_url: str,
) -> None:
    sim = TelegramSim()
    async with running_bot(any_redis_url, sim=sim) as h:
        users = players(2, first_id=9400)
        group = -100940
        await open_lobby(h, users, group=group)
        for u in users:  # each player's next message is taken, and answered too late
            sim.slow_answers("sendMessage", u.id, LATE_S)
        await h.press_text(users[0], group, h.tr("▶️ Start"))
        record = await h.record_of_chat(group)
        assert record is not None
        prefix = f"{record.id}.{record.context}."

        def prompt_copies() -> list[int]:
            """Messages of the first mover's chat that show its prompt's text."""
            mover = record.game().awaiting().players[0]
            prompt = [
                m
                for m in sim.messages(mover)
                if any(b.get("callback_data", "").startswith(prefix) for b in m.buttons())
            ]
            return [m.message_id for m in prompt]

        await h.until(lambda: bool(prompt_copies()), timeout=30)
        await h.delivered(record.id, timeout=30)
        assert sim.slow_calls == 2  # both players' first messages went through unanswered
        mover = record.game().awaiting().players[0]
        sends = [c for c in sim.calls_to(mover, "sendMessage") if c.status == 200]
        assert len(sends) > len({c.params.get("text") for c in sends})  # one was made again
        assert not sim.duplicate_keyboards()
        assert len(prompt_copies()) == 1
        # The one live copy works: the press is taken.
        actor = next(u for u in users if u.id == mover)
        await h.press_text(actor, actor.id, h.tr("💰 Income"))
        await h.delivered(record.id, timeout=30)
        after = await h.record(record.id)
        assert after is not None and after.context > record.context
        assert not sim.duplicate_keyboards()


async def test_a_process_that_dies_while_redis_refuses_writes_leaves_no_live_duplicate(
    redis_server_url: str,
) -> None:
    # A message with buttons reaches Telegram (without them) while Redis refuses writes,
    # so its id cannot be recorded; the process then dies, and what it kept in memory with
    # it. A new process sends the message again: the chat shows it twice, and only the
    # copy whose id Redis holds has the buttons.
    async with running_bot(redis_server_url) as h:
        config = replace(h.config, key_prefix=f"d{uuid.uuid4().hex[:8]}")  # ours alone
        store = Store(connect(redis_server_url), Keys(config.key_prefix))
        chat, owner = 9450, chat_owner(9450)
        keyboard = [[{"text": "Go", "data": "x.1.G"}]]
        writes = Writes()
        writes.send(owner, Send(chat, "choose", keyboard).to_op())
        await store.commits.commit(writes)
        first = Sender(make_bot(config, store), store, _nothing_moves, _no_deadline)
        await first.bot.initialize()
        h.sim.delay("sendMessage", chat, 1.0)
        flushing = asyncio.create_task(first.flush(owner))
        await h.until(lambda: h.sim.slow_calls > 0)  # on its way
        await store.redis.config_set("maxmemory", 1)
        try:
            with pytest.raises(RedisError):
                await flushing
        finally:
            await store.redis.config_set("maxmemory", 0)
        await first.bot.shutdown()
        del first  # killed: what it held in memory is gone
        h.sim.delays.clear()
        again = Sender(make_bot(config, store), store, _nothing_moves, _no_deadline)
        await again.bot.initialize()
        await again.flush(owner)
        await again.bot.shutdown()
        copies = [m for m in h.sim.messages(chat) if m.text == "choose"]
        assert len(copies) == 2
        assert [bool(m.keyboard) for m in copies] == [False, True]
        assert not h.sim.duplicate_keyboards(chat)
        assert await outbox_head(store, owner) is None
        await store.redis.aclose()
