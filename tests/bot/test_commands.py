"""The command table: /help, the menus and the handlers come from it and agree; commands
are matched as python-telegram-bot's CommandHandler matches them."""

from __future__ import annotations

import json
from typing import Any

from tests.telegram_sim.harness import Harness, TgUser, running_bot
from tests.telegram_sim.server import BOT_USERNAME
from tgbot.config import DEFAULT_LOCALES
from tgbot.rendering import guide, replies
from tgbot.rendering.i18n import Catalogs, Translator
from tgbot.telegram.commands import COMMANDS, help_text, listing, menus

from .play import GROUP

LANGUAGES = ("ka", "en")


def _listed(raw: Any) -> Any:
    return json.loads(raw) if isinstance(raw, str) else raw


def published_menus(h: Harness) -> dict[tuple[str | None, str], list[tuple[str, str]]]:
    """The menus the bot set, by (language, scope type)."""
    found = {}
    for call in h.sim.calls:
        if call.method == "setMyCommands":
            scope = _listed(call.params["scope"])["type"]
            listed = _listed(call.params["commands"])
            key = (call.params.get("language_code"), scope)
            found[key] = [(c["command"], c["description"]) for c in listed]
    return found


def menu_of(t: Translator, in_group: bool) -> list[tuple[str, str]]:
    """The menu of groups (or of private chats) as the bot sets it."""
    scope = "all_group_chats" if in_group else "all_private_chats"
    commands = next(listed for s, listed in menus(t) if s.type == scope)
    return [(c.command, c.description) for c in commands]


def test_help_and_the_menus_list_the_table() -> None:
    catalogs = Catalogs(DEFAULT_LOCALES)
    for lang in LANGUAGES:
        t = catalogs.get(lang)
        head, group, private, _ = help_text(t).split("\n\n")
        assert head == t.gettext("🎲 Coup: a card game of bluffing for 2–6 players.")
        for section, in_group in ((group, True), (private, False)):
            title, *lines = section.split("\n")
            assert title == t.gettext("In a group:" if in_group else "In private:")
            expected = [
                f"/{c.name}: {t.gettext(said.help)}"
                for c in COMMANDS
                if (said := c.listing_in(in_group)) is not None and said.help is not None
            ]
            assert lines == expected
            menu = menu_of(t, in_group)
            assert menu == guide.menu_entries(t, listing(in_group))
            offered = [
                (c.name, t.gettext(said.menu))
                for c in COMMANDS
                if (said := c.listing_in(in_group)) is not None and said.menu is not None
            ]
            assert menu == offered
            # Every /help line is in the menu too, and in the same order.
            helped = [line.split(":")[0][1:] for line in lines]
            assert helped == [name for name, _ in menu if name in helped]
    names = [c.name for c in COMMANDS]
    assert len(names) == len(set(names))  # each command once
    for command in COMMANDS:
        assert command.group is not None or command.private is not None, command.name
        for said in (command.group, command.private):
            assert said is None or said.help is None or said.menu is not None, command.name
    assert {c.name for c in COMMANDS if c.seated} == {
        "newgame",
        "join",
        "leave",
        "startgame",
        "notify",
    }


async def test_the_bot_publishes_the_tables_menus_in_each_language(
    redis_server_url: str,
) -> None:
    async with running_bot(redis_server_url) as h:
        published = published_menus(h)
        for lang in (*LANGUAGES, None):
            t = h.catalogs.get(lang or "ka")
            for scope, commands in menus(t):
                assert published[(lang, scope.type)] == [
                    (c.command, c.description) for c in commands
                ], (lang, scope.type)
        # The private menu starts with /start; both end with /help.
        assert published[("ka", "all_private_chats")][0][0] == "start"
        assert published[("ka", "all_group_chats")][-1][0] == "help"


