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
    INQUISITOR = "inquisitor"  # replaces the Ambassador in the Inquisitor variants


class Action(StrEnum):
    """An action a player may take on their turn (the last three only in some variants)."""

    INCOME = "income"
    FOREIGN_AID = "foreign_aid"
    COUP = "coup"
    TAX = "tax"
    ASSASSINATE = "assassinate"
    STEAL = "steal"
    EXCHANGE = "exchange"
    EXAMINE = "examine"  # Inquisitor
    CONVERT = "convert"  # Reformation
    EMBEZZLE = "embezzle"  # Reformation


class Variant(StrEnum):
    """The game's rules: the base game, or either expansion, or both (VARIANTS.md)."""

    BASE = "base"
    INQUISITOR = "inquisitor"
    REFORMATION = "reformation"
    REFORMATION_INQUISITOR = "reformation_inquisitor"

    @property
    def inquisitor(self) -> bool:
        """True when the Inquisitor replaces the Ambassador."""
        return self in (Variant.INQUISITOR, Variant.REFORMATION_INQUISITOR)

    @property
    def reformation(self) -> bool:
        """True when allegiances, the Reserve, Conversion and Embezzlement are in play."""
        return self in (Variant.REFORMATION, Variant.REFORMATION_INQUISITOR)

    @classmethod
    def parse(cls, text: str) -> Variant:
        """Read a variant name; `reformation+inquisitor` names `reformation_inquisitor`."""
        return cls(text.strip().lower().replace("+", "_").replace("-", "_"))


class Allegiance(StrEnum):
    """A player's side in Reformation games."""

    LOYALIST = "loyalist"
    REFORMIST = "reformist"

    @property
    def other(self) -> Allegiance:
        """The opposite allegiance."""
        return Allegiance.REFORMIST if self is Allegiance.LOYALIST else Allegiance.LOYALIST


@dataclass(frozen=True, slots=True)
class ActionSpec:
    """What an action costs, claims, targets and who may block it."""

    cost: int
    claim: Character | None
    targeted: bool
    blockers: tuple[Character, ...]
    # Foreign Aid may be blocked by anyone; the others only by their target.
    blockable_by_anyone: bool = False
    # Embezzlement claims *not* to hold `claim`: a challenge wins when the actor has it.
    inverted: bool = False

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


def _variant_actions(variant: Variant) -> dict[Action, ActionSpec]:
    table = dict(ACTIONS)
    if variant.inquisitor:
        table[Action.EXCHANGE] = ActionSpec(
            cost=0, claim=Character.INQUISITOR, targeted=False, blockers=()
        )
        table[Action.STEAL] = ActionSpec(
            cost=0,
            claim=Character.CAPTAIN,
            targeted=True,
            blockers=(Character.CAPTAIN, Character.INQUISITOR),
        )
        table[Action.EXAMINE] = ActionSpec(
            cost=0, claim=Character.INQUISITOR, targeted=True, blockers=()
        )
    if variant.reformation:
        # Conversion costs 1 for yourself and 2 for another player (see conversion_cost).
        table[Action.CONVERT] = ActionSpec(cost=1, claim=None, targeted=True, blockers=())
        table[Action.EMBEZZLE] = ActionSpec(
            cost=0, claim=Character.DUKE, targeted=False, blockers=(), inverted=True
        )
    return table


# The action table of each variant; VARIANT_ACTIONS[Variant.BASE] is ACTIONS.
VARIANT_ACTIONS: dict[Variant, dict[Action, ActionSpec]] = {v: _variant_actions(v) for v in Variant}

CONVERT_SELF_COST = 1
CONVERT_OTHER_COST = 2


def conversion_cost(actor: int, target: int) -> int:
    """What converting `target` costs `actor`: 1 for yourself, 2 for another player."""
    return CONVERT_SELF_COST if actor == target else CONVERT_OTHER_COST


COPIES_PER_CHARACTER = 3
BASE_CHARACTERS = (
    Character.DUKE,
    Character.ASSASSIN,
    Character.CAPTAIN,
    Character.AMBASSADOR,
    Character.CONTESSA,
)
INQUISITOR_CHARACTERS = (
    Character.DUKE,
    Character.ASSASSIN,
    Character.CAPTAIN,
    Character.INQUISITOR,
    Character.CONTESSA,
)
DECK_SIZE = COPIES_PER_CHARACTER * len(BASE_CHARACTERS)
TOTAL_COINS = 50
STARTING_COINS = 2
CARDS_PER_PLAYER = 2
FORCED_COUP_COINS = 10
STEAL_AMOUNT = 2
EXCHANGE_DRAW = 2
INQUISITOR_EXCHANGE_DRAW = 1
MIN_PLAYERS = 2
MAX_PLAYERS = 6

CHARACTER_ORDER: dict[Character, int] = {c: i for i, c in enumerate(Character)}


def characters(variant: Variant = Variant.BASE) -> tuple[Character, ...]:
    """The five characters in this variant's deck."""
    return INQUISITOR_CHARACTERS if variant.inquisitor else BASE_CHARACTERS


_FULL_DECKS = {
    v: tuple(c for c in characters(v) for _ in range(COPIES_PER_CHARACTER)) for v in Variant
}


def full_deck(variant: Variant = Variant.BASE) -> list[Character]:
    """Return the variant's 15 court cards in a fixed order (three of each character)."""
    return list(_FULL_DECKS[variant])


def sorted_cards(cards: list[Character] | tuple[Character, ...]) -> tuple[Character, ...]:
    """Return cards as a tuple in the canonical character order."""
    return tuple(sorted(cards, key=CHARACTER_ORDER.__getitem__))
