"""The AI against random players, per variant: one AI seat among random seats.

Each game seats one AI player (always player 1, wherever the seed seats it) among
`players - 1` players who pick uniformly among their legal decisions. Run:
`python bench/ai.py [--games N] [--players P]`. A random player's fair share is 1/P.
"""

from __future__ import annotations

import argparse

from tgbot.engine import Decision, Game, Variant
from tgbot.simulation import play_against_random


def _legal(game: Game, player: int, decision: Decision) -> None:
    assert decision in game.legal_decisions(player), (game.variant, decision)


def play(seed: int, variant: Variant, players: int, ai_seats: frozenset[int]) -> Game:
    """Play one seeded game; AI seats decide from their own view, the rest at random."""
    game = play_against_random(seed, variant, players, ai_seats, _legal)
    assert game.over, "every game must end"
    return game


def win_rate(variant: Variant, games: int, players: int) -> float:
    """The share of `games` that the one AI seat wins."""
    wins = sum(play(seed, variant, players, frozenset({1})).winner == 1 for seed in range(games))
    return wins / games


def main() -> None:
    """Print the AI's win rate per variant beside a random player's fair share."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--players", type=int, default=4)
    args = parser.parse_args()
    print(
        f"one AI vs {args.players - 1} random players, {args.games} games per variant "
        f"(a random seat's fair share: {1 / args.players:.2f})"
    )
    for variant in Variant:
        rate = win_rate(variant, args.games, args.players)
        print(f"{variant.value:24s} AI win rate {rate:.3f}")


if __name__ == "__main__":
    main()
