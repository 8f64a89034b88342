"""The game's generator: reproducible, one integer of state, and shuffles that are uniform."""

from __future__ import annotations

import itertools
import math
from collections import Counter

from tgbot.engine import GameRandom


def test_the_same_seed_gives_the_same_draws_and_the_state_round_trips() -> None:
    first, second = GameRandom(2024), GameRandom(2024)
    assert [first.getrandbits(64) for _ in range(5)] == [second.getrandbits(64) for _ in range(5)]
    saved = first.getstate()
    assert isinstance(saved, int)
    ahead = [first.randrange(1000) for _ in range(5)]
    first.setstate(saved)
    assert [first.randrange(1000) for _ in range(5)] == ahead


def test_shuffle_keeps_the_items_and_moves_them() -> None:
    rng = GameRandom(7)
    for size in (0, 1, 2, 15, 20, 21, 40):  # 21 and up take the item-by-item path
        items = list(range(size))
        rng.shuffle(items)
        assert sorted(items) == list(range(size))
    deck = list(range(15))
    orders = set()
    for _ in range(50):
        rng.shuffle(deck)
        orders.add(tuple(deck))
    assert len(orders) == 50


def test_every_order_of_four_cards_is_equally_likely() -> None:
    rng = GameRandom(11)
    rounds = 48_000
    seen: Counter[tuple[int, ...]] = Counter()
    for _ in range(rounds):
        cards = [0, 1, 2, 3]
        rng.shuffle(cards)
        seen[tuple(cards)] += 1
    assert set(seen) == set(itertools.permutations(range(4)))
    expected = rounds / math.factorial(4)
    chi_square = sum((count - expected) ** 2 / expected for count in seen.values())
    # 23 degrees of freedom: the 99.9th percentile is 49.7.
    assert chi_square < 49.7, chi_square


def test_each_card_is_equally_likely_on_top_of_a_fifteen_card_deck() -> None:
    rng = GameRandom(3)
    rounds = 30_000
    tops: Counter[int] = Counter()
    for _ in range(rounds):
        deck = list(range(15))
        rng.shuffle(deck)
        tops[deck[-1]] += 1
    expected = rounds / 15
    chi_square = sum((tops[card] - expected) ** 2 / expected for card in range(15))
    # 14 degrees of freedom: the 99.9th percentile is 36.1.
    assert chi_square < 36.1, chi_square
