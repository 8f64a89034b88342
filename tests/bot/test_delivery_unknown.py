"""A message with buttons goes out in one call. A send whose outcome the bot cannot know
(its answer lost on the way, or the process dies first) is made again, so a
chat may show two copies of its buttons. The ids just above the newest one known when it
was attempted are tried for the copy, which loses its buttons without a press; a copy not
found so (nothing bounded where it is) acts as the other while it is current, and once a
press on it is refused as stale it loses its buttons. The message the game edits never
does."""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import Sequence
from dataclasses import replace

import pytest
from redis.exceptions import RedisError

from tests.bot.play import answers, open_and_start, open_lobby, players
from tests.store_probe import outbox_head
from tests.telegram_sim.harness import Harness, TgUser, running_bot
from tests.telegram_sim.server import SimMessage, TelegramSim
from tgbot.bootstrap import make_bot
from tgbot.config import Config
from tgbot.contract.plan import Fallback, Op, Send, close_copy, close_keyboard
from tgbot.contract.steps import LOBBY_REF, prompt_ref
from tgbot.storage.clients import connect
from tgbot.storage.keys import Keys, chat_owner
from tgbot.storage.plan import Writes
from tgbot.storage.store import Store
from tgbot.telegram.closes import COPY_PROBES
from tgbot.telegram.sender import Sender


async def _nothing_moves(old_chat: int, new_chat: int) -> None:
    """No game follows a group here."""


async def _no_deadline(game_id: str, context: int, seconds: int) -> None:
    """No game's deadline waits for these messages."""


async def _recorded(h: Harness, game_id: str, ref: str) -> int | None:
    """The Telegram id the game records for one of its messages."""
    raw = await h.store.redis.hget(h.store.keys.messages(game_id), ref)
    return None if raw is None else int(raw)


async def _raw_record(h: Harness, game_id: str) -> str | None:
    """The game's record as stored: a refused press must leave it as it was."""
    value = await h.store.redis.get(h.store.keys.game(game_id))
    return None if value is None else str(value)


async def test_a_copy_of_a_prompt_left_by_a_lost_answer_is_found_and_closed_without_a_press(
    any_redis_url: str,
) -> None:
    sim = TelegramSim()
    async with running_bot(any_redis_url, sim=sim) as h:
        users = players(2, first_id=9400)
        group = -100940
        await open_lobby(h, users, group=group)
        for u in users:  # each player's next message with buttons is taken, its answer lost
            sim.lose_next("sendMessage", u.id, with_buttons=True)
        await h.press_text(users[0], group, h.tr("▶️ Start"))
        record = await h.record_of_chat(group)
        assert record is not None
        prefix = f"{record.id}.{record.context}."
        mover = record.game().awaiting().players[0]
        actor = next(u for u in users if u.id == mover)
        for u in users:  # only the first prompt's answer is lost: the others' come
            if u.id != mover:
                sim.lost_answers.pop(("sendMessage", u.id), None)

        def prompt_copies() -> list[SimMessage]:
            """Messages of the first mover's chat sent with its prompt's buttons (deleted
            ones too), oldest first."""
            return sorted(
                (
                    m
                    for m in [*sim.messages(mover), *sim.deleted]
                    if m.chat_id == mover
                    and any(
                        str(b.get("callback_data", "")).startswith(prefix)
                        for row in m.sent_keyboard or []
                        for b in row
                    )
                ),
                key=lambda m: m.message_id,
            )

        await h.until(lambda: len(prompt_copies()) == 2, timeout=30)
        await h.delivered(record.id, timeout=30)
        assert sim.lost_calls == 1  # the prompt (the one message with buttons) went unanswered
        # Each copy went out with its buttons, in one call: nothing was edited to add them.
        with_buttons = [
            c for c in sim.calls_to(mover, "sendMessage") if c.params.get("reply_markup")
        ]
        assert [c.status for c in with_buttons] == [200, 200]
        assert not sim.calls_to(mover, "editMessageText")
        orphan, kept = prompt_copies()
        assert await _recorded(h, record.id, prompt_ref(mover)) == kept.message_id
        # The copy nothing records was found by its id, with no press: its buttons taken
        # off showed its text, so it was deleted. The recorded prompt keeps its buttons.
        await h.until(lambda: bool(sim.deleted), timeout=30)
        await h.delivered(record.id, timeout=30)
        assert sim.deleted == [orphan] and not orphan.keyboard
        assert kept in sim.messages(mover) and kept.keyboard and not sim.duplicate_keyboards()
        # Only that copy changed: every other id tried named no message of the bot's in
        # the chat, or one without buttons.
        tried = [c for c in sim.calls if c.method == "editMessageReplyMarkup"]
        assert [int(c.params["message_id"]) for c in tried if c.status == 200] == [
            orphan.message_id
        ]
        assert 1 <= len(tried) <= COPY_PROBES
        assert all(int(c.params["message_id"]) < kept.message_id for c in tried)
        deletes = [c for c in sim.calls if c.method == "deleteMessage"]
        assert [(int(c.params["message_id"]), c.status) for c in deletes] == [
            (orphan.message_id, 200)
        ]

        # The recorded prompt plays on.
        income = kept.button(h.tr("💰 Income"))["callback_data"]
        await h.press(actor, mover, kept.message_id, income)
        await h.delivered(record.id)
        after = await h.record(record.id)
        assert after is not None and after.context > record.context
        assert after.game().player(mover).coins == record.game().player(mover).coins + 1
        assert not kept.keyboard  # the game closed its prompt


