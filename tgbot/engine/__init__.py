"""The Coup rules engine: a pure, seeded, deterministic state machine.

Standard library only: no Telegram, storage, gettext, clock or global random. One
`GameRandom` (a `random.Random`) per game drives seating, shuffles and draws, so a game is
reproducible from its seed and its decisions.

Typical use::

    game, events = Game.new([11, 22, 33], seed=42)   # 2-6 player ids; variant="base"
    waiting = game.awaiting()          # kind (turn/response/lose_card/exchange/...) + players
    options = game.legal_decisions(waiting.players[0])
    events = game.apply(waiting.players[0], options[0], expected_version=game.version)
    events = game.apply_timeout()      # the RULES.md default for whoever is awaited
    events = game.leave(22)            # a player leaves: their cards turn face up
    inq, _ = Game.new([1, 2], seed=7, variant="reformation+inquisitor")  # VARIANTS.md
    view = view_of(game, 11)           # what player 11 may know; view_of(game) for the group
    data = game_to_dict(game)          # JSON-safe, with a schema version
    same = game_from_dict(data)

`apply`, `apply_timeout` and `leave` change the game in place (use `clone()` to keep the
old state) and return the events they caused; anything illegal raises `IllegalDecision`
with a `Reason` and leaves the game unchanged. `game.version` grows with every change.
Each event is public (`recipient is None`) or private to one player (`recipient`).
"""

from .cards import (
    ACTIONS,
    MAX_PLAYERS,
    MIN_PLAYERS,
    VARIANT_ACTIONS,
    Action,
    ActionSpec,
    Allegiance,
    Character,
    Variant,
)
from .decisions import (
    Awaiting,
    Block,
    Challenge,
    Decision,
    DecisionKind,
    ForceExchange,
    KeepCards,
    LetKeep,
    LoseCard,
    Pass,
    ShowCard,
    TakeAction,
    Window,
)
from .errors import IllegalDecision, Reason
from .events import Event, PrivateEvent
from .game import Game, Phase
from .legacy import RULES_VERSION, game_class
from .rng import SEED_BITS, GameRandom
from .serial import SCHEMA_VERSION, game_from_dict, game_to_dict
from .view import PlayerView, SeatView, view_of

__all__ = [
    "ACTIONS",
    "MAX_PLAYERS",
    "MIN_PLAYERS",
    "RULES_VERSION",
    "SCHEMA_VERSION",
    "SEED_BITS",
    "VARIANT_ACTIONS",
    "Action",
    "ActionSpec",
    "Allegiance",
    "Awaiting",
    "Block",
    "Challenge",
    "Character",
    "Decision",
    "DecisionKind",
    "Event",
    "ForceExchange",
    "Game",
    "GameRandom",
    "IllegalDecision",
    "KeepCards",
    "LetKeep",
    "LoseCard",
    "Pass",
    "Phase",
    "PlayerView",
    "PrivateEvent",
    "Reason",
    "SeatView",
    "ShowCard",
    "TakeAction",
    "Variant",
    "Window",
    "game_class",
    "game_from_dict",
    "game_to_dict",
    "view_of",
]
