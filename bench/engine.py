"""Complete 6-player random games per second: our engine beside coupml 0.1.1.

Random legal play for both: pick a player who may decide, then one of their legal
decisions, uniformly. Run: `python bench/engine.py [--seconds S] [--rounds R]`
(coupml comes with `pip install -e '.[bench]'`). The base game is compared with coupml;
the variants of VARIANTS.md (which coupml does not have) are reported for our engine only.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import time
from collections.abc import Callable, Sequence
from functools import partial
from typing import TypeVar

from tgbot.engine import Game, Variant

PLAYERS = 6
T = TypeVar("T")


def pick(driver: random.Random, options: Sequence[T]) -> T:
    """Choose uniformly; a single option needs no draw (the same for both engines)."""
    return options[0] if len(options) == 1 else driver.choice(options)


def ours(driver: random.Random, variant: Variant = Variant.BASE) -> int:
    """Play one game on our engine; return the number of decisions."""
    game, _ = Game.new(list(range(1, PLAYERS + 1)), driver.getrandbits(64), variant=variant)
    decisions = 0
    while not game.over:
        player = pick(driver, game.awaiting().players)
        game.apply(player, pick(driver, game.legal_decisions(player)))
        decisions += 1
    return decisions


class _NumpyLikeRandom:
    """The two calls coupml makes on its numpy RandomState, served by random.Random."""

    def __init__(self, driver: random.Random) -> None:
        self._driver = driver

    def choice(self, items: object) -> object:
        if isinstance(items, int):
            return self._driver.randrange(items)
        return self._driver.choice(list(items))  # type: ignore[call-overload]

    def shuffle(self, items: list) -> None:
        self._driver.shuffle(items)


def coupml_game(driver: random.Random) -> int:
    """Play one game on coupml; it has one player to act at a time."""
    from coupml import Coup

    game = Coup(PLAYERS, _NumpyLikeRandom(driver))
    game.init_game()
    decisions = 0
    while not game.is_game_over():
        game.play_action(pick(driver, game.get_legal_actions()))
        decisions += 1
    return decisions


def measure(play: Callable[[random.Random], int], seconds: float, seed: int) -> tuple[float, float]:
    """Return (games per second, microseconds per decision) over about `seconds`."""
    driver = random.Random(seed)
    games = decisions = 0
    started = time.perf_counter()
    while (elapsed := time.perf_counter() - started) < seconds:
        decisions += play(driver)
        games += 1
    return games / elapsed, elapsed / decisions * 1e6


def main() -> None:
    """Alternate the engines for a few rounds and print the medians and the ratio."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--base-only", action="store_true", help="skip the variants")
    args = parser.parse_args()
    print(f"machine: {platform.machine()} {platform.processor() or ''} cpus={os.cpu_count()}")
    print(f"python: {platform.python_implementation()} {platform.python_version()}")
    plays: dict[str, Callable[[random.Random], int]] = {"ours": ours, "coupml": coupml_game}
    if not args.base_only:
        for variant in list(Variant)[1:]:
            plays[f"ours {variant.value}"] = partial(ours, variant=variant)
    results: dict[str, list[tuple[float, float]]] = {name: [] for name in plays}
    for r in range(args.rounds):
        for name, play in plays.items():
            results[name].append(measure(play, args.seconds, seed=r))
    medians = {}
    width = max(7, *(len(name) for name in results))
    for name, runs in results.items():
        gps = statistics.median(g for g, _ in runs)
        usd = statistics.median(u for _, u in runs)
        medians[name] = gps
        print(
            f"{name:{width}s} {gps:8.0f} games/s  {usd:6.1f} us/decision  (median of {len(runs)})"
        )
    print(f"ratio ours/coupml: {medians['ours'] / medians['coupml']:.2f} (base game)")
    if not args.base_only:
        print("the variants: our engine only (coupml has none)")


if __name__ == "__main__":
    main()
