"""The AI player: always legal, sees only its own view, and clearly better than random."""

from __future__ import annotations

import random

import pytest

from tgbot.ai import choose
from tgbot.engine import Action, Decision, DecisionKind, Game, Variant, view_of
from tgbot.simulation import play_against_random


def play(seed: int, ai_seats: set[int], players: int = 4) -> Game:
    driver = random.Random(seed)
    game, _ = Game.new(list(range(1, players + 1)), seed)
    for _ in range(5000):
        if game.over:
            break
        player = driver.choice(game.awaiting().players)
        if player in ai_seats:
            decision = choose(view_of(game, player), random.Random(seed * 7919 + game.version))
            assert decision in game.legal_decisions(player)
        else:
            decision = driver.choice(game.legal_decisions(player))
        game.apply(player, decision)
    assert game.over, "AI players must finish their games"
    return game


def test_ai_only_makes_legal_decisions() -> None:
    for seed in range(200):
        play(seed, {1, 2, 3}, players=3 + seed % 4)


def test_ai_decides_from_its_own_view_only() -> None:
    checked = 0
    for seed in range(300):
        game, _ = Game.new([1, 2, 3, 4], seed)
        driver = random.Random(seed)
        for _ in range(driver.randint(0, 12)):
            if game.over:
                break
            p = driver.choice(game.awaiting().players)
            game.apply(p, driver.choice(game.legal_decisions(p)))
        if game.over or 1 not in game.awaiting().players:
            continue
        # Swap what player 1 cannot see: another player's face-down card with a deck card.
        other = game.clone()
        hidden = next(p for p in other.players if p.id != 1 and p.hidden)
        swap = next((i for i, c in enumerate(other.deck) if c != hidden.hidden[0]), None)
        if swap is None:
            continue
        hidden.hidden[0], other.deck[swap] = other.deck[swap], hidden.hidden[0]
        assert view_of(other, 1) == view_of(game, 1)
        for salt in range(3):
            assert choose(view_of(game, 1), random.Random(salt)) == choose(
                view_of(other, 1), random.Random(salt)
            )
        checked += 1
    assert checked > 50


def test_ai_beats_random_players_by_a_wide_margin() -> None:
    games = 400
    ai_wins = sum(play(seed, {1}).winner == 1 for seed in range(games))
    random_share = (games - ai_wins) / 3 / games
    print(
        f"\nAI win rate vs 3 random players: {ai_wins / games:.2f}; "
        f"each random player: {random_share:.2f}"
    )
    assert ai_wins / games > 0.6


# ---- the variants of VARIANTS.md ------------------------------------------------------

NEW_VARIANTS = [Variant.INQUISITOR, Variant.REFORMATION, Variant.REFORMATION_INQUISITOR]


def play_variant(
    seed: int,
    ai_seats: set[int],
    variant: Variant,
    players: int = 4,
    seen: set[object] | None = None,
) -> Game:
    """Play one game; `seen` collects the decision kinds and actions the AI took."""

    def check(game: Game, player: int, decision: Decision) -> None:
        assert decision in game.legal_decisions(player), (variant, decision)
        if seen is not None:
            seen.add(game.awaiting().kind)
            seen.add(getattr(decision, "action", None))

    game = play_against_random(seed, variant, players, ai_seats, check, max_steps=5000)
    assert game.over, "AI players must finish their games"
    return game


@pytest.mark.parametrize("variant", NEW_VARIANTS)
def test_ai_only_makes_legal_decisions_in_every_variant(variant: Variant) -> None:
    seen: set[object] = set()
    for seed in range(150):
        players = 2 + seed % 5
        play_variant(seed, set(range(1, players + 1)) - {players}, variant, players, seen)
    if variant.inquisitor:
        assert {DecisionKind.SHOW_CARD, DecisionKind.EXAMINE, Action.EXAMINE} <= seen
    if variant.reformation:
        assert Action.EMBEZZLE in seen


@pytest.mark.parametrize("variant", NEW_VARIANTS)
def test_ai_decides_from_its_own_view_only_in_every_variant(variant: Variant) -> None:
    checked = 0
    for seed in range(200):
        game, _ = Game.new([1, 2, 3, 4], seed, variant=variant)
        driver = random.Random(seed)
        for _ in range(driver.randint(0, 16)):
            if game.over:
                break
            p = driver.choice(game.awaiting().players)
            game.apply(p, driver.choice(game.legal_decisions(p)))
        if game.over or 1 not in game.awaiting().players:
            continue
        other = game.clone()
        hidden = next(
            (p for p in other.players if p.id not in (1, other.turn.target) and p.hidden), None
        )
        if hidden is None:
            continue
        swap = next((i for i, c in enumerate(other.deck) if c != hidden.hidden[0]), None)
        if swap is None:
            continue
        hidden.hidden[0], other.deck[swap] = other.deck[swap], hidden.hidden[0]
        assert view_of(other, 1) == view_of(game, 1)
        for salt in range(3):
            assert choose(view_of(game, 1), random.Random(salt)) == choose(
                view_of(other, 1), random.Random(salt)
            )
        checked += 1
    assert checked > 30


@pytest.mark.parametrize("variant", NEW_VARIANTS)
def test_ai_beats_random_players_in_every_variant(variant: Variant) -> None:
    games = 400
    ai_wins = sum(play_variant(seed, {1}, variant).winner == 1 for seed in range(games))
    print(f"\n{variant}: AI win rate vs 3 random players: {ai_wins / games:.2f}")
    assert ai_wins / games > 0.6
