"""A group's command sent in private gets a hint; a lobby opened by someone who never
started the bot names them and offers them the deep link."""

from __future__ import annotations

from tests.bot.play import GROUP, players
from tests.telegram_sim.harness import TgUser, running_bot
from tests.telegram_sim.server import BOT_USERNAME
from tgbot.rendering import notices, replies
from tgbot.telegram.commands import COMMANDS


async def test_a_group_command_in_private_gets_a_one_line_hint(redis_server_url: str) -> None:
    async with running_bot(redis_server_url) as h:
        group_only = [c.name for c in COMMANDS if c.private is None]
        assert {"newgame", "join", "board", "settings", "startgame", "cancel"} <= set(group_only)
        for user in (TgUser(7001, "Nino", "ka"), TgUser(7002, "Walter", "en")):
            t = h.catalogs.get(user.language_code or "ka")
            for name in group_only:
                before = len(h.sim.messages(user.id))
                await h.say(user, user.id, f"/{name}")
                assert len(h.sim.messages(user.id)) == before + 1, name
                text = h.sim.last(user.id).text
                assert text == replies.group_only(t, f"/{name}")
                assert "\n" not in text
        # The commands that work in private still do what they did.
        await h.say(user, user.id, "/help")
        assert h.sim.last(user.id).text != replies.group_only(t, "/help")


async def test_a_lobby_opened_by_someone_who_never_started_the_bot(redis_server_url: str) -> None:
    async with running_bot(redis_server_url) as h:
        opener = TgUser(7100, "Nino", "ka")
        await h.say(opener, GROUP, "/newgame")
        record = await h.record_of_chat(GROUP)
        assert record is not None
        await h.delivered(record.id)
        t = h.catalogs.get("ka")
        lobby = next(m for m in h.sim.messages(GROUP) if h.tr("✋ Join") in str(m.keyboard))
        # The lobby says who opened it, and that they are not in yet.
        assert "Nino" in lobby.text.splitlines()[0]
        assert notices.opener_not_in_yet(t, "Nino") in lobby.text
        # The opener is offered the deep link, as Join does.
        link = f"https://t.me/{BOT_USERNAME}?start=j{record.id}"
        offers = [m for m in h.sim.messages(GROUP) if link in str(m.keyboard)]
        assert offers, [m.text for m in h.sim.messages(GROUP)]
        assert "Nino" in offers[0].text
        # Start in private seats them in the lobby; the lobby says so.
        await h.say(opener, opener.id, f"/start j{record.id}")
        await h.delivered(record.id)
        record = await h.record_of_chat(GROUP)
        assert record is not None and [s.id for s in record.players] == [opener.id]
        assert notices.opener_not_in_yet(t, "Nino") not in lobby.text
        assert "1. Nino" in lobby.text
        # With a second player the opener can start it.
        other = players(1, first_id=7200)[0]
        await h.say(other, other.id, "/start")
        await h.press_text(other, GROUP, h.tr("✋ Join"))
        answer = await h.press_text(opener, GROUP, h.tr("▶️ Start"))
        assert answer.get("text") == h.tr("▶️ Starting.")


async def test_notify_tells_who_asked_when_a_game_opens_capped(redis_server_url: str) -> None:
    async with running_bot(redis_server_url) as h:
        nino, walter, ghost = (
            TgUser(7301, "Nino"),
            TgUser(7302, "Walter", "en"),
            TgUser(7303, "Gio"),
        )
        opener = TgUser(7304, "Levan")
        for u in (nino, walter, opener):
            await h.say(u, u.id, "/start")
        private_before = {u.id: len(h.sim.messages(u.id)) for u in (nino, walter, ghost, opener)}
        ka, en = h.catalogs.get("ka"), h.catalogs.get("en")
        for u in (nino, walter):
            await h.say(u, GROUP, "/notify")
        assert h.sim.last(GROUP).text == notices.notify_toggled(en, "Walter", True, True, "").text
        # Someone who never started the bot is shown where to.
        await h.say(ghost, GROUP, "/notify")
        assert "?start=" in str(h.sim.last(GROUP).keyboard)
        key = h.store.keys.notify_list(GROUP)
        assert await h.store.redis.ttl(key) > 0
        await h.say(opener, GROUP, "/newgame")
        record = await h.record_of_chat(GROUP)
        assert record is not None
        await h.delivered(record.id)
        assert h.sim.last(nino.id).text == notices.game_opened_notice(ka, "Levan", "Coup group")
        assert h.sim.last(walter.id).text == notices.game_opened_notice(en, "Levan", "Coup group")
        assert len(h.sim.messages(ghost.id)) == private_before[ghost.id]  # never started
        assert len(h.sim.messages(opener.id)) == private_before[opener.id]  # opened it
        # A busy group: the next lobby within ten minutes tells nobody again.
        await h.say(opener, GROUP, "/cancel")
        await h.delivered(record.id)
        await h.say(opener, GROUP, "/newgame")
        record = await h.record_of_chat(GROUP)
        assert record is not None
        await h.delivered(record.id)
        assert len(h.sim.messages(nino.id)) == private_before[nino.id] + 1
        assert len(h.sim.messages(walter.id)) == private_before[walter.id] + 1
        # /notify again: off.
        await h.say(nino, GROUP, "/notify")
        assert h.sim.last(GROUP).text == notices.notify_toggled(ka, "Nino", False, True, "").text
        assert nino.id not in await h.store.prefs.notify_list(GROUP)
        assert walter.id in await h.store.prefs.notify_list(GROUP)
