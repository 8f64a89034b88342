"""Your hand a tap away: 👁 My cards (a pop-up over the group), ⏳ More time, their
buttons and what they say."""

from __future__ import annotations

from ..contract import callbacks
from ..contract.steps import MORE_TIME_S
from ..engine import PlayerView
from .i18n import Translator
from .prompting import hand_text
from .texts import cards_text
from .ui import Button, Keyboard

# Bot API: an answerCallbackQuery's text is 0-200 characters.
MAX_ALERT_CHARS = 200


def fit_alert(text: str) -> str:
    """A pop-up's text within Telegram's 200 characters (cut with "…" if ever longer)."""
    return text if len(text) <= MAX_ALERT_CHARS else text[: MAX_ALERT_CHARS - 1] + "…"


def my_cards_alert(t: Translator, view: PlayerView) -> str:
    """👁 My cards: a player's face-down cards and coins (and side in Reformation), or,
    once knocked out, that they are out and which cards they lost."""
    seat = view.mine
    assert seat is not None
    if not seat.alive:
        text = t.gettext("☠️ You are out of this game. Your cards: {cards}.").format(
            cards=cards_text(t, seat.revealed) or "—"
        )
        return fit_alert(text)
    text = hand_text(t, view)
    if seat.revealed:
        text += "\n" + t.gettext("✖ Face up: {cards}").format(cards=cards_text(t, seat.revealed))
    return fit_alert(text)


def my_cards_button(t: Translator, game_id: str) -> Button:
    """The 👁 My cards button of a game's turn message."""
    return {"text": t.gettext("👁 My cards"), "data": callbacks.my_cards(game_id)}


def more_time_button(t: Translator, game_id: str, context: int) -> Button:
    """The ⏳ More time button for the decision of `context`."""
    return {"text": t.gettext("⏳ More time"), "data": callbacks.more_time(game_id, context)}


def table_row(t: Translator, game_id: str, context: int, more_time: bool) -> Keyboard:
    """The last row of the group's live turn message: 👁 My cards, and ⏳ More time while
    an answerer who has not used theirs is awaited (`more_time`)."""
    row = [my_cards_button(t, game_id)]
    if more_time:
        row.append(more_time_button(t, game_id, context))
    return [row]


def prompt_row(t: Translator, game_id: str, context: int) -> Keyboard:
    """The last row of a private prompt whose player has not used their ⏳ More time."""
    return [[more_time_button(t, game_id, context)]]


def more_time_line(t: Translator, name: str) -> str:
    """What the group reads when a player takes their extra time."""
    return t.ngettext(
        "⏳ {name} asks for {n} more second.",
        "⏳ {name} asks for {n} more seconds.",
        MORE_TIME_S,
    ).format(name=name, n=MORE_TIME_S)
