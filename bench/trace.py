"""A hash of everything the engine says over thousands of random games, for refactors.

Every variant, 2-6 players, random seeds and AFK limits; random legal play with timeouts,
leaves, refused decisions, JSON round trips, clones and views on the way. Two engines that
print the same hash emitted the same events, awaited the same players, listed the same
legal decisions in the same order and reached the same states.
Run: `python bench/trace.py [GAMES_PER_VARIANT]` (3,000 by default).
"""

from __future__ import annotations

import hashlib
import json
import random
import sys

from tgbot.engine import (
    SEED_BITS,
    Action,
    Game,
    IllegalDecision,
    TakeAction,
    Variant,
    game_from_dict,
    game_to_dict,
    view_of,
)


def trace(games_per_variant: int) -> str:
    """Play the games and return the hash of their trace."""
    digest = hashlib.sha256()

    def put(item: object) -> None:
        digest.update(repr(item).encode())
        digest.update(b"|")

    for variant in Variant:
        driver = random.Random(f"trace-{variant}")
        for _ in range(games_per_variant):
            ids = driver.sample(range(1, 10**9), driver.randint(2, 6))
            game, events = Game.new(
                ids, driver.getrandbits(SEED_BITS), variant=variant, afk_limit=driver.randint(1, 3)
            )
            put([e.to_dict() for e in events])
            steps = 0
            while not game.over:
                steps += 1
                awaiting = game.awaiting()
                put(awaiting)
                roll = driver.random()
                if roll < 0.04:
                    events = game.apply_timeout(expected_version=game.version)
                elif roll < 0.05:
                    events = game.leave(driver.choice([p.id for p in game.alive_players()]))
                elif roll < 0.07:
                    try:  # anyone, anything: mostly refused
                        events = game.apply(driver.choice(ids), TakeAction(Action.INCOME))
                    except IllegalDecision as refused:
                        put(refused.reason)
                        continue
                else:
                    player = driver.choice(awaiting.players)
                    legal = game.legal_decisions(player)
                    put(legal)
                    events = game.apply(player, driver.choice(legal), game.version)
                put([(e.to_dict(), e.recipient) for e in events])
                if steps % 7 == 0:
                    data = game_to_dict(game)
                    put(json.dumps(data, sort_keys=True))
                    game = game_from_dict(data) if steps % 14 == 0 else game.clone()
                if steps % 11 == 0:
                    put(view_of(game, driver.choice(ids)))
                    put(view_of(game))
            put(json.dumps(game_to_dict(game), sort_keys=True))
    return digest.hexdigest()


if __name__ == "__main__":
    print(trace(int(sys.argv[1]) if len(sys.argv) > 1 else 3000))
