"""Nobody acts outside their rights: admin checks in the game's own group, anonymous admins."""

from __future__ import annotations

import asyncio
import time

import pytest

from tests.bot.play import GROUP, open_lobby, players
from tests.telegram_sim.harness import TgUser, running_bot
from tgbot.config import DEFAULT_PERSON_UPDATES_PER_10S
from tgbot.contract.settings import ChatSettings
from tgbot.rendering.settings_screens import setting_label
from tgbot.storage.keys import chat_owner
from tgbot.telegram.handlers import THROTTLE_WINDOW_S

OTHER_GROUP = -100777
ANONYMOUS = TgUser(1087968824, "Group", None)  # GroupAnonymousBot, as Telegram sends it
CHANNEL_BOT = TgUser(136817688, "Channel", None)  # the sender of a channel's messages


def anonymous_update(h, chat_id: int, text: str, sender_chat: int) -> dict:  # type: ignore[no-untyped-def]
    sender = ANONYMOUS if sender_chat == chat_id else CHANNEL_BOT
    update = h.message_update(sender, chat_id, text, sender_chat=sender_chat)
    update["message"]["from"]["is_bot"] = True
    return update


async def test_cancel_is_checked_in_the_games_own_group(redis_server_url: str) -> None:
    async with running_bot(redis_server_url) as h:
        users = players(2)
        game_id = await open_lobby(h, users)
        lobby = next(m for m in h.sim.messages(GROUP) if m.buttons())
        mallory = TgUser(5150, "Mallory")
        h.sim.admins.add((OTHER_GROUP, mallory.id))
        await h.say(mallory, OTHER_GROUP, "/help")
        elsewhere = h.sim.last(OTHER_GROUP).message_id
        # Forged onto a message of a group where Mallory is an admin.
        answer = await h.press(mallory, OTHER_GROUP, elsewhere, f"{game_id}.0.X")
        assert answer["text"] == h.tr("This button is not valid.")
        # Pressed on the lobby itself, where Mallory is nobody.
        answer = await h.press(mallory, GROUP, lobby.message_id, f"{game_id}.0.X")
        assert answer["text"] == h.tr("Only the game's creator or an admin can cancel it.")
        record = await h.record(game_id)
        assert record is not None and record.status == "lobby"
        asked = {int(c.params["chat_id"]) for c in h.sim.calls if c.method == "getChatMember"}
        assert asked == {GROUP}
        # An admin of the game's group may.
        admin = TgUser(5151, "Admin")
        h.sim.admins.add((GROUP, admin.id))
        answer = await h.press(admin, GROUP, lobby.message_id, f"{game_id}.0.X")
        assert answer["text"] == h.tr("✖️ Cancelled.")
        record = await h.record(game_id)
        assert record is not None and record.status == "cancelled"


async def test_anonymous_admins_use_settings_and_cancel(redis_server_url: str) -> None:
    async with running_bot(redis_server_url) as h:
        users = players(2)
        await h.post(anonymous_update(h, GROUP, "/settings", GROUP))
        await h.replied(GROUP)
        settings_title = h.tr("⚙️ Settings for new games (admins can change them):")
        assert h.sim.last(GROUP).text == settings_title
        game_id = await open_lobby(h, users)
        # Writing as the group, they cannot open or join a game: no private chat, no seat.
        for command in ("/newgame", "/join"):
            await h.post(anonymous_update(h, GROUP, command, GROUP))
            await h.replied(GROUP)
            refusal = h.tr("To play, write as yourself, not as the group or a channel.")
            assert h.sim.last(GROUP).text == refusal
        # A channel writing in the group is no admin of it.
        await h.post(anonymous_update(h, GROUP, "/cancel", -100123))
        await h.replied(GROUP)
        assert h.sim.last(GROUP).text == h.tr("Only the game's creator or an admin can cancel it.")
        assert (await h.record(game_id)).status == "lobby"  # type: ignore[union-attr]
        await h.post(anonymous_update(h, GROUP, "/cancel", GROUP))
        await h.delivered(game_id)
        record = await h.record(game_id)
        assert record is not None and record.status == "cancelled"
        # Telegram was asked about the channel only: the group's own admins need no asking.
        asked = [c.params for c in h.sim.calls if c.method == "getChatMember"]
        assert [int(p["user_id"]) for p in asked] == [CHANNEL_BOT.id]


