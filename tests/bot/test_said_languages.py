"""Who reads the service's refusals and notices in which language: a press's toast and a
private reply in the person's, a group's own refusal in the group's, a player's refusal
to a group command in that player's (rendered at the edge from what the service said)."""

from __future__ import annotations

import pytest

from tests.telegram_sim.harness import TgUser, free_port, running_bot, serve
from tests.telegram_sim.server import TelegramSim, build_sim_app
from tgbot.bootstrap import Runtime
from tgbot.config import Config
from tgbot.contract.outcomes import Refusal, Said
from tgbot.rendering import notices
from tgbot.service.results import Person, UserError

from .play import GROUP


async def test_refusals_and_notices_reach_each_reader_in_their_language(
    redis_server_url: str,
) -> None:
    async with running_bot(redis_server_url) as h:
        host, guest = TgUser(1000, "Host", "ka"), TgUser(1001, "Guest", "en")
        for user in (host, guest):
            await h.say(user, user.id, "/start")
        await h.say(host, GROUP, "/newgame")  # a Georgian group (no language chosen)
        await h.until(lambda: h.has_button(GROUP, h.tr("✋ Join")))

        # A press's toast: in the presser's language.
        answer = await h.press_text(guest, GROUP, h.tr("✋ Join"))
        assert answer["text"] == h.tr("✋ You joined the game.", "en")
        answer = await h.press_text(guest, GROUP, h.tr("✋ Join"))
        assert answer["text"] == h.tr("You are already in this game.", "en")
        answer = await h.press_text(guest, GROUP, h.tr("🤖 Add AI"))
        assert answer["text"] == h.tr("Only the game's creator can add or remove AI players.", "en")
        assert answer.get("show_alert") is True
        answer = await h.press_text(host, GROUP, h.tr("🤖 Add AI"))
        assert answer["text"] == h.tr("🤖 Done.")
        lobby = next(m for m in h.sim.messages(GROUP) if m.buttons())
        await h.until(lambda: "🤖 " + h.tr("Nino") in lobby.text)  # the group's language

        # The group's own refusal: in the group's language, whoever asked.
        await h.say(guest, GROUP, "/newgame")
        assert h.sim.last(GROUP).text == h.tr("A game is already open in this group: /board")
        # A player's refusal to a group command: in that player's language (as before).
        await h.say(guest, GROUP, "/join")
        assert h.sim.last(GROUP).text == h.tr("You are already in this game.", "en")
        await h.say(host, GROUP, "/join")
        assert h.sim.last(GROUP).text == h.tr("You are already in this game.")
        # A group with no game: in that group's language.
        await h.say(guest, -777, "/board")
        assert h.sim.last(-777).text == h.tr("No game here. Start one with /newgame.")

        # A private refusal with a number in it: in the person's language, counted.
        await h.say(guest, guest.id, "/replay")
        expected = h.catalogs.get("en").ngettext(
            "No finished game of yours is kept (records are kept for {days} day).",
            "No finished game of yours is kept (records are kept for {days} days).",
            30,
        )
        assert h.sim.last(guest.id).text == expected.format(days=30)

        # A language chosen: the toast says so in the new language, and what follows too.
        language = await h.press(guest, guest.id, 1, "lang.ka")
        assert language["text"] == h.tr("🌐 Language saved.")
        answer = await h.press_text(guest, GROUP, h.tr("✋ Join"))
        assert answer["text"] == h.tr("You are already in this game.")
        unknown = await h.press(guest, guest.id, 1, "lang.xx")
        assert unknown["text"] == h.tr("Unknown language.")


async def test_a_game_gone_while_asked_is_refused_in_the_askers_language(
    redis_server_url: str,
) -> None:
    """The game's record vanished (expired, say) between the look-up of the group's game
    and the join: refused as over in the language of the one who asked."""
    port = free_port()
    async with serve(build_sim_app(TelegramSim()), port):
        config = Config(
            bot_token="123456:gone",
            redis_url=redis_server_url,
            api_base_url=f"http://127.0.0.1:{port}/bot",
        )
        runtime = await Runtime.create(config)
        try:
            service = runtime.service
            host, guest = Person(1020, "Host", "ka"), Person(1021, "Guest", "en")
            for person in (host, guest):
                await service.lobby.private_started(person, None)
            await service.lobby.new_game(-1020, None, host)
            record = await service.queries.game_of_chat(-1020)
            assert record is not None
            await service.store.redis.delete(service.store.keys.game(record.id))
            with pytest.raises(UserError) as refused:
                await service.lobby.join(record.id, guest)
            assert refused.value.said == Said(Refusal.GAME_OVER, "en")
            words = notices.say(service.catalogs.get("en"), refused.value.said)
            assert words == "This game is over."
            await runtime.deliveries.drain(10)
        finally:
            await runtime.close()
