"""Button data: compact (Telegram allows 64 bytes), carrying the game and its context.

Format: ``<game id>.<context version>.<code>``. The context version is the game version
at which the buttons' decision was offered; a press from an older context is stale.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..engine import (
    Action,
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
)

# One letter per character, in button data and in the kept record of a game (service/archive).
CHARACTER_CODES = {
    Character.DUKE: "d",
    Character.ASSASSIN: "a",
    Character.CAPTAIN: "c",
    Character.AMBASSADOR: "m",
    Character.CONTESSA: "t",
    Character.INQUISITOR: "i",
}
_CODE_CHAR = {v: k for k, v in CHARACTER_CODES.items()}
_ACTION_CODE = {
    Action.INCOME: "i",
    Action.FOREIGN_AID: "f",
    Action.TAX: "x",
    Action.EXCHANGE: "e",
    Action.COUP: "c",
    Action.ASSASSINATE: "a",
    Action.STEAL: "s",
    Action.EXAMINE: "y",
    Action.CONVERT: "v",
    Action.EMBEZZLE: "z",
}
_CODE_ACTION = {v: k for k, v in _ACTION_CODE.items()}

LOBBY_JOIN, LOBBY_LEAVE, LOBBY_START, LOBBY_CANCEL = "J", "Q", "S", "X"
LOBBY_ADD_AI, LOBBY_REMOVE_AI = "A", "R"
AGAIN = "G"  # Play again, on the final message of a game
LOBBY_CODES = frozenset(
    {LOBBY_JOIN, LOBBY_LEAVE, LOBBY_START, LOBBY_CANCEL, LOBBY_ADD_AI, LOBBY_REMOVE_AI, AGAIN}
)
ANSWER_HEADS = frozenset("CPB")  # Challenge, Pass, Block as ...: answers to a claim
PICK_PREFIX = "t"  # "t" + action code: show targets; "tb": back to the actions
BACK = "tb"

_DATA = re.compile(r"^([a-z0-9]{6,16})\.(\d{1,9})\.([A-Za-z0-9]{1,8})$")


class BadButton(ValueError):
    """Button data that does not parse."""


@dataclass(frozen=True, slots=True)
class ButtonPress:
    """A parsed button: which game, which context, and what it says."""

    game_id: str
    context: int
    code: str


def pack(game_id: str, context: int, code: str) -> str:
    """Build the data string of a button."""
    return f"{game_id}.{context}.{code}"


def unpack(data: str | None) -> ButtonPress:
    """Parse button data, or raise BadButton."""
    match = _DATA.match(data or "")
    if not match:
        raise BadButton(data)
    return ButtonPress(match.group(1), int(match.group(2)), match.group(3))


def encode_decision(decision: Decision, seats: list[int]) -> str:
    """The code of a decision; targets travel as seat numbers, not user ids."""
    if isinstance(decision, TakeAction):
        code = _ACTION_CODE[decision.action]
        return code if decision.target is None else f"{code}{seats.index(decision.target)}"
    if isinstance(decision, Challenge):
        return "C"
    if isinstance(decision, Pass):
        return "P"
    if isinstance(decision, Block):
        return "B" + CHARACTER_CODES[decision.character]
    if isinstance(decision, LoseCard):
        return "L" + CHARACTER_CODES[decision.character]
    if isinstance(decision, ShowCard):
        return "W" + CHARACTER_CODES[decision.character]
    if isinstance(decision, LetKeep):
        return "Y"
    if isinstance(decision, ForceExchange):
        return "F"
    if isinstance(decision, KeepCards):
        return "K" + "".join(CHARACTER_CODES[c] for c in decision.cards)
    raise ValueError(f"no button code for {decision!r}")


def decode_decision(code: str, seats: list[int]) -> Decision:
    """The decision a code stands for, or raise BadButton."""
    try:
        head, rest = code[0], code[1:]
        if head == "C" and not rest:
            return Challenge()
        if head == "P" and not rest:
            return Pass()
        if head == "B" and len(rest) == 1:
            return Block(_CODE_CHAR[rest])
        if head == "L" and len(rest) == 1:
            return LoseCard(_CODE_CHAR[rest])
        if head == "W" and len(rest) == 1:
            return ShowCard(_CODE_CHAR[rest])
        if head == "Y" and not rest:
            return LetKeep()
        if head == "F" and not rest:
            return ForceExchange()
        if head == "K" and 1 <= len(rest) <= 2:
            return KeepCards(tuple(_CODE_CHAR[c] for c in rest))
        action = _CODE_ACTION[head]
        if not rest:
            return TakeAction(action)
        seat = int(rest)
        if not 0 <= seat < len(seats):
            raise BadButton(code)
        return TakeAction(action, seats[seat])
    except (KeyError, ValueError, IndexError):
        raise BadButton(code) from None


def is_answer(code: str) -> bool:
    """Whether a code is an answer to a claim (the buttons of the group's turn message)."""
    return bool(code) and code[0] in ANSWER_HEADS


def picker_code(action: Action) -> str:
    """The code of a button that opens the target picker for an action."""
    return PICK_PREFIX + _ACTION_CODE[action]


def picker_action(code: str) -> Action | None:
    """The action whose target picker a code opens, if it is such a code."""
    if len(code) == 2 and code[0] == PICK_PREFIX and code != BACK:
        return _CODE_ACTION.get(code[1])
    return None
