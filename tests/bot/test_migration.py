"""A group that becomes a supergroup mid-game: the game and its turn message follow it.

Telegram keeps the old group's messages in the old group (which answers every call with
migrate_to_chat_id, so none of them can be edited any more) and the supergroup numbers its
own messages from 1: an id of the old group names another message there, or none. The
game sends its turn message anew in the supergroup and edits that one from then on, and
the buttons left on the old group's messages change nothing.
"""

from __future__ import annotations

import random
import time
import uuid
from dataclasses import replace

import pytest

from tests.bot.play import open_and_start, open_lobby, play_to_end, players, press_random
from tests.store_probe import outbox_head
from tests.telegram_sim.harness import Harness, TgUser, running_bot
from tgbot.bootstrap import make_bot
from tgbot.contract.plan import Edit, Fallback, Send, close_keyboard
from tgbot.storage.clients import connect
from tgbot.storage.keys import Keys, chat_owner
from tgbot.storage.plan import Writes
from tgbot.storage.store import Store
from tgbot.telegram.message_refs import message_id, recorded_ids, ref_key
from tgbot.telegram.sender import Sender


async def migrate(
    h: Harness, users: list[TgUser], game_id: str, old: int, new: int, by_service: bool
) -> None:
    """The group becomes a supergroup; the bot learns it from the service message in the
    old group, or from Telegram refusing its next call there."""
    h.sim.migrate(old, new)
    if by_service:
        update = h.message_update(users[0], old, "x")
        update["message"].pop("text")
        update["message"]["migrate_to_chat_id"] = new
        assert (await h.post(update)).status_code == 200
    rng = random.Random(7)
    for _ in range(50):  # a step writes to the group (its turn message): refused there
        if await h.record_of_chat(new) is not None:
            break
        await press_random(h, users, rng, old)
        await h.delivered(game_id)
    record = await h.record(game_id)
    assert record is not None and record.chat_id == new


@pytest.mark.parametrize(
    ("by_service", "old", "new"), [(True, -4700, -1004700), (False, -4710, -1004710)]
)
async def test_a_game_played_through_a_migration_loses_and_repeats_nothing(
    redis_server_url: str, by_service: bool, old: int, new: int
) -> None:
    async with running_bot(redis_server_url) as h:
        users = players(3, first_id=8700 + (0 if by_service else 10))
        game_id = await open_and_start(h, users, group=old)
        rng = random.Random(26)
        for _ in range(4):
            await press_random(h, users, rng, old)
            await h.delivered(game_id)
        migrated_at = time.monotonic()
        await migrate(h, users, game_id, old, new, by_service)
        await h.delivered(game_id)

        # The buttons left in the old group change nothing, whoever presses them.
        record = await h.record(game_id)
        assert record is not None
        version = record.game().version
        for message in h.sim.with_buttons(old):
            for button in message.buttons():
                for u in users:
                    await h.press(u, old, message.message_id, button["callback_data"])
        record = await h.record(game_id)
        assert record is not None and record.game().version == version

        # The supergroup has the turn message as it stands (a fresh one): play on there.
        await play_to_end(h, users, rng, group=new)
        await h.delivered(game_id)

        ours = [m for m in h.sim.messages(new) if m.editable]  # not the service message
        assert ours, "nothing reached the supergroup"
        # No edit was lost: every edit went to a message the bot sent in the supergroup,
        # and every call there was answered (no "message to edit not found").
        sent_here = {m.message_id for m in ours}
        for call in h.sim.calls_to(new):
            assert call.status == 200 or _not_modified(h, call), call
            if call.method == "editMessageText":
                assert int(call.params["message_id"]) in sent_here, call
        # Nothing reached the old group after the migration.
        assert all(c.status == 400 for c in h.sim.calls_to(old) if c.at > migrated_at)
        # No message was duplicated, and only the final one still has buttons.
        texts = [m.text for m in ours]
        assert len(texts) == len(set(texts)), texts
        assert h.sim.with_buttons(new) == [ours[-1]] and "🏆" in ours[-1].text


def _not_modified(h: Harness, call: object) -> bool:
    """An edit that would not change its message (Telegram answers 400, and it is harmless)."""
    params = getattr(call, "params", {})
    if getattr(call, "method", "") != "editMessageText":
        return False
    chat, mid = int(params["chat_id"]), int(params["message_id"])
    found = [m for m in h.sim.messages(chat) if m.message_id == mid and m.editable]
    return bool(found) and found[0].text == params.get("text")


