"""Complete 6-player random games per second: our engine beside coupml 0.1.1.

Random legal play for both: pick a player who may decide, then one of their legal
decisions, uniformly. The engines take turns of a quarter second within each round, so
that a busy machine slows them alike; the ratio is taken per round, and its median and
spread printed. Run: `python bench/engine.py [--seconds S] [--rounds R]`
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
from dataclasses import dataclass
from functools import partial
from typing import TypeVar

from tgbot.engine import SEED_BITS, Game, Variant

PLAYERS = 6
T = TypeVar("T")


def pick(driver: random.Random, options: Sequence[T]) -> T:
    """Choose uniformly; a single option needs no draw (the same for both engines)."""
    return options[0] if len(options) == 1 else driver.choice(options)


def ours(driver: random.Random, variant: Variant = Variant.BASE) -> int:
    """Play one game on our engine; return the number of decisions."""
    game, _ = Game.new(list(range(1, PLAYERS + 1)), driver.getrandbits(SEED_BITS), variant=variant)
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


@dataclass
class Tally:
    """One engine's games, decisions and time in a round."""

    driver: random.Random
    games: int = 0
    decisions: int = 0
    elapsed: float = 0.0


def measure(
    plays: dict[str, Callable[[random.Random], int]], seconds: float, seed: int, slice_s: float
) -> dict[str, tuple[float, float]]:
    """(games per second, microseconds per decision) of each engine over about `seconds`,
    taken in turns of `slice_s`, so that every engine sees the same load on a busy machine."""
    tallies = {name: Tally(random.Random(seed)) for name in plays}
    while any(t.elapsed < seconds for t in tallies.values()):
        for name, play in plays.items():
            t = tallies[name]
            started = time.perf_counter()
            while (spent := time.perf_counter() - started) < slice_s:
                t.decisions += play(t.driver)
                t.games += 1
            t.elapsed += spent
    return {n: (t.games / t.elapsed, t.elapsed / t.decisions * 1e6) for n, t in tallies.items()}


def main() -> None:
    """Interleave the engines for a few rounds; print the medians and the ratio's spread."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=3.0, help="per engine and round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--slice", type=float, default=0.25, help="seconds per turn")
    parser.add_argument("--base-only", action="store_true", help="skip the variants")
    args = parser.parse_args()
    print(f"machine: {platform.machine()} {platform.processor() or ''} cpus={os.cpu_count()}")
    print(f"python: {platform.python_implementation()} {platform.python_version()}")
    plays: dict[str, Callable[[random.Random], int]] = {"ours": ours, "coupml": coupml_game}
    if not args.base_only:
        for variant in list(Variant)[1:]:
            plays[f"ours {variant.value}"] = partial(ours, variant=variant)
    results: dict[str, list[tuple[float, float]]] = {name: [] for name in plays}
    ratios = []
    for r in range(args.rounds):
        round_ = measure(plays, args.seconds, r, args.slice)
        for name, figures in round_.items():
            results[name].append(figures)
        ratios.append(round_["ours"][0] / round_["coupml"][0])
    width = max(7, *(len(name) for name in results))
    for name, runs in results.items():
        gps = statistics.median(g for g, _ in runs)
        usd = statistics.median(u for _, u in runs)
        print(
            f"{name:{width}s} {gps:8.0f} games/s  {usd:6.1f} us/decision  (median of {len(runs)})"
        )
    spread = " ".join(f"{x:.2f}" for x in ratios)
    print(f"ratio ours/coupml: {statistics.median(ratios):.2f} (base game; rounds: {spread})")
    if not args.base_only:
        print("the variants: our engine only (coupml has none)")


if __name__ == "__main__":
    main()
