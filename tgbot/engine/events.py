"""Language-neutral events: each public, or private to exactly one player.

Events are frozen values: nothing changes them after the engine emits them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass, field, fields
from enum import Enum
from typing import Any, ClassVar, get_args, get_origin, get_type_hints

from .cards import Action, Allegiance, Character
from .decisions import DecisionKind


@dataclass(frozen=True, slots=True)
class Event:
    """Base of all events. `recipient` is None for public events."""

    private: ClassVar[bool] = False
    # The one player a private event is for; None when everyone may see it. A plain value,
    # set once when the event is made, so that reading it is not a call into the engine.
    recipient: int | None = field(default=None, init=False, repr=False, compare=False)

    @property
    def kind(self) -> str:
        """A stable name for the event type."""
        return type(self).__name__

    def to_dict(self) -> dict[str, Any]:
        """Return the event as a JSON-safe dict."""
        data = asdict(self)
        del data["recipient"]
        for key, value in data.items():
            if isinstance(value, tuple):
                data[key] = list(value)
        return {"type": self.kind, **data}


@dataclass(frozen=True, slots=True)
class PrivateEvent(Event):
    """An event only `player` may see."""

    private: ClassVar[bool] = True
    player: int

    def __post_init__(self) -> None:
        object.__setattr__(self, "recipient", self.player)


# ---- public events -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class GameStarted(Event):
    """Seats in order, everyone's starting coins, the first player."""

    seats: tuple[int, ...]
    coins: tuple[int, ...]
    first: int


@dataclass(frozen=True, slots=True)
class TurnStarted(Event):
    """It is `player`'s turn; `must_coup` when they hold 10 or more coins."""

    player: int
    must_coup: bool


@dataclass(frozen=True, slots=True)
class ActionDeclared(Event):
    """`actor` declares `action` (on `target`), paying `cost`, claiming `claim`."""

    actor: int
    action: Action
    target: int | None
    claim: Character | None
    cost: int


@dataclass(frozen=True, slots=True)
class ResponsePassed(Event):
    """`player` lets the claim or action on the table stand."""

    player: int


@dataclass(frozen=True, slots=True)
class ChallengeDeclared(Event):
    """`challenger` doubts that `claimant` holds `character`."""

    challenger: int
    claimant: int
    character: Character


@dataclass(frozen=True, slots=True)
class ClaimProven(Event):
    """`claimant` showed `character`: the challenger loses influence; the card is replaced."""

    claimant: int
    character: Character
    challenger: int


@dataclass(frozen=True, slots=True)
class CardReturned(Event):
    """`player` shuffled the `character` they proved back into the deck and drew a new
    card (which one is private: `CardReplaced`)."""

    player: int
    character: Character


@dataclass(frozen=True, slots=True)
class ClaimFailed(Event):
    """`claimant` could not show `character`: they lose influence."""

    claimant: int
    character: Character
    challenger: int


@dataclass(frozen=True, slots=True)
class BlockDeclared(Event):
    """`blocker` blocks `actor`'s `action`, claiming `character`."""

    blocker: int
    character: Character
    actor: int
    action: Action


@dataclass(frozen=True, slots=True)
class ActionBlocked(Event):
    """The block stood: `actor`'s `action` fails."""

    actor: int
    action: Action
    blocker: int
    character: Character


@dataclass(frozen=True, slots=True)
class CoinsRefunded(Event):
    """A failed claim gives its paid cost back to `player`."""

    player: int
    amount: int


@dataclass(frozen=True, slots=True)
class ActionResolved(Event):
    """`actor`'s `action` took effect; `amount` coins moved (0 for card actions)."""

    actor: int
    action: Action
    target: int | None
    amount: int


@dataclass(frozen=True, slots=True)
class ActionFizzled(Event):
    """`actor`'s `action` has no effect because its target is already out."""

    actor: int
    action: Action
    target: int | None


@dataclass(frozen=True, slots=True)
class CardRevealed(Event):
    """`player` turned `character` face up (lost one influence)."""

    player: int
    character: Character


@dataclass(frozen=True, slots=True)
class PlayerEliminated(Event):
    """`player` has no face-down card left; `coins` went back to the treasury."""

    player: int
    coins: int


@dataclass(frozen=True, slots=True)
class ExchangeCompleted(Event):
    """`actor` finished an exchange and shuffled the rest back into the deck."""

    actor: int


@dataclass(frozen=True, slots=True)
class DecisionTimedOut(Event):
    """`player` did not decide in time; the default for `decision` applied."""

    player: int
    decision: DecisionKind


@dataclass(frozen=True, slots=True)
class PlayerLeft(Event):
    """`player` left (or was removed after `afk` timed-out turns in a row)."""

    player: int
    afk: bool


