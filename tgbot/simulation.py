"""Random legal play: the simulator behind `coup-bot simulate` and the engine benchmark."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field

from .engine import Game, Variant
from .engine.events import Event


@dataclass(slots=True)
class PlayedGame:
    """One finished game: the final state, every event and the number of decisions."""

    game: Game
    events: list[Event]
    decisions: int


@dataclass(slots=True)
class Summary:
    """What many simulated games add up to."""

    games: int = 0
    decisions: int = 0
    wins_by_seat: Counter[int] = field(default_factory=Counter)


def play_random_game(
    player_ids: list[int], seed: int, driver: random.Random, variant: Variant = Variant.BASE
) -> PlayedGame:
    """Play one game: pick a player who may decide, then one of their legal decisions."""
    game, events = Game.new(player_ids, seed, variant=variant)
    decisions = 0
    while not game.over:
        player = driver.choice(game.awaiting().players)
        events += game.apply(player, driver.choice(game.legal_decisions(player)))
        decisions += 1
    return PlayedGame(game, events, decisions)


def simulate(
    players: int, games: int, seed: int, variant: Variant = Variant.BASE
) -> tuple[Summary, PlayedGame | None]:
    """Play `games` random games of `players`; return the summary and the first game."""
    driver = random.Random(seed)
    ids = list(range(1, players + 1))
    summary = Summary()
    first: PlayedGame | None = None
    for _ in range(games):
        played = play_random_game(ids, driver.getrandbits(64), driver, variant)
        first = first or played
        summary.games += 1
        summary.decisions += played.decisions
        seats = [p.id for p in played.game.players]
        summary.wins_by_seat[seats.index(played.game.winner) + 1] += 1
    return summary, first
