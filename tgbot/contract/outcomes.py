"""What the service tells a person, in no language: why something cannot be done, or what
happened. `rendering/notices.py` says it in words; the Telegram layer calls it.

A leaf module (it imports only the engine), so that rendering may read it.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum, auto

from ..engine import Reason


class Refusal(Enum):
    """Why something a person asked for cannot be done."""

    # the game, the button
    GAME_OVER = auto()
    OUT_OF_DATE = auto()
    NOT_VALID = auto()
    NO_GAME_HERE = auto()
    GAME_OPEN_IN_GROUP = auto()
    # the lobby
    ALREADY_STARTED = auto()
    ALREADY_IN_GAME = auto()
    IN_ANOTHER_GAME = auto()
    GAME_FULL = auto()
    NOT_IN_GAME = auto()
    ALREADY_OUT = auto()
    NOT_IN_LOBBY = auto()
    TOO_FEW_PLAYERS = auto()
    NO_HUMAN = auto()
    NOT_CREATOR = auto()
    NO_AI_TO_REMOVE = auto()
    NOT_CREATOR_OR_ADMIN = auto()
    NOT_A_PLAYER_OF_FINISHED = auto()
    # answers at the table
    NOT_YOURS_TO_ANSWER = auto()
    CANNOT_ANSWER_THAT_WAY = auto()
    ALREADY_ANSWERED = auto()  # the window is closed: its buttons change nothing
    # a private prompt whose decision is made (its close may not have been sent)
    ALREADY_DECIDED = auto()
    # ⏳ More time
    MORE_TIME_USED = auto()
    NOT_WAITING_FOR_YOU = auto()
    # the person's settings
    UNKNOWN_LANGUAGE = auto()
    # replays
    NO_SUCH_GAME_ID = auto()
    NO_RECORD_KEPT = auto()  # needs `days`
    NOT_A_PLAYER_OF_REPLAY = auto()
    # the engine's reasons (tgbot.engine.Reason), carried through
    MUST_COUP = auto()
    CANNOT_AFFORD = auto()
    BAD_TARGET = auto()
    NOT_YOUR_DECISION = auto()
    NOT_IN_VARIANT = auto()
    SAME_ALLEGIANCE = auto()
    RESERVE_EMPTY = auto()
    NOT_ALLOWED_NOW = auto()  # any other engine reason


# Refusals that say a button's question is over (the game, the decision, the lobby): the
# message it was pressed on shows stale buttons (see PlayRoom.press).
STALE = frozenset(
    {
        Refusal.GAME_OVER,
        Refusal.OUT_OF_DATE,
        Refusal.ALREADY_STARTED,
        Refusal.ALREADY_ANSWERED,
        Refusal.ALREADY_DECIDED,
    }
)


class Notice(Enum):
    """What happened, for a button's toast or a short reply."""

    STARTING = auto()
    CANCELLED = auto()
    AI_CHANGED = auto()
    DECIDED = auto()
    LANGUAGE_SAVED = auto()
    REPLAY_SENT = auto()
    NEW_GAME_OPENED = auto()
    JOINED = auto()
    LEFT = auto()
    MORE_TIME = auto()


_ENGINE_REFUSALS = {
    Reason.MUST_COUP: Refusal.MUST_COUP,
    Reason.CANNOT_AFFORD: Refusal.CANNOT_AFFORD,
    Reason.BAD_TARGET: Refusal.BAD_TARGET,
    Reason.NOT_YOUR_DECISION: Refusal.NOT_YOUR_DECISION,
    Reason.NOT_IN_VARIANT: Refusal.NOT_IN_VARIANT,
    Reason.SAME_ALLEGIANCE: Refusal.SAME_ALLEGIANCE,
    Reason.RESERVE_EMPTY: Refusal.RESERVE_EMPTY,
}


def engine_refusal(reason: Reason) -> Refusal:
    """The refusal that says why the engine refused a decision."""
    return _ENGINE_REFUSALS.get(reason, Refusal.NOT_ALLOWED_NOW)


_TABLE_REFUSALS = {
    Reason.UNKNOWN_PLAYER: Refusal.NOT_IN_GAME,
    Reason.NOT_ALIVE: Refusal.NOT_YOURS_TO_ANSWER,
    Reason.NOT_YOUR_DECISION: Refusal.NOT_YOURS_TO_ANSWER,
}


def table_refusal(reason: Reason) -> Refusal:
    """The refusal that says why the engine refused an answer pressed at the table: not
    theirs to give, or not a way they may answer."""
    return _TABLE_REFUSALS.get(reason, Refusal.CANNOT_ANSWER_THAT_WAY)


@dataclass(frozen=True, slots=True)
class Said:
    """A refusal or notice, the values its words need, and the language it is read in.

    `lang` is the one the service resolved for its reader (None: the default language);
    carrying it spares the Telegram layer another read of the person's preferences.
    """

    what: Refusal | Notice
    lang: str | None = None
    days: int = 0  # Refusal.NO_RECORD_KEPT: how long records are kept