def test_a_groups_message_ids_are_kept_with_their_chat() -> None:
    turn_old, turn_new = Edit(-4800, "turn", "t"), Edit(-1004800, "turn", "t")
    prompt = Edit(42, "prompt:42", "p")
    assert ref_key(turn_old) == "turn@-4800" and ref_key(prompt) == "prompt:42"
    assert ref_key(Send(-4800, "plain")) is None
    refs = {"turn@-4800": 7, "prompt:42": 9}
    assert message_id(refs, turn_old) == 7 and message_id(refs, prompt) == 9
    assert message_id(refs, turn_new) is None  # the supergroup has no copy of message 7
    # An id noted before the ids named their chat is read until the message is sent again.
    assert message_id({"turn": 5}, turn_old) == 5
    assert message_id({"turn": 5, "turn@-1004800": 8}, turn_old) is None
    # What a close may not touch in a chat: its ids, and those that name no chat.
    refs = {"turn@-4800": 7, "prompt:42": 9, "turn": 5, "turn@-1004800": 8}
    assert recorded_ids(refs, -1004800) == {8, 9, 5}
    assert recorded_ids(refs, 42) == {9, 5}


async def test_a_close_queued_for_a_group_that_became_a_supergroup_stays_there(
    redis_server_url: str,
) -> None:
    # A stale press's close names a message of the old group by its id: moving the
    # outbox to the supergroup leaves it addressed to the old group (the same id names
    # another message in the supergroup, or none), where Telegram refuses it; it is
    # dropped, and the delivery goes on.
    old, new = -4740, -1004740
    async with running_bot(redis_server_url) as h:
        config = replace(h.config, key_prefix=f"m{uuid.uuid4().hex[:8]}")  # ours alone
        store = Store(connect(redis_server_url), Keys(config.key_prefix))
        owner = chat_owner(old)
        keyboard = [[{"text": "Go", "data": "x.1.G"}]]
        writes = Writes()
        writes.send(owner, Send(old, "kept", None, "lobby").to_op())  # one the game records
        writes.send(owner, Send(old, "old", keyboard).to_op())
        await store.commits.commit(writes)

        async def moved(old_chat: int, new_chat: int) -> None:
            """Nothing but the outbox follows the group here."""

        async def no_deadline(game_id: str, context: int, seconds: int) -> None:
            """No deadline waits for these messages."""

        sender = Sender(make_bot(config, store), store, moved, no_deadline, _nobody_refused)
        await sender.bot.initialize()
        await sender.flush(owner)
        message = next(m for m in h.sim.messages(old) if m.text == "old")
        h.sim.migrate(old, new)
        h.sim.chats[new].append(replace(message, chat_id=new, text="new"))  # same id there
        writes = Writes()
        writes.send(owner, close_keyboard(old, message.message_id).to_op())
        writes.send(owner, Send(old, "after").to_op())
        await store.commits.commit(writes)
        assert await store.outboxes.outbox_move_chat(owner, old, new) == 1  # the send only
        await store.redis.delete(store.keys.chat_pace(old))  # the close finds room at once
        await sender.flush(owner)
        await sender.bot.shutdown()
        assert await outbox_head(store, owner) is None
        assert [c.status for c in h.sim.calls_to(old, "editMessageReplyMarkup")] == [400]
        assert not h.sim.calls_to(new, "editMessageReplyMarkup")
        assert h.sim.messages(new)[-2].keyboard  # the supergroup's message of that id
        assert h.sim.messages(new)[-1].text == "after"
        await store.redis.aclose()


async def test_a_lobby_is_shown_anew_in_the_supergroup(redis_server_url: str) -> None:
    old, new = -4720, -1004720
    async with running_bot(redis_server_url) as h:
        users = players(3, first_id=8730)
        game_id = await open_lobby(h, users[:2], group=old)
        await h.delivered(game_id)
        await h.say(users[2], users[2].id, "/start")
        await migrate(h, users, game_id, old, new, by_service=True)
        await h.delivered(game_id)
        join = h.tr("✋ Join")
        assert h.has_button(new, join)
        # The old lobby's Join changes nothing; the new one's joins.
        await h.press_text(users[2], old, join)
        record = await h.record(game_id)
        assert record is not None and record.seat(users[2].id) is None
        await h.press_text(users[2], new, join)
        await h.delivered(game_id)
        record = await h.record(game_id)
        assert record is not None and record.seat(users[2].id) is not None
        lobby = [m for m in h.sim.messages(new) if m.editable]
        assert len(lobby) == 1 and users[2].first_name in lobby[0].text


async def _nobody_refused(game_id: str, user_id: int, fallback: Fallback | None) -> None:
    raise AssertionError(f"no private message of {game_id} is refused here ({user_id})")
