"""Decisions as short codes and back: the one codec of button data and the kept game record.

A code names what was decided, not who decided it; a target travels as its seat (its index
in `seats`, the player ids in seat order), so a code is at most three characters and
holds no user id. Lower-case heads are actions, upper-case heads the other decisions:

| decision | code | example |
|---|---|---|
| `TakeAction` | the action's letter, then the target's seat if it has one | `i`, `c2` |
| `Challenge`, `Pass`, `LetKeep`, `ForceExchange` | `C`, `P`, `Y`, `F` | `C` |
| `Block`, `LoseCard`, `ShowCard` | `B`, `L`, `S`, then the character's letter | `Bd` |
| `KeepCards` | `K`, then the kept characters' letters in their order | `Kdt` |

The kept game record (service/archive.py, schema 1) has always written these codes, so a
record stored before this module existed reads the same.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from .cards import CARDS_PER_PLAYER, MAX_PLAYERS, Action, Character
from .decisions import (
    CHALLENGE,
    FORCE_EXCHANGE,
    LET_KEEP,
    PASS,
    Block,
    Challenge,
    Decision,
    ForceExchange,
    KeepCards,
    LetKeep,
    LoseCard,
    Pass,
    ShowCard,
    TakeAction,
    block_as,
    lose,
    show,
    take,
)

CHARACTER_CODES: dict[Character, str] = {
    Character.DUKE: "d",
    Character.ASSASSIN: "a",
    Character.CAPTAIN: "c",
    Character.AMBASSADOR: "m",
    Character.CONTESSA: "t",
    Character.INQUISITOR: "i",
}
ACTION_CODES: dict[Action, str] = {
    Action.INCOME: "i",
    Action.FOREIGN_AID: "f",
    Action.COUP: "c",
    Action.TAX: "x",
    Action.ASSASSINATE: "a",
    Action.STEAL: "s",
    Action.EXCHANGE: "e",
    Action.EXAMINE: "y",
    Action.CONVERT: "v",
    Action.EMBEZZLE: "z",
}
MAX_CODE_LENGTH = 1 + CARDS_PER_PLAYER  # "K" and the kept cards; the longest code

_CODE_CHARACTER = {code: c for c, code in CHARACTER_CODES.items()}
_CODE_ACTION = {code: a for a, code in ACTION_CODES.items()}
_PLAIN: dict[str, Decision] = {"C": CHALLENGE, "P": PASS, "Y": LET_KEEP, "F": FORCE_EXCHANGE}
_ONE_CARD: dict[str, Callable[[Character], Decision]] = {"B": block_as, "L": lose, "S": show}
_SEAT_DIGITS = {str(seat): seat for seat in range(MAX_PLAYERS)}  # one digit


class BadCode(ValueError):
    """A string that is not the code of a decision (or a decision that has no code)."""


def encode(decision: Decision, seats: list[int]) -> str:
    """The code of a decision; `seats` are the game's player ids in seat order."""
    try:
        return _encode(decision, seats)
    except KeyError:  # an action or a character that is not one
        raise BadCode(f"no code for {decision!r}") from None


def encode_all(decisions: Iterable[Decision], seats: list[int]) -> list[str]:
    """The codes of some decisions (a keyboard's), in order."""
    return [encode(d, seats) for d in decisions]


def _encode(decision: Decision, seats: list[int]) -> str:
    match decision:
        case TakeAction(action, None):
            return ACTION_CODES[action]
        case TakeAction(action, target) if target in seats:
            return f"{ACTION_CODES[action]}{seats.index(target)}"
        case Challenge():
            return "C"
        case Pass():
            return "P"
        case LetKeep():
            return "Y"
        case ForceExchange():
            return "F"
        case Block(character):
            return "B" + CHARACTER_CODES[character]
        case LoseCard(character):
            return "L" + CHARACTER_CODES[character]
        case ShowCard(character):
            return "S" + CHARACTER_CODES[character]
        case KeepCards(cards) if 1 <= len(cards) <= CARDS_PER_PLAYER:
            return "K" + "".join(CHARACTER_CODES[c] for c in cards)
    raise BadCode(f"no code for {decision!r}")


def decode(code: str, seats: list[int]) -> Decision:
    """The decision a code stands for, or raise BadCode; `seats` as for `encode`."""
    head, rest = code[:1], code[1:]
    if head in _PLAIN and not rest:
        return _PLAIN[head]
    if head in _ONE_CARD and rest in _CODE_CHARACTER:
        return _ONE_CARD[head](_CODE_CHARACTER[rest])
    if head == "K" and 1 <= len(rest) <= CARDS_PER_PLAYER and set(rest) <= _CODE_CHARACTER.keys():
        return KeepCards(tuple(_CODE_CHARACTER[c] for c in rest))
    action = _CODE_ACTION.get(head)
    if action is not None:
        if not rest:
            return take(action)
        seat = _SEAT_DIGITS.get(rest)
        if seat is not None and seat < len(seats):
            return take(action, seats[seat])
    raise BadCode(f"not a decision code: {code!r}")
