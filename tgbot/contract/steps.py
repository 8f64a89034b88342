"""What one engine step decided, as facts and no text: the service computes it
(`service/advance.py`), applies it to the game's record, and rendering turns it into the
step's messages (`rendering/step_plan.py`). A leaf: it imports only the engine, so that
rendering can read it without pulling the service in."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..engine import Character, Decision
from ..engine import events as ev

# A message of the game's own that is no turn's (the news of a game closed between turns).
TURN_REF = "turn"
# The game's end, a message of its own: sent before the last turn's message closes, so
# its reference must not be that message's.
END_REF = "end"
# ⏳ More time: how much a player may add to a deadline they are awaited for, once a game.
MORE_TIME_S = 30
LOBBY_REF = "lobby"


def turn_ref_of(turn: int) -> str:
    """The message reference of the game's `turn`-th turn message: each turn's message has
    its own, so that a closing edit never lands on the next turn's message."""
    return f"turn:{turn}"


def prompt_ref(user_id: int) -> str:
    """The message reference of a player's open prompt."""
    return f"prompt:{user_id}"


# A claim a finished game's replay revealed: player, character, turn, whether it was true.
Claim = tuple[int, Character, int, bool]


@dataclass(frozen=True, slots=True)
class Reader:
    """A person in the game who reads its messages privately (AI players do not)."""

    id: int
    lang: str


@dataclass(frozen=True, slots=True)
class Table:
    """The game as its messages address it: the same at every step."""

    game_id: str
    chat: int
    thread: int | None
    lang: str  # the group's
    names: Mapping[int, str]
    readers: tuple[Reader, ...]  # in seat order
    answers_at_table: bool  # answers to a claim are buttons on the group's turn message
    claims: Mapping[str, Mapping[str, int]]  # the public claim tracker, tallied
    # The shuffle's commitment, shown at the start, and its seed, given only once the game
    # is over (it deals every hand): service/fairness.py.
    commitment: str | None = None
    seed: int | None = None
    more_time_used: frozenset[int] = frozenset()  # who has used their ⏳ More time


# Every this many turns a closed turn's message shows the whole table (and at the deal).
BOARD_EVERY = 5


# A turn with nothing to answer (Income, a Coup, a timeout's default) has no message of its
# own: its verdict is added to the game's newest group message, up to this many verdicts
# in one message (then the next one is sent anew).
MOST_VERDICTS = 3


@dataclass(frozen=True, slots=True)
class Verdict:
    """A closed turn as the group reads it: the lines an older record kept, its public
    events, whether it shows the whole table, and who moved next."""

    story: tuple[str, ...]
    told: tuple[ev.Event, ...]
    board: bool
    next_player: int | None


@dataclass(frozen=True, slots=True)
class Newest:
    """The game's newest group message and the verdicts it shows, oldest first: a quiet
    turn's verdict is added to it by an edit."""

    ref: str
    verdicts: tuple[Verdict, ...]


@dataclass(frozen=True, slots=True)
class Closing:
    """A turn closed by a step: its message `ref`, sent anew (`new`) or edited, showing
    `verdicts` (more than one: quiet turns added to the newest message)."""

    ref: str
    new: bool
    verdicts: tuple[Verdict, ...]


def newest_to_dict(newest: Newest | None) -> dict[str, Any] | None:
    """The newest message's facts as the record keeps them."""
    if newest is None:
        return None
    return {
        "ref": newest.ref,
        "verdicts": [
            {
                "story": list(v.story),
                "told": ev.events_to_dicts(v.told),
                "board": v.board,
                "next": v.next_player,
            }
            for v in newest.verdicts
        ],
    }


def newest_from_dict(raw: Mapping[str, Any] | None) -> Newest | None:
    """The newest message's facts as the record kept them (None: none, or unreadable)."""
    if not raw:
        return None
    try:
        verdicts = tuple(
            Verdict(
                tuple(str(line) for line in v.get("story", ())),
                ev.events_from_dicts(v["told"]),
                bool(v["board"]),
                None if v["next"] is None else int(v["next"]),
            )
            for v in raw["verdicts"]
        )
        return Newest(str(raw["ref"]), verdicts)
    except (KeyError, TypeError, ValueError, AttributeError):
        return None


@dataclass(frozen=True, slots=True)
class StepOutcome:
    """One step's decisions: the decision context and its deadline, which prompts open
    and close, and the state of the group's turn message."""

    table: Table
    context: int  # the engine version at which the awaited decision is offered
    same_context: bool  # only passes, the window still open: the same decision
    deadline_ms: int | None
    seconds: int  # how long the awaited decision may take
    seconds_left: int | None
    prompted: frozenset[int]  # who gets a new prompt
    closing: frozenset[int]  # whose open prompt closes (a new prompt replaces it in place)
    prompts: Mapping[int, int]  # the open prompts after the step: person -> context
    turn_ref: str | None  # the turn message's reference when the step began
    # Whether the turn message shows this step (false: a turn closed, and the next one
    # has told nothing yet), and its reference and answer buttons' context after it.
    turn_shown: bool
    turn_ref_after: str | None
    table_context: int | None
    answer_options: tuple[Decision, ...]  # the answers offered on the turn message
    # The turn's story before the step and after it: lines an older record kept rendered
    # (`GameRecord.story`), then the turn's public events.
    story: tuple[str, ...]
    told: tuple[ev.Event, ...]
    story_after: tuple[str, ...]
    told_after: tuple[ev.Event, ...]
    # The turns this step closed, in order, and the game's newest group message after it.
    closings: tuple[Closing, ...] = ()
    newest_after: Newest | None = None
    newest: Newest | None = None  # the game's newest group message before the step
    # The turns closed before the step (the deal is the 0th), and after it.
    turns: int = 0
    turns_after: int = 0
    # The game is over and its last turn had no message of its own: the end's tells it.
    end_tells_last_turn: bool = False
