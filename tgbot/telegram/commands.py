"""The bot's commands, each once: where it works, whether it needs a seat at the table,
what the menus and /help say of it (msgids, rendered in tgbot.rendering), and what it runs.

`/help`, the Telegram command menus and the handlers (`handlers.Dispatcher`) all come
from `COMMANDS`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from telegram import (
    BotCommand,
    BotCommandScope,
    BotCommandScopeAllGroupChats,
    BotCommandScopeAllPrivateChats,
)

from ..contract.languages import N_
from ..rendering import guide, replies, settings_screens
from ..rendering.guide import CommandLine
from ..rendering.i18n import Translator
from ..service.game_service import AdminCheck, GameService, NeedsStart
from ..service.records import GameRecord
from ..service.results import Origin, Person, Reply


@dataclass(frozen=True, slots=True)
class CommandCall:
    """One command as its handler sees it: who sent it, where, with what arguments."""

    service: GameService
    person: Person
    origin: Origin
    group: bool  # sent in a group (else in the person's private chat)
    args: str  # the words after the command, one space apart
    t: Translator  # the chat's language: the group's, or the person's in private
    is_admin: AdminCheck  # whether the sender is an admin of a group (asked only when needed)
    title: str = ""  # the group's title (a /notify notice names the group)

    @property
    def chat_id(self) -> int:
        """The chat the command came from (and its reply goes to)."""
        return self.origin.chat_id


Run = Callable[[CommandCall], Awaitable[Reply | None]]


@dataclass(frozen=True, slots=True)
class Listing:
    """What a command says of itself in one kind of chat (msgids)."""

    menu: str | None  # its menu entry; None: it works, but neither menu nor /help lists it
    help: str | None = None  # its /help line; None: the menu lists it, /help does not


@dataclass(frozen=True, slots=True)
class Command:
    """A command: its name, what it runs, and where it works (None: not in that kind of chat)."""

    name: str
    run: Run
    group: Listing | None = None
    private: Listing | None = None
    seated: bool = False  # needs a person who can sit at the table and get cards privately

    def listing_in(self, group: bool) -> Listing | None:
        """What it says of itself in a group (or in private); None where it does not work."""
        return self.group if group else self.private


# ---- what the commands run ------------------------------------------------------------


async def _help(c: CommandCall) -> Reply:
    return Reply(help_text(c.t))


async def _rules(c: CommandCall) -> Reply:
    # The group's variant; in private, the variant of the game one is in.
    if c.group:
        first, *more = await c.service.queries.group_rules(c.chat_id, c.t)
    else:
        first, *more = await c.service.queries.person_rules(c.person, c.t)
    return Reply(first, more=tuple(more))


async def _group_game(c: CommandCall) -> GameRecord | None:
    return await c.service.queries.game_of_chat(c.chat_id, c.origin.update)


async def _newgame(c: CommandCall) -> Reply | None:
    origin = c.origin
    return await c.service.lobby.new_game(
        c.chat_id, origin.thread_id, c.person, origin.update, c.title
    )


async def _notify(c: CommandCall) -> Reply:
    return await c.service.lobby.toggle_notify(c.chat_id, c.person, c.service.lobby.start_link())


async def _join(c: CommandCall) -> Reply | None:
    record = await _group_game(c)
    if record is None:
        return Reply(replies.no_game_here(c.t))
    try:
        await c.service.lobby.join(record.id, c.person, c.origin.update, reply_to=c.origin)
    except NeedsStart:  # the bot may not write to them yet: a deep link, in their language
        t = await c.service.prefs.translator_for(c.person)
        screen = replies.open_the_bot_first(t, c.person.name, c.service.lobby.join_link(record.id))
        return Reply(screen.text, screen.keyboard)
    return None


async def _leave(c: CommandCall) -> Reply | None:
    if c.group:
        record = await _group_game(c)
        if record is None:
            return Reply(replies.no_game_here(c.t))
    else:
        record = await c.service.queries.game_of_person(c.person.id, c.origin.update)
        if record is None:
            return Reply(replies.not_in_a_game(c.t))
    await c.service.lobby.leave_lobby_or_game(record.id, c.person, c.origin.update, c.origin)
    return None


async def _startgame(c: CommandCall) -> Reply | None:
    record = await _group_game(c)
    if record is None:
        return Reply(replies.no_game_here(c.t))
    await c.service.lobby.start_game(record.id, c.person, c.origin.update)
    return None


async def _cancel(c: CommandCall) -> Reply | None:
    record = await _group_game(c)
    if record is None:
        return Reply(replies.no_game_here(c.t))
    await c.service.lobby.cancel(record.id, c.person, c.is_admin, c.origin.update)
    return None


async def _board(c: CommandCall) -> Reply:
    return await c.service.queries.board(c.chat_id)


async def _top(c: CommandCall) -> Reply:
    if c.group:
        return await c.service.queries.leaderboard(c.chat_id)
    return await c.service.queries.global_leaderboard(c.t)  # the board of all groups


async def _claims(c: CommandCall) -> Reply:
    if c.group:
        record = await _group_game(c)
    else:
        record = await c.service.queries.game_of_person(c.person.id, c.origin.update)
        if record is None:  # /newgame, the group's advice, does not work here
            return Reply(replies.not_in_a_game(c.t))
    return c.service.history.claims(record, c.t)


async def _replay(c: CommandCall) -> None:
    if c.group:  # the group's last game, public log only
        await c.service.history.replay_for_group(c.origin, c.t)
    else:  # the public log, then the person's own view
        await c.service.history.replay_for_person(c.person, c.origin, c.args)


async def _settings(c: CommandCall) -> Reply:
    if not await c.is_admin(c.chat_id):
        return Reply(replies.settings_for_admins(c.t))
    screen = settings_screens.settings_screen(c.t, await c.service.prefs.chat_settings(c.chat_id))
    return Reply(screen.text, screen.keyboard)


async def _start(c: CommandCall) -> None:
    await c.service.lobby.private_started(c.person, c.args or None, c.origin)


async def _stats(c: CommandCall) -> Reply:
    return await c.service.queries.my_stats(c.person)


async def _language(c: CommandCall) -> Reply:
    screen = settings_screens.language_screen(c.t)
    return Reply(screen.text, screen.keyboard)


# ---- the table ------------------------------------------------------------------------

# In this order in the menus and in /help (private-only commands first: /start leads there).
COMMANDS: tuple[Command, ...] = (
    Command(
        "start",
        _start,
        private=Listing(N_("let the bot write to you"), N_("let me write to you (needed to play)")),
    ),
    Command(
        "language",
        _language,
        private=Listing(N_("choose your language"), N_("choose your language")),
    ),
    Command(
        "stats",
        _stats,
        private=Listing(
            N_("your rating, games and bluffs"), N_("your rating, games, wins and bluffs")
        ),
    ),
    Command(
        "newgame",
        _newgame,
        group=Listing(N_("open a game of Coup"), N_("open a game")),
        seated=True,
    ),
    Command(
        "join",
        _join,
        group=Listing(N_("join the open game"), N_("join the open game")),
        seated=True,
    ),
    Command(
        "leave",
        _leave,
        group=Listing(N_("leave the game"), N_("leave the game")),
        private=Listing(N_("leave your game"), N_("leave your game")),
        seated=True,
    ),
    Command(
        "startgame",
        _startgame,
        group=Listing(N_("start the game now"), N_("start now")),
        seated=True,
    ),
    Command(
        "cancel",
        _cancel,
        group=Listing(N_("cancel the game"), N_("cancel the game (its creator or an admin)")),
    ),
    Command(
        "notify",
        _notify,
        group=Listing(
            N_("tell me when a game opens here"),
            N_("a private message when a game opens here (again: off)"),
        ),
        seated=True,  # someone who can be written to privately, not a group or channel
    ),
    Command("board", _board, group=Listing(N_("show the table"), N_("show the table again"))),
    Command(
        "claims",
        _claims,
        group=Listing(
            N_("who claimed which character"), N_("who has claimed which character in this game")
        ),
        private=Listing(None),
    ),
    Command(
        "top",
        _top,
        group=Listing(N_("the group's best players"), N_("the group's best players by rating")),
        private=Listing(N_("the best players of all groups"), N_("the best players of all groups")),
    ),
    Command(
        "replay",
        _replay,
        group=Listing(N_("replay the last game"), N_("the public log of the group's last game")),
        private=Listing(N_("replay your last game"), N_("replay your last game")),
    ),
    Command(
        "settings",
        _settings,
        group=Listing(
            N_("time, language, answers, variant"),
            N_("time limits, language, answers, variant (admins)"),
        ),
    ),
    Command(
        "rules",
        _rules,
        group=Listing(N_("the rules"), N_("the rules")),
        private=Listing(N_("the rules"), N_("the rules")),
    ),
    Command(
        "help",
        _help,
        group=Listing(N_("how to play")),
        private=Listing(N_("how to play"), N_("how to play")),
    ),
)


def listing(group: bool) -> list[CommandLine]:
    """The commands a kind of chat lists (menu and /help), in the table's order."""
    lines = []
    for command in COMMANDS:
        said = command.listing_in(group)
        if said is not None and said.menu is not None:
            lines.append(CommandLine(command.name, said.menu, said.help))
    return lines


def help_text(t: Translator) -> str:
    """/help, from the table."""
    return guide.help_text(t, listing(group=True), listing(group=False))


def menus(t: Translator) -> list[tuple[BotCommandScope, list[BotCommand]]]:
    """The command menus of groups and of private chats, in one language, from the table."""
    scopes: list[tuple[BotCommandScope, bool]] = [
        (BotCommandScopeAllGroupChats(), True),
        (BotCommandScopeAllPrivateChats(), False),
    ]
    return [
        (scope, [BotCommand(name, text) for name, text in guide.menu_entries(t, listing(group))])
        for scope, group in scopes
    ]
