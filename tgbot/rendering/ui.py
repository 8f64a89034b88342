"""What every screen is made of: screens and keyboards, durations, the words and marks
that both the group's table and the private prompts show (decision buttons, sides)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime

from ..contract import plan
from ..engine import (
    Action,
    Allegiance,
    Block,
    Challenge,
    Character,
    Decision,
    ForceExchange,
    KeepCards,
    LetKeep,
    LoseCard,
    Pass,
    ShowCard,
    TakeAction,
    Window,
)
from .action_words import ACTION_WORDS
from .forms import Case, character_in
from .i18n import Translator
from .texts import Names, character_name

Button = dict[str, str]  # {"text", "data"}, {"text", "url"} or {"text", "web_app"}
Keyboard = plan.Keyboard  # rows of Buttons: one definition, the plan's


@dataclass(slots=True)
class Screen:
    """A message to show: text and an optional inline keyboard."""

    text: str
    keyboard: Keyboard = field(default_factory=list)


def then(*parts: str) -> str:
    """One message of several parts, a blank line between each (empty parts left out)."""
    return "\n\n".join(part for part in parts if part)


def lines(of: Sequence[str]) -> str:
    """One text of lines (a record's story, kept as its lines)."""
    return "\n".join(of)


def rows_of(items: Sequence[Button], per_row: int = 2) -> Keyboard:
    """Lay buttons out two to a row (phone screens are narrow)."""
    return [list(items[i : i + per_row]) for i in range(0, len(items), per_row)]


def seconds_text(t: Translator, seconds: int) -> str:
    """A short duration."""
    if seconds >= 120 and seconds % 60 == 0:
        minutes = seconds // 60
        return t.ngettext("{n} min", "{n} min", minutes).format(n=minutes)
    return t.ngettext("{n} s", "{n} s", seconds).format(n=seconds)


# The mark of each allegiance on the table (the legend under it names them).
ALLEGIANCE_MARKS = {Allegiance.LOYALIST: "🔵", Allegiance.REFORMIST: "🔴"}


def decision_label(t: Translator, decision: Decision, names: Names) -> str:
    """The text of the button for a decision."""
    if isinstance(decision, TakeAction):
        if decision.target is not None:
            return names.get(decision.target, str(decision.target))
        return ACTION_BUTTONS[decision.action](t)
    if isinstance(decision, Challenge):
        return t.gettext("⚔️ Challenge")
    if isinstance(decision, Pass):
        return t.gettext("✅ Pass")
    if isinstance(decision, Block):
        # TRANSLATORS: a button; {character_ins} is the character in the instrumental
        # case ("with the Captain"). Keep it short: the character must not be cut off on a phone.
        return t.gettext("🛡 Block: {character_ins}").format(
            character_ins=character_in(t, decision.character, Case.INSTRUMENTAL)
        )
    if isinstance(decision, LoseCard):
        return character_name(t, decision.character)
    if isinstance(decision, ShowCard):
        return "👁 " + character_name(t, decision.character)
    if isinstance(decision, LetKeep):
        # TRANSLATORS: a button: the examined player keeps the card they showed.
        return t.gettext("👍 Let them keep it")
    if isinstance(decision, ForceExchange):
        # TRANSLATORS: a button: the examined player must swap the card for one from the deck.
        return t.gettext("🔁 Make them swap it")
    assert isinstance(decision, KeepCards)
    cards = decision.cards
    if len(cards) == 2 and cards[0] == cards[1]:
        # TRANSLATORS: a button: keep both cards of one character (shorter than "Captain +
        # Captain").
        return t.gettext("2 × {character}").format(character=character_name(t, cards[0]))
    return " + ".join(character_name(t, c) for c in cards)


# Each action's button, from its row of words (`action_words.ACTION_WORDS`).
ACTION_BUTTONS: dict[Action, Callable[[Translator], str]] = {
    a: words.button for a, words in ACTION_WORDS.items()
}


def answers_question(
    t: Translator,
    window: Window | None,
    options: Sequence[Decision],
    asked: int = 1,
    target: str | None = None,
) -> str:
    """The question the answers `options` reply to (a private prompt, or the group's
    turn message over its answer buttons, where a bare "🛡 with the Captain" needs it),
    put to `asked` players: Georgian asks two or more in the plural. `target` is the name
    of the action's target, told to two or more as the one who may block."""
    can_challenge = any(isinstance(d, Challenge) for d in options)
    can_block = any(isinstance(d, Block) for d in options)
    if window is Window.BLOCK_CHALLENGE:
        return t.ngettext("Do you challenge the block?", "Do you challenge the block?", asked)
    if can_challenge and can_block:
        question = t.ngettext("Challenge, block or pass?", "Challenge, block or pass?", asked)
    elif can_challenge:
        return t.ngettext("Do you challenge?", "Do you challenge?", asked)
    else:
        question = t.ngettext("Do you block?", "Do you block?", asked)
    # Only Foreign Aid is blocked with the Duke, by anyone; every other block is the target's,
    # and the buttons, shown to everyone at the table, do not say so: the line says whose it
    # is. Said before the question, which stays right over the buttons.
    if (
        asked > 1
        and target is not None
        and any(isinstance(d, Block) and d.character is not Character.DUKE for d in options)
    ):
        only = t.gettext("🛡 Only the target can block: {target}.").format(target=target)
        question = only + "\n" + question
    return question


# Where a deadline's moment goes in a text (`until_text`): the step's plan takes it out and
# notes its place (`take_moment`); the sender puts the moment there when it delivers.
MOMENT_MARK = "\u2063"
# How Telegram shows the moment: the time with seconds, in each reader's own time zone.
MOMENT_FORMAT = "T"


def until_text(t: Translator) -> str:
    """ " until <moment>", said after a line of who must decide (the moment is marked)."""
    # TRANSLATORS: {moment} is a clock time (16:34:56), shown in each reader's time zone.
    return t.gettext("⏰ until {moment}").format(moment=MOMENT_MARK)


def take_moment(text: str) -> tuple[str, int | None]:
    """The text without its moment's mark, and where the mark was (None: it has none)."""
    at = text.rfind(MOMENT_MARK)
    if at < 0:
        return text, None
    # A mark in a player's name (unlikely, but names are theirs) is taken out too.
    return text.replace(MOMENT_MARK, ""), at - text.count(MOMENT_MARK, 0, at)


def moment_fallback(at_ms: int) -> str:
    """The moment as plain text, for a Telegram that shows the entity's text as it is."""
    moment = datetime.fromtimestamp(at_ms / 1000, UTC)
    return moment.strftime("%H:%M:%S UTC")