async def test_a_copy_of_the_lobby_acts_while_current_and_is_closed_once_it_is_over(
    any_redis_url: str,
) -> None:
    sim = TelegramSim()
    group = -100945
    async with running_bot(any_redis_url, sim=sim) as h:
        users = players(3, first_id=9450)
        stranger = TgUser(9459, "Stranger")
        for u in [*users, stranger]:
            await h.say(u, u.id, "/start")
        sim.lose_next("sendMessage", group)  # the lobby, its answer lost
        await h.say(users[0], group, "/newgame")
        join = h.tr("✋ Join")
        await h.until(lambda: len(sim.with_buttons(group)) == 2, timeout=30)
        record = await h.record_of_chat(group)
        assert record is not None
        await h.delivered(record.id, timeout=30)
        orphan, kept = sim.copies(group)[0]
        assert await _recorded(h, record.id, f"{LOBBY_REF}@{group}") == kept.message_id
        join_data = orphan.button(join)["callback_data"]

        # Current: a Join on the copy seats the player, as one on the lobby would.
        await h.press(users[1], group, orphan.message_id, join_data)
        await h.delivered(record.id)
        assert users[1].first_name in kept.text
        # Refused for another reason (already in): the copy keeps its buttons.
        answer = await h.press(users[1], group, orphan.message_id, join_data)
        assert answer.get("text") == h.tr("You are already in this game.")
        await h.delivered(record.id)
        assert orphan.keyboard
        assert not sim.calls_to(group, "editMessageReplyMarkup")

        await h.press_text(users[2], group, join)
        await h.press(
            users[0], group, kept.message_id, kept.button(h.tr("▶️ Start"))["callback_data"]
        )
        await h.until(lambda: any(h.sim.with_buttons(u.id) for u in users))
        await h.delivered(record.id)
        live = (kept.text, kept.keyboard, kept.edits)
        # Over now: a Join on the copy is refused, changes nothing, and closes the copy.
        before = await _raw_record(h, record.id)
        answer = await h.press(stranger, group, orphan.message_id, join_data)
        assert answer.get("text") == h.tr("This game has already started.")
        await h.delivered(record.id)
        assert await _raw_record(h, record.id) == before
        assert not orphan.keyboard
        assert [c.status for c in sim.calls_to(group, "editMessageReplyMarkup")] == [200]
        # The game's own message (the lobby became the turn's) is left as it was.
        assert (kept.text, kept.keyboard, kept.edits) == live


