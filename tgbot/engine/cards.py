"""Characters, actions and the action table: the rules of RULES.md as data."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Character(StrEnum):
    """One of the five court characters; three copies of each make the deck."""

    DUKE = "duke"
    ASSASSIN = "assassin"
    CAPTAIN = "captain"
    AMBASSADOR = "ambassador"
    CONTESSA = "contessa"


class Action(StrEnum):
    """One of the seven actions a player may take on their turn."""

    INCOME = "income"
    FOREIGN_AID = "foreign_aid"
    COUP = "coup"
    TAX = "tax"
    ASSASSINATE = "assassinate"
    STEAL = "steal"
    EXCHANGE = "exchange"


@dataclass(frozen=True, slots=True)
class ActionSpec:
    """What an action costs, claims, targets and who may block it."""

    cost: int
    claim: Character | None
    targeted: bool
    blockers: tuple[Character, ...]
    # Foreign Aid may be blocked by anyone; the others only by their target.
    blockable_by_anyone: bool = False

    @property
    def challengeable(self) -> bool:
        """True when the action claims a character and so may be challenged."""
        return self.claim is not None


ACTIONS: dict[Action, ActionSpec] = {
    Action.INCOME: ActionSpec(cost=0, claim=None, targeted=False, blockers=()),
    Action.FOREIGN_AID: ActionSpec(
        cost=0, claim=None, targeted=False, blockers=(Character.DUKE,), blockable_by_anyone=True
    ),
    Action.COUP: ActionSpec(cost=7, claim=None, targeted=True, blockers=()),
    Action.TAX: ActionSpec(cost=0, claim=Character.DUKE, targeted=False, blockers=()),
    Action.ASSASSINATE: ActionSpec(
        cost=3, claim=Character.ASSASSIN, targeted=True, blockers=(Character.CONTESSA,)
    ),
    Action.STEAL: ActionSpec(
        cost=0,
        claim=Character.CAPTAIN,
        targeted=True,
        blockers=(Character.CAPTAIN, Character.AMBASSADOR),
    ),
    Action.EXCHANGE: ActionSpec(cost=0, claim=Character.AMBASSADOR, targeted=False, blockers=()),
}

# Coins an action takes from the treasury (Steal takes from its target instead).
ACTION_GAIN: dict[Action, int] = {Action.INCOME: 1, Action.FOREIGN_AID: 2, Action.TAX: 3}

COPIES_PER_CHARACTER = 3
DECK_SIZE = COPIES_PER_CHARACTER * len(Character)
TOTAL_COINS = 50
STARTING_COINS = 2
CARDS_PER_PLAYER = 2
FORCED_COUP_COINS = 10
STEAL_AMOUNT = 2
EXCHANGE_DRAW = 2
MIN_PLAYERS = 2
MAX_PLAYERS = 6

CHARACTER_ORDER: dict[Character, int] = {c: i for i, c in enumerate(Character)}


_FULL_DECK = tuple(c for c in Character for _ in range(COPIES_PER_CHARACTER))


def full_deck() -> list[Character]:
    """Return the 15 court cards in a fixed order (three of each character)."""
    return list(_FULL_DECK)


def sorted_cards(cards: list[Character] | tuple[Character, ...]) -> tuple[Character, ...]:
    """Return cards as a tuple in the canonical character order."""
    return tuple(sorted(cards, key=CHARACTER_ORDER.__getitem__))