async def test_settings_presses_count_once_each_and_survive_not_modified(
    redis_server_url: str,
) -> None:
    async with running_bot(redis_server_url, instances=2) as h:
        admin = TgUser(6000, "Admin")
        h.sim.admins.add((GROUP, admin.id))
        await h.say(admin, GROUP, "/settings")
        screen = h.sim.last(GROUP)
        data = screen.button("🔻")["callback_data"]  # card to turn up: 45 -> 90 -> 20 -> 45
        urls = h.urls  # type: ignore[attr-defined]

        async def lose_card() -> str:
            return (await h.store.prefs.chat_settings(GROUP)).get("lose_card", "45")

        # One press delivered to both processes at once counts once.
        update = h.press_update(admin, GROUP, screen.message_id, data)
        results = await asyncio.gather(*(h.post(update, url=url) for url in urls))
        assert [r.status_code for r in results] == [200, 200]
        assert await lose_card() == "90"
        # Two presses at once, one per process, both count.
        presses = [h.press_update(admin, GROUP, screen.message_id, data) for _ in urls]
        await asyncio.gather(*(h.post(u, url=url) for u, url in zip(presses, urls, strict=True)))
        assert await lose_card() == "45"
        # The answer names the new value at once; Telegram refusing the screen's edit, which
        # the group's outbox makes later, changes nothing more (nothing is sent anew).
        sends = len(h.sim.calls_to(GROUP, "sendMessage"))
        t = h.catalogs.get("ka")
        for failure, value in (
            ("Bad Request: message is not modified", 90),
            ("Bad Request: message can't be edited", 20),
        ):
            await h.delivered(chat_owner(GROUP))  # the earlier presses' edits are made
            h.sim.fail_next("editMessageText", 400, failure, GROUP)
            update = h.press_update(admin, GROUP, screen.message_id, data)
            response = await h.post(update)
            assert response.status_code == 200
            assert h.sim.callback_answers[update["callback_query"]["id"]] == {
                "callback_query_id": update["callback_query"]["id"],
                "text": setting_label(t, ChatSettings(lose_card=value), "lose_card"),
            }
            await h.delivered(chat_owner(GROUP))
            assert h.sim.calls_to(GROUP, "editMessageText")[-1].status == 400
        assert await lose_card() == "20"
        assert len(h.sim.calls_to(GROUP, "sendMessage")) == sends


async def test_a_flood_of_presses_gets_one_notice_then_quiet(redis_server_url: str) -> None:
    async with running_bot(redis_server_url, person_rate=DEFAULT_PERSON_UPDATES_PER_10S) as h:
        spammer = TgUser(31339, "Spam")
        started = time.monotonic()
        answers = [await h.press(spammer, spammer.id, 1, "nonsense") for _ in range(40)]
        if time.monotonic() - started >= THROTTLE_WINDOW_S:
            return  # a slow machine crossed into a new window; nothing exact to check
        texts = [a.get("text") for a in answers]
        limit = DEFAULT_PERSON_UPDATES_PER_10S
        assert texts[:limit] == [h.tr("This button is not valid.")] * limit
        assert texts[limit] == h.tr("Too fast: wait a moment.")
        assert texts[limit + 1 :] == [None] * (40 - limit - 1)  # answered, silently
        # Someone else is not slowed down.
        calm = TgUser(31340, "Calm")
        answer = await h.press(calm, calm.id, 1, "nonsense")
        assert answer["text"] == h.tr("This button is not valid.")


@pytest.mark.expect_log(r"not applied, Telegram unreachable: Bad Gateway")
async def test_an_admin_check_telegram_cannot_answer_is_retried(redis_server_url: str) -> None:
    async with running_bot(redis_server_url) as h:
        admin = TgUser(6100, "Admin")
        h.sim.admins.add((GROUP, admin.id))
        h.sim.fail_next("getChatMember", 502, "Bad Gateway")
        update = h.message_update(admin, GROUP, "/settings")
        assert (await h.post(update)).status_code == 503  # Telegram sends it again later
        assert h.sim.messages(GROUP) == []
        assert (await h.post(update)).status_code == 200
        await h.replied(GROUP)
        settings_title = h.tr("⚙️ Settings for new games (admins can change them):")
        assert [m.text for m in h.sim.messages(GROUP)] == [settings_title]