@dataclass(frozen=True, slots=True)
class GameEnded(Event):
    """The game is over and `winner` won."""

    winner: int


# ---- public events of the variants (VARIANTS.md) -----------------------------------


@dataclass(frozen=True, slots=True)
class AllegiancesAssigned(Event):
    """Reformation: every seat's starting allegiance, in seat order."""

    seats: tuple[int, ...]
    allegiances: tuple[Allegiance, ...]


@dataclass(frozen=True, slots=True)
class AllegianceChanged(Event):
    """Reformation: `actor` converted `player`, who is now `allegiance`."""

    actor: int
    player: int
    allegiance: Allegiance
    reserve: int  # the Treasury Reserve after the payment


@dataclass(frozen=True, slots=True)
class CardShown(Event):
    """Examine: `target` showed `actor` a face-down card (which one is private)."""

    actor: int
    target: int


@dataclass(frozen=True, slots=True)
class ExamineDecided(Event):
    """Examine: `actor` let `target` keep the card, or made them swap it (`forced`)."""

    actor: int
    target: int
    forced: bool


@dataclass(frozen=True, slots=True)
class EmbezzlementChallenged(Event):
    """`challenger` says that `claimant`, who embezzles, holds a Duke."""

    challenger: int
    claimant: int


@dataclass(frozen=True, slots=True)
class EmbezzlerHadDuke(Event):
    """The embezzler held a face-down Duke: the challenge succeeds, they lose influence."""

    claimant: int
    challenger: int


@dataclass(frozen=True, slots=True)
class EmbezzlerCleared(Event):
    """The embezzler held no Duke: all their face-down `cards` are shown and replaced."""

    claimant: int
    cards: tuple[Character, ...]
    challenger: int


# ---- private events ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CardsDealt(PrivateEvent):
    """`player`'s two starting cards."""

    cards: tuple[Character, ...]


@dataclass(frozen=True, slots=True)
class CardReplaced(PrivateEvent):
    """After proving a claim, `player` shuffled `shown` back and drew `drawn`."""

    shown: Character
    drawn: Character


@dataclass(frozen=True, slots=True)
class ExchangeDrawn(PrivateEvent):
    """The cards `player` drew for an exchange."""

    drawn: tuple[Character, ...]


@dataclass(frozen=True, slots=True)
class ExchangeKept(PrivateEvent):
    """The cards `player` kept after an exchange."""

    kept: tuple[Character, ...]


@dataclass(frozen=True, slots=True)
class ExaminedCard(PrivateEvent):
    """Examine, to the examiner `player`: `target` showed them `character`."""

    target: int
    character: Character


@dataclass(frozen=True, slots=True)
class CardShownTo(PrivateEvent):
    """Examine, to the target `player`: they showed `character` to `actor`."""

    actor: int
    character: Character


@dataclass(frozen=True, slots=True)
class CardsRedrawn(PrivateEvent):
    """After a failed challenge of their Embezzlement, `player` drew `drawn` for `shown`."""

    shown: tuple[Character, ...]
    drawn: tuple[Character, ...]


def event_types() -> list[type[Event]]:
    """Return every concrete event type."""
    return [
        cls
        for cls in globals().values()
        if isinstance(cls, type) and issubclass(cls, Event) and cls not in (Event, PrivateEvent)
    ]


def events_to_dicts(events: Iterable[Event]) -> list[dict[str, Any]]:
    """Events as JSON-safe dicts (`Event.to_dict`), in order."""
    return [e.to_dict() for e in events]


def events_from_dicts(data: Iterable[dict[str, Any]]) -> tuple[Event, ...]:
    """Events rebuilt from `events_to_dicts` output (ValueError if one is not an event)."""
    return tuple(event_from_dict(d) for d in data)


def event_from_dict(data: dict[str, Any]) -> Event:
    """Rebuild an event from `Event.to_dict()` output (ValueError if it is not one)."""
    types = {cls.__name__: cls for cls in event_types()}
    try:
        cls = types[data["type"]]
        hints = get_type_hints(cls)
        return cls(**{f.name: _typed(hints[f.name], data[f.name]) for f in fields(cls) if f.init})
    except (KeyError, TypeError, ValueError) as err:
        raise ValueError(f"not an event: {err}") from None


def _typed(hint: Any, value: Any) -> Any:
    """A JSON value as the field type `hint` says (enums, tuples, optional values)."""
    if value is None:
        return None
    args = [a for a in get_args(hint) if a is not type(None) and a is not Ellipsis]
    if get_origin(hint) is tuple:
        return tuple(_typed(args[0], v) for v in value)
    if args:  # X | None
        return _typed(args[0], value)
    if isinstance(hint, type) and issubclass(hint, Enum):
        return hint(value)
    return value
