"""Random legal play: the simulator behind `coup-bot simulate`, the engine benchmark and the
AI's win-rate measure."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from .ai import choose
from .engine import Decision, Game, Variant, view_of
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
        assert played.game.winner is not None  # the game was played to its end
        summary.wins_by_seat[seats.index(played.game.winner) + 1] += 1
    return summary, first


def play_against_random(
    seed: int,
    variant: Variant,
    players: int,
    ai_seats: set[int] | frozenset[int],
    on_ai_decision: Callable[[Game, int, Decision], None] | None = None,
    max_steps: int = 10_000,
) -> Game:
    """Play one seeded game: AI seats decide from their own view, the others at random;
    `on_ai_decision` sees each AI decision before it is applied."""
    driver = random.Random(seed)
    game, _ = Game.new(list(range(1, players + 1)), seed, variant=variant)
    for _ in range(max_steps):
        if game.over:
            break
        player = driver.choice(game.awaiting().players)
        if player in ai_seats:
            decision = choose(view_of(game, player), random.Random(seed * 7919 + game.version))
            if on_ai_decision is not None:
                on_ai_decision(game, player, decision)
        else:
            decision = driver.choice(game.legal_decisions(player))
        game.apply(player, decision)
    return game
