"""The decisions a player can send to the engine, as small immutable values."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from functools import lru_cache
from typing import NamedTuple

from .cards import Action, Character


class DecisionKind(StrEnum):
    """What the engine waits for; each kind has its own deadline."""

    TURN = "turn"
    RESPONSE = "response"
    LOSE_CARD = "lose_card"
    EXCHANGE = "exchange"
    SHOW_CARD = "show_card"  # Examine: the target picks the card to show the actor
    EXAMINE = "examine"  # Examine: the actor lets the target keep it or forces a swap


class Window(StrEnum):
    """Which response window is open."""

    ACTION = "action"  # challenge and/or block the declared action
    BLOCK = "block"  # the action survived a challenge: its target may still block
    BLOCK_CHALLENGE = "block_challenge"  # anyone but the blocker may challenge the block


@dataclass(frozen=True, slots=True)
class TakeAction:
    """Declare the turn's action, with a target for Coup, Assassinate and Steal."""

    action: Action
    target: int | None = None


@dataclass(frozen=True, slots=True)
class Challenge:
    """Challenge the claim on the table (the action's or the block's)."""


@dataclass(frozen=True, slots=True)
class Block:
    """Block the action, claiming the given character."""

    character: Character


@dataclass(frozen=True, slots=True)
class Pass:
    """Let the action (or block) on the table stand."""


@dataclass(frozen=True, slots=True)
class LoseCard:
    """Turn a face-down card of this character face up."""

    character: Character


@dataclass(frozen=True, slots=True)
class KeepCards:
    """After an exchange, keep these cards (as many as were held)."""

    cards: tuple[Character, ...]


@dataclass(frozen=True, slots=True)
class ShowCard:
    """Examine: show the examiner this face-down card."""

    character: Character


@dataclass(frozen=True, slots=True)
class LetKeep:
    """Examine: let the target keep the card they showed."""


@dataclass(frozen=True, slots=True)
class ForceExchange:
    """Examine: make the target swap the card they showed for one from the deck."""


Decision = (
    TakeAction
    | Challenge
    | Block
    | Pass
    | LoseCard
    | KeepCards
    | ShowCard
    | LetKeep
    | ForceExchange
)


class Awaiting(NamedTuple):
    """Who must decide now and of what kind; empty players when the game is over."""

    kind: DecisionKind | None
    players: tuple[int, ...]
    window: Window | None = None


# Decisions are immutable values, so the engine hands out shared instances instead of
# building the same ones again for every list of legal decisions.
CHALLENGE = Challenge()
PASS = Pass()
LET_KEEP = LetKeep()
FORCE_EXCHANGE = ForceExchange()
_BLOCKS = {c: Block(c) for c in Character}
_LOSES = {c: LoseCard(c) for c in Character}
_SHOWS = {c: ShowCard(c) for c in Character}


def block_as(character: Character) -> Block:
    """Return the shared Block decision for a character."""
    return _BLOCKS[character]


def lose(character: Character) -> LoseCard:
    """Return the shared LoseCard decision for a character."""
    return _LOSES[character]


def show(character: Character) -> ShowCard:
    """Return the shared ShowCard decision for a character."""
    return _SHOWS[character]


@lru_cache(maxsize=4096)  # player ids are unbounded: keep the most recently used
def take(action: Action, target: int | None = None) -> TakeAction:
    """Return a shared TakeAction decision."""
    return TakeAction(action, target)