async def test_a_stale_press_racing_the_edit_of_the_live_message_leaves_its_buttons(
    any_redis_url: str,
) -> None:
    # A block opens new answers on the same turn message; before their edit lands, another
    # player presses the old window's Pass there. The press is already answered, but the
    # message is the one the game edits: its new buttons stay.
    group = -100955
    async with running_bot(any_redis_url) as h:
        users = players(3, first_id=9550)
        game_id = await open_and_start(h, users, group)
        actor = next(u for u in users if h.sim.with_buttons(u.id))
        await h.press_text(actor, actor.id, h.tr("🤝 Foreign Aid"))
        await h.until(lambda: bool(h.sim.with_buttons(group)))
        await h.delivered(game_id)
        message = h.sim.with_buttons(group)[-1]
        block = message.buttons()[0]["callback_data"]
        pass_data = message.button(h.tr("✅ Pass"))["callback_data"]
        blocker, third = [u for u in users if u != actor]
        h.sim.delay("editMessageText", group, 1.5)  # the new answers are on their way
        await h.press(blocker, group, message.message_id, block)
        await h.until(lambda: h.sim.slow_calls > 0)
        assert message.button(h.tr("✅ Pass"))["callback_data"] == pass_data  # not landed yet
        answer = await h.press(third, group, message.message_id, pass_data)
        assert answer.get("text") == h.tr("Already answered.")
        await h.delivered(game_id, timeout=20)
        h.sim.delays.clear()
        labels = {b["text"] for b in answers(message)}
        assert labels == {h.tr("⚔️ Challenge"), h.tr("✅ Pass")}
        assert not h.sim.calls_to(group, "editMessageReplyMarkup")


async def queued_prompt(h: Harness, url: str, chat: int) -> tuple[Config, Store]:
    """A store and config of a test's own (its key prefix), with a prompt to `chat`
    ("choose", one Go button, reference prompt:<chat>) queued in the chat's outbox."""
    config = replace(h.config, key_prefix=f"d{uuid.uuid4().hex[:8]}")
    store = Store(connect(url), Keys(config.key_prefix))
    keyboard = [[{"text": "Go", "data": "x.1.G"}]]
    await _queue(store, chat_owner(chat), [Send(chat, "choose", keyboard, f"prompt:{chat}")])
    return config, store


async def test_a_process_that_dies_while_redis_refuses_writes_leaves_a_copy_closed_later(
    redis_server_url: str,
) -> None:
    # A message with buttons reaches Telegram while Redis refuses writes, so its id cannot
    # be recorded; the process then dies, and what it kept in memory with it. A new
    # process sends the message again: the chat shows it twice, both with buttons, and
    # Redis holds the second's id. A close of each (as a stale press queues) takes the
    # buttons off the copy only.
    async with running_bot(redis_server_url) as h:
        chat, owner = 9470, chat_owner(9470)
        config, store = await queued_prompt(h, redis_server_url, chat)
        first = _sender(config, store)
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
        again = _sender(config, store)
        await again.bot.initialize()
        await again.flush(owner)
        copies = [m for m in h.sim.messages(chat) if m.text == "choose"]
        assert len(copies) == 2
        assert [bool(m.keyboard) for m in copies] == [True, True]
        assert not h.sim.calls_to(chat, "editMessageText")
        assert await outbox_head(store, owner) is None
        recorded = await store.redis.hget(store.keys.messages(owner), "prompt:9470")
        assert recorded is not None and int(recorded) == copies[1].message_id
        await _queue(store, owner, [close_keyboard(chat, m.message_id) for m in copies])
        await again.flush(owner)
        await again.bot.shutdown()
        assert [bool(m.keyboard) for m in copies] == [False, True]
        assert [c.status for c in h.sim.calls_to(chat, "editMessageReplyMarkup")] == [200]
        assert await outbox_head(store, owner) is None
        await store.redis.aclose()