async def _answered(h: Harness, user: TgUser, chat: int, text: str) -> bool:
    """Whether a command gets a message in its chat: the quiet ones are followed by /help,
    whose reply is then the only new message (replies to a chat keep their order)."""
    before = len(h.sim.messages(chat))
    await h.say(user, chat, text)
    await h.say(user, chat, "/help")
    new = h.sim.messages(chat)[before:]
    assert new and new[-1].text == help_text(h.catalogs.get("ka"))
    return len(new) > 1


async def test_each_command_works_where_the_table_says_and_only_there(
    redis_server_url: str,
) -> None:
    async with running_bot(redis_server_url) as h:
        person = TgUser(4100, "Nino", "ka")
        await h.say(person, person.id, "/start")
        for command in COMMANDS:
            if command.name == "newgame":
                continue  # it opens a lobby; the flows' tests drive it
            for chat, said in ((GROUP, command.group), (person.id, command.private)):
                answered = await _answered(h, person, chat, f"/{command.name}")
                # A group's command sent in private gets a one-line hint (UX.md).
                hint = chat == person.id and said is None
                assert answered == (said is not None or hint), (command.name, chat)
                if hint:
                    said_there = h.sim.messages(chat)[-2].text
                    assert said_there == replies.group_only(
                        h.catalogs.get("ka"), f"/{command.name}"
                    )


async def test_commands_match_as_telegram_sends_them(redis_server_url: str) -> None:
    async with running_bot(redis_server_url) as h:
        person = TgUser(4200, "Levan", "ka")
        rules = guide.rules_text(h.catalogs.get("ka"))
        for text in (f"/rules@{BOT_USERNAME}", "/RULES", f"/Rules@{BOT_USERNAME.upper()}"):
            assert await _answered(h, person, person.id, text), text
            assert h.sim.messages(person.id)[-3].text.startswith(rules)  # then the variants
        for quiet in ("/rules@another_bot", "/nonsense", "rules", "hello /rules"):
            assert not await _answered(h, person, person.id, quiet), quiet
        # A group's command in private: a hint, in whatever case it was typed.
        assert await _answered(h, person, person.id, f"/Settings@{BOT_USERNAME}")
        assert h.sim.messages(person.id)[-2].text.startswith("/Settings")
        assert not await _answered(h, person, GROUP, "/board@another_bot")
        assert await _answered(h, person, GROUP, f"/board@{BOT_USERNAME}")


async def test_each_button_family_takes_only_its_own_presses(redis_server_url: str) -> None:
    async with running_bot(redis_server_url) as h:
        person = TgUser(4300, "Tamar", "en")
        await h.say(person, person.id, "/language")
        screen = h.sim.last(person.id)
        not_valid = {"text": h.tr("This button is not valid.", "en"), "show_alert": True}

        def said(answer: dict[str, Any]) -> dict[str, Any]:
            return {k: v for k, v in answer.items() if k in ("text", "show_alert")}

        # A press without data matches no family's pattern: it is a game's button, and none.
        for data in ("", "language.en", "cfg.turn", "lang"):
            answer = await h.press(person, person.id, screen.message_id, data)
            assert said(answer) == not_valid, data
        # The replay family takes its prefix, even with no game after it.
        answer = await h.press(person, person.id, screen.message_id, "rp.")
        none_kept = h.catalogs.get("en").ngettext(
            "No finished game of yours is kept (records are kept for {days} day).",
            "No finished game of yours is kept (records are kept for {days} days).",
            30,
        )
        assert said(answer) == {"text": none_kept.format(days=30), "show_alert": True}
        answer = await h.press(person, person.id, screen.message_id, "lang.ka")
        assert answer["text"] == h.tr("🌐 Language saved.")
        assert (await h.store.prefs.user_prefs(person.id))["lang"] == "ka"
        # The language screen's buttons count only in the person's own chat.
        answer = await h.press(person, GROUP, screen.message_id, "lang.en")
        assert said(answer) == {"text": h.tr("This button is not valid."), "show_alert": True}
        assert (await h.store.prefs.user_prefs(person.id))["lang"] == "ka"
