"""The service's refusals and notices in words, and the few lines it queues itself.

The service says what happened (`contract/outcomes.py`); this says it in one language.
"""

from __future__ import annotations

from ..contract.languages import N_
from ..contract.outcomes import Notice, Refusal, Said
from .i18n import Catalogs, Translator
from .ui import Screen

REFUSALS: dict[Refusal, str] = {
    Refusal.GAME_OVER: N_("This game is over."),
    Refusal.OUT_OF_DATE: N_("This button is out of date."),
    Refusal.NOT_VALID: N_("This button is not valid."),
    Refusal.NO_GAME_HERE: N_("No game here. Start one with /newgame."),
    Refusal.GAME_OPEN_IN_GROUP: N_("A game is already open in this group: /board"),
    Refusal.ALREADY_STARTED: N_("This game has already started."),
    Refusal.ALREADY_IN_GAME: N_("You are already in this game."),
    Refusal.IN_ANOTHER_GAME: N_("You are already playing in another game."),
    Refusal.GAME_FULL: N_("The game is full (6 players)."),
    Refusal.NOT_IN_GAME: N_("You are not in this game."),
    Refusal.ALREADY_OUT: N_("You are already out of this game."),
    Refusal.NOT_IN_LOBBY: N_("Only players in the lobby can start it."),
    Refusal.TOO_FEW_PLAYERS: N_("At least 2 players are needed."),
    Refusal.NO_HUMAN: N_("A game needs at least one human player."),
    Refusal.NOT_CREATOR: N_("Only the game's creator can add or remove AI players."),
    Refusal.NO_AI_TO_REMOVE: N_("There is no AI player to remove."),
    Refusal.NOT_CREATOR_OR_ADMIN: N_("Only the game's creator or an admin can cancel it."),
    Refusal.NOT_A_PLAYER_OF_FINISHED: N_(
        "Only this game's players can use “Play again”. Open a new game with /newgame."
    ),
    Refusal.NOT_YOURS_TO_ANSWER: N_("It is not yours to answer."),
    Refusal.CANNOT_ANSWER_THAT_WAY: N_("You cannot answer that way."),
    Refusal.ALREADY_ANSWERED: N_("Already answered."),
    Refusal.ALREADY_DECIDED: N_("Already decided."),
    Refusal.MORE_TIME_USED: N_("You have already used your extra time in this game."),
    Refusal.NOT_WAITING_FOR_YOU: N_("Nobody is waiting for you now."),
    Refusal.UNKNOWN_LANGUAGE: N_("Unknown language."),
    Refusal.NO_SUCH_GAME_ID: N_("There is no game with that id."),
    Refusal.NOT_A_PLAYER_OF_REPLAY: N_("Only the players of a game can ask for its replay."),
    Refusal.MUST_COUP: N_("With 10 or more coins you must stage a Coup."),
    Refusal.CANNOT_AFFORD: N_("You do not have enough coins."),
    Refusal.BAD_TARGET: N_("You cannot target that player."),
    Refusal.NOT_YOUR_DECISION: N_("It's not your turn to decide."),
    Refusal.NOT_IN_VARIANT: N_("That is not part of this game's variant."),
    Refusal.SAME_ALLEGIANCE: N_("That player is on your side."),
    Refusal.RESERVE_EMPTY: N_("The Reserve is empty."),
    Refusal.NOT_ALLOWED_NOW: N_("That is not allowed now."),
}

NOTICES: dict[Notice, str] = {
    Notice.STARTING: N_("▶️ Starting."),
    Notice.CANCELLED: N_("✖️ Cancelled."),
    Notice.AI_CHANGED: N_("🤖 Done."),
    Notice.DECIDED: N_("✔️ Done."),
    Notice.LANGUAGE_SAVED: N_("🌐 Language saved."),
    Notice.REPLAY_SENT: N_("📬 I sent you the replay in private."),
    Notice.NEW_GAME_OPENED: N_("🆕 New game opened."),
    Notice.JOINED: N_("✋ You joined the game."),
    Notice.LEFT: N_("🚪 You left the game."),
    Notice.MORE_TIME: N_("⏳ 30 seconds more. Only once per game."),
}

# The AI players' names, by seat (-1, -2, ...), in the group's language.
AI_NAMES = [N_("Nino"), N_("Levan"), N_("Tamar"), N_("Giorgi"), N_("Mariam")]


def said_text(catalogs: Catalogs, said: Said) -> str:
    """A refusal or notice of the service in words, in the language it resolved."""
    return say(catalogs.get(said.lang), said)


def say(t: Translator, said: Said) -> str:
    """A refusal or notice of the service in words (in `t`'s language)."""
    what = said.what
    if what is Refusal.NO_RECORD_KEPT:
        return t.ngettext(
            "No finished game of yours is kept (records are kept for {days} day).",
            "No finished game of yours is kept (records are kept for {days} days).",
            said.days,
        ).format(days=said.days)
    if isinstance(what, Refusal):
        return t.gettext(REFUSALS[what])
    return t.gettext(NOTICES[what])


def ai_name(t: Translator, seat_id: int) -> str:
    """An AI player's name at the table, from its seat id (-1 is Nino, -2 Levan, ...)."""
    return "🤖 " + t.gettext(AI_NAMES[(-seat_id - 1) % len(AI_NAMES)])


def new_game_opened_by(t: Translator, name: str) -> str:
    """The line a finished game's message ends with once Play again opened the next one."""
    return t.gettext("🆕 {name} opened a new game.").format(name=name)


def unreachable_note(t: Translator, player: str, bot_username: str) -> str:
    """What the group reads when a player cannot be written to privately."""
    return t.gettext(
        "📵 {player}, I can't message you privately. Open https://t.me/{bot}?start=hi and "
        "press Start; until then your turns time out."
    ).format(player=player, bot=bot_username)


def question_closed(t: Translator) -> str:
    """A private question's last look when the step says nothing of the reader's own."""
    return t.gettext("☑️ This question is closed.")


def opener_not_in_yet(t: Translator, name: str) -> str:
    """The lobby's last line while whoever opened it cannot be written to privately yet."""
    return t.gettext(
        "📵 {name} is not in yet: I can only deal cards to those who pressed Start in a "
        "private chat with me."
    ).format(name=name)


def notify_toggled(t: Translator, name: str, on: bool, reachable: bool, link: str) -> Screen:
    """The group's reply to /notify: on or off for that person; one the bot cannot write
    to yet gets the button to start it (they are told only once they have)."""
    if not on:
        text = t.gettext("🔕 {name}, I will no longer tell you when a game opens here.")
        return Screen(text.format(name=name))
    text = t.gettext(
        "🔔 {name}, I will tell you privately when a game opens here (/notify again stops it)."
    ).format(name=name)
    if reachable:
        return Screen(text)
    text += "\n" + t.gettext("First open the bot and press Start, so I can message you.")
    return Screen(text, [[{"text": t.gettext("🤖 Open the bot"), "url": link}]])


def game_opened_notice(t: Translator, opener: str, group: str) -> str:
    """The private notice (/notify) that a game opened in a group."""
    if group:
        return t.gettext("🔔 {name} opens a game of Coup in “{group}”: join there.").format(
            name=opener, group=group
        )
    return t.gettext("🔔 {name} opens a game of Coup in your group: join there.").format(
        name=opener
    )
