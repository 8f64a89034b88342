"""Characters, actions and the action table: the rules of RULES.md as data."""

from __future__ import annotations

from dataclasses import dataclass, replace
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
    """The game's rules: the base game, or either expansion, or both (VARIANTS.md).

    A value names the expansions it plays with (`EXPANSIONS`' keys joined by "_"); the
    values are stored with every game, so they never change."""

    BASE = "base"
    INQUISITOR = "inquisitor"
    REFORMATION = "reformation"
    REFORMATION_INQUISITOR = "reformation_inquisitor"

    @property
    def expansions(self) -> tuple[Expansion, ...]:
        """The expansions this variant adds to the base game, in `EXPANSIONS`' order."""
        return _VARIANT_EXPANSIONS[self]

    @property
    def inquisitor(self) -> bool:
        """True when the Inquisitor replaces the Ambassador."""
        return EXPANSIONS["inquisitor"] in self.expansions

    @property
    def reformation(self) -> bool:
        """True when allegiances, the Reserve, Conversion and Embezzlement are in play."""
        return EXPANSIONS["reformation"] in self.expansions

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
    """An action's row: what it costs and gains, what it claims and targets, and who may
    answer it (challenge or block)."""

    # Coins paid into the treasury when declared (Conversion: the least it costs, to the
    # Reserve: `conversion_cost` says what one costs).
    cost: int
    claim: Character | None
    targeted: bool
    blockers: tuple[Character, ...]
    # Foreign Aid may be blocked by anyone; the others only by their target.
    blockable_by_anyone: bool = False
    # Embezzlement claims *not* to hold `claim`: a challenge wins when the actor has it.
    inverted: bool = False
    gain: int = 0  # coins taken from the treasury once it stands (Steal takes from its target)
    # False: no one may challenge or block it (Income, Coup): it resolves once declared.
    answerable: bool = True

    @property
    def challengeable(self) -> bool:
        """True when the action claims a character and so may be challenged."""
        return self.claim is not None


ACTIONS: dict[Action, ActionSpec] = {
    Action.INCOME: ActionSpec(
        cost=0, claim=None, targeted=False, blockers=(), gain=1, answerable=False
    ),
    Action.FOREIGN_AID: ActionSpec(
        cost=0,
        claim=None,
        targeted=False,
        blockers=(Character.DUKE,),
        blockable_by_anyone=True,
        gain=2,
    ),
    Action.COUP: ActionSpec(cost=7, claim=None, targeted=True, blockers=(), answerable=False),
    Action.TAX: ActionSpec(cost=0, claim=Character.DUKE, targeted=False, blockers=(), gain=3),
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


@dataclass(frozen=True, slots=True)
class Expansion:
    """What one expansion changes in the base game (VARIANTS.md), as data: adding an
    expansion is one entry of `EXPANSIONS` (and the `Variant` values that name it)."""

    # Characters it swaps in for base ones: the deck, every claim and every block.
    replaces: tuple[tuple[Character, Character], ...] = ()
    actions: tuple[tuple[Action, ActionSpec], ...] = ()  # the actions it adds
    exchange_draw: int | None = None  # the cards Exchange draws, when it changes them
    # Sides (loyalists and reformists), whose limits the engine applies while divided.
    allegiances: bool = False


@dataclass(frozen=True, slots=True)
class RuleSet:
    """The base game with a variant's expansions applied: its deck, actions and draws."""

    characters: tuple[Character, ...]
    actions: dict[Action, ActionSpec]
    exchange_draw: int
    allegiances: bool


# The expansions, in the order they are applied (the action tables keep that order).
EXPANSIONS: dict[str, Expansion] = {
    "inquisitor": Expansion(
        replaces=((Character.AMBASSADOR, Character.INQUISITOR),),
        actions=(
            (
                Action.EXAMINE,
                ActionSpec(cost=0, claim=Character.INQUISITOR, targeted=True, blockers=()),
            ),
        ),
        exchange_draw=1,
    ),
    "reformation": Expansion(
        actions=(
            # Conversion costs 1 for yourself and 2 for another player (conversion_cost).
            (Action.CONVERT, ActionSpec(cost=1, claim=None, targeted=True, blockers=())),
            (
                Action.EMBEZZLE,
                ActionSpec(
                    cost=0, claim=Character.DUKE, targeted=False, blockers=(), inverted=True
                ),
            ),
        ),
        allegiances=True,
    ),
}

_VARIANT_EXPANSIONS: dict[Variant, tuple[Expansion, ...]] = {
    v: tuple(x for name, x in EXPANSIONS.items() if name in v.value.split("_")) for v in Variant
}

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
DECK_SIZE = COPIES_PER_CHARACTER * len(BASE_CHARACTERS)
TOTAL_COINS = 50
STARTING_COINS = 2
CARDS_PER_PLAYER = 2
FORCED_COUP_COINS = 10
STEAL_AMOUNT = 2
EXCHANGE_DRAW = 2
MIN_PLAYERS = 2
MAX_PLAYERS = 6

CHARACTER_ORDER: dict[Character, int] = {c: i for i, c in enumerate(Character)}


def compose(expansions: tuple[Expansion, ...]) -> RuleSet:
    """The base game with `expansions` applied in order."""
    chars, actions = list(BASE_CHARACTERS), dict(ACTIONS)
    draw, allegiances = EXCHANGE_DRAW, False
    for x in expansions:
        swap = dict(x.replaces)
        chars = [swap.get(c, c) for c in chars]
        actions = {
            a: replace(
                spec,
                claim=None if spec.claim is None else swap.get(spec.claim, spec.claim),
                blockers=tuple(swap.get(b, b) for b in spec.blockers),
            )
            for a, spec in actions.items()
        }
        actions.update(x.actions)
        draw = draw if x.exchange_draw is None else x.exchange_draw
        allegiances = allegiances or x.allegiances
    return RuleSet(tuple(chars), actions, draw, allegiances)


# Each variant's rules, composed once.
RULE_SETS: dict[Variant, RuleSet] = {v: compose(v.expansions) for v in Variant}
# The action table of each variant; VARIANT_ACTIONS[Variant.BASE] is ACTIONS.
VARIANT_ACTIONS: dict[Variant, dict[Action, ActionSpec]] = {
    v: rules.actions for v, rules in RULE_SETS.items()
}


def characters(variant: Variant = Variant.BASE) -> tuple[Character, ...]:
    """The five characters in this variant's deck."""
    return RULE_SETS[variant].characters


_FULL_DECKS = {
    v: tuple(c for c in characters(v) for _ in range(COPIES_PER_CHARACTER)) for v in Variant
}


def full_deck(variant: Variant = Variant.BASE) -> list[Character]:
    """Return the variant's 15 court cards in a fixed order (three of each character)."""
    return list(_FULL_DECKS[variant])


def sorted_cards(cards: list[Character] | tuple[Character, ...]) -> tuple[Character, ...]:
    """Return cards as a tuple in the canonical character order."""
    return tuple(sorted(cards, key=CHARACTER_ORDER.__getitem__))