async def test_an_id_tried_for_a_copy_is_deleted_only_when_it_shows_the_copy_s_text(
    redis_server_url: str,
) -> None:
    # The ids tried for a copy (`close_copy`) may name other messages of the chat: the
    # message the game records is left alone; one of the bot's with buttons loses them,
    # and is deleted only if it then shows the copy's text; an id of no message changes
    # nothing.
    async with running_bot(redis_server_url) as h:
        chat, owner = 9480, chat_owner(9480)
        config, store = await queued_prompt(h, redis_server_url, chat)
        sender = _sender(config, store)
        await sender.bot.initialize()
        await sender.flush(owner)
        prompt = h.sim.last(chat)
        buttons = json.dumps({"inline_keyboard": [[{"text": "Go", "callback_data": "x.1.G"}]]})
        for text in ("choose", "settings"):
            h.sim.handle("sendMessage", {"chat_id": chat, "text": text, "reply_markup": buttons})
        copy, other = h.sim.messages(chat)[-2:]
        sent = Send(chat, "choose", [[{"text": "Go", "data": "x.1.G"}]], f"prompt:{chat}")
        tried = (prompt.message_id, copy.message_id, other.message_id, 999)
        await _queue(store, owner, [close_copy(chat, message_id, sent) for message_id in tried])
        await sender.flush(owner)
        await sender.bot.shutdown()
        assert h.sim.deleted == [copy]
        assert prompt in h.sim.messages(chat) and prompt.keyboard
        assert other in h.sim.messages(chat) and other.text == "settings" and not other.keyboard
        edited = [
            int(c.params["message_id"]) for c in h.sim.calls_to(chat, "editMessageReplyMarkup")
        ]
        assert sorted(edited) == sorted([copy.message_id, other.message_id, 999])
        assert await outbox_head(store, owner) is None
        await store.redis.aclose()


async def test_a_send_an_older_version_recorded_but_left_bare_gets_its_buttons(
    redis_server_url: str,
) -> None:
    # Before one-call sends, a message with buttons went out bare, its id was recorded,
    # and an edit then put its buttons on; a process stopped between the two (a deploy)
    # left it bare. The new sender does not send it again: it puts the buttons on.
    async with running_bot(redis_server_url) as h:
        chat, owner = 9480, chat_owner(9480)
        config, store = await queued_prompt(h, redis_server_url, chat)
        status, body = h.sim.handle("sendMessage", {"chat_id": chat, "text": "choose"})
        assert status == 200
        bare = int(body["result"]["message_id"])
        await store.delivery.renew_sender_lease("p:old", 5_000)
        assert await store.delivery.take_outbox_lock(owner, "p:old")
        head = await store.outboxes.outbox_pass(owner, "p:old", 60)
        assert head is not None
        [entry] = head.lanes[chat]
        await store.outboxes.outbox_sent(owner, entry.token, "prompt:9480", bare)
        await store.redis.delete(store.keys.sending(owner))  # the old process is gone
        sender = _sender(config, store)
        await sender.bot.initialize()
        await sender.flush(owner)
        await sender.bot.shutdown()
        copies = [m for m in h.sim.messages(chat) if m.text == "choose"]
        assert len(copies) == 1 and copies[0].keyboard
        assert [c.status for c in h.sim.calls_to(chat, "editMessageText")] == [200]
        assert await outbox_head(store, owner) is None
        await store.redis.aclose()


async def _nobody_refused(game_id: str, user_id: int, fallback: Fallback | None) -> None:
    raise AssertionError(f"no private message of {game_id} is refused here ({user_id})")


async def _queue(store: Store, owner: str, ops: Sequence[Op]) -> None:
    """Queue operations in an owner's outbox, as a step's commit does."""
    writes = Writes()
    for op in ops:
        writes.send(owner, op.to_op())
    await store.commits.commit(writes)


def _sender(config: Config, store: Store) -> Sender:
    """A sender of its own, as a process's, with no service behind it."""
    return Sender(make_bot(config, store), store, _nothing_moves, _no_deadline, _nobody_refused)
