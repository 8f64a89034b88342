"""Property tests: random legal play over many seeds, in every variant, keeps every invariant
of RULES.md and VARIANTS.md."""

from __future__ import annotations

import json
import random
from dataclasses import fields
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from tgbot.engine import (
    Action,
    DecisionKind,
    Game,
    Phase,
    Variant,
    game_from_dict,
    game_to_dict,
    view_of,
)
from tgbot.engine.events import (
    ActionDeclared,
    AllegianceChanged,
    BlockDeclared,
    CardReplaced,
    CardRevealed,
    CardsDealt,
    CardShownTo,
    CardsRedrawn,
    ClaimProven,
    EmbezzlerCleared,
    Event,
    ExaminedCard,
    ExchangeDrawn,
    ExchangeKept,
    PlayerEliminated,
)

from .helpers import check_invariants

MAX_STEPS = 3000
PRIVATE_TYPES = (
    CardsDealt,
    CardReplaced,
    ExchangeDrawn,
    ExchangeKept,
    ExaminedCard,
    CardShownTo,
    CardsRedrawn,
)
# Public events that may name a card: face up, shown to win a challenge, or shown by an
# embezzler who held no Duke.
PUBLIC_CARD_TYPES = (CardRevealed, ClaimProven, EmbezzlerCleared)
VARIANTS = list(Variant)
TARGETED = (Action.COUP, Action.ASSASSINATE, Action.STEAL, Action.EXAMINE)

# The choices of one player among their own cards: never asked when all are the same.
ONE_PLAYER_CHOICES = (DecisionKind.LOSE_CARD, DecisionKind.EXCHANGE, DecisionKind.SHOW_CARD)

Step = tuple[Any, ...]


def play_random(
    players: int,
    seed: int,
    driver_seed: int,
    check: bool = True,
    variant: Variant = Variant.BASE,
) -> tuple:
    """Play one game with random legal decisions, timeouts and leaves; check every step."""
    driver = random.Random(driver_seed)
    game, events = Game.new(list(range(100, 100 + players)), seed, variant=variant)
    if check:
        check_setup(game)
    log: list[Step] = []
    all_events: list[Event] = list(events)
    for _ in range(MAX_STEPS):
        if game.over:
            break
        before = game.version
        prior = game.clone() if check else game
        roll = driver.random()
        if roll < 0.05:
            step: Step = ("timeout",)
            events = game.apply_timeout()
        elif roll < 0.06:
            pid = driver.choice([p.id for p in game.alive_players()])
            step = ("leave", pid)
            events = game.leave(pid)
        else:
            pid = driver.choice(game.awaiting().players)
            decision = driver.choice(game.legal_decisions(pid))
            step = ("apply", pid, decision)
            events = game.apply(pid, decision)
        log.append(step)
        all_events += events
        assert game.version == before + 1
        if check:
            check_step(game, events)
            check_allegiances(prior, game, events)
            check_afk_streaks(prior, game, step)
    assert game.over, "a game must end"
    return game, log, all_events


def check_afk_streaks(prior: Game, game: Game, step: Step) -> None:
    """The AFK streak counts turns only, in every variant: a timed-out turn adds one, a
    decision of one's own resets it, any other timeout leaves it as it was."""
    kind, awaited = prior.awaiting().kind, prior.awaiting().players
    for p, q in zip(prior.players, game.players, strict=True):
        if not q.hidden:
            continue  # out of the game (perhaps for this very streak)
        if step[0] == "apply" and step[1] == p.id:
            assert q.afk_turns == 0
        elif step[0] == "timeout" and kind is DecisionKind.TURN and p.id in awaited:
            assert q.afk_turns == p.afk_turns + 1
        else:
            assert q.afk_turns == p.afk_turns


def check_setup(game: Game) -> None:
    """Allegiances alternate in seat order from the first player (Reformation only)."""
    if not game.variant.reformation:
        return
    seats = game.players
    start = next(i for i, p in enumerate(seats) if p.id == game.turn.actor)
    for k in range(1, len(seats)):
        before, now = seats[(start + k - 1) % len(seats)], seats[(start + k) % len(seats)]
        assert now.allegiance is not before.allegiance
    assert game.divided()


def check_allegiances(prior: Game, game: Game, events: list[Event]) -> None:
    """Only a Conversion flips an allegiance (exactly one), and the divided-table bans hold."""
    flipped = [
        p.id
        for p, q in zip(prior.players, game.players, strict=True)
        if p.allegiance is not q.allegiance
    ]
    converted = [e for e in events if isinstance(e, AllegianceChanged)]
    assert flipped == [e.player for e in converted]
    assert len(converted) <= 1
    if converted:
        assert game.reserve - prior.reserve == (1 if converted[0].actor == flipped[0] else 2)
        assert game.treasury == prior.treasury
    elif game.reserve != prior.reserve:  # Embezzlement: the Reserve, not the treasury
        assert game.reserve == 0
        returned = sum(e.coins for e in events if isinstance(e, PlayerEliminated))
        assert game.treasury == prior.treasury + returned
    if not prior.divided():
        return
    for e in events:
        if isinstance(e, ActionDeclared) and e.action in TARGETED:
            assert e.target is not None
            assert prior.player(e.target).allegiance is not prior.player(e.actor).allegiance
        if isinstance(e, BlockDeclared) and e.action is Action.FOREIGN_AID:
            assert prior.player(e.blocker).allegiance is not prior.player(e.actor).allegiance


def check_step(game: Game, events: list[Event]) -> None:
    check_invariants(game)
    data = game_to_dict(game)
    assert json.loads(json.dumps(data)) == data
    restored = game_from_dict(data)
    assert game_to_dict(restored) == data
    for pid in (p.id for p in game.players):
        assert restored.legal_decisions(pid) == game.legal_decisions(pid)
    assert restored.awaiting() == game.awaiting()
    for event in events:
        check_event_privacy(game, event)
    for p in game.players:
        check_view(game, p.id)
    check_view(game, None)
    waiting = game.awaiting()
    if not game.over:
        assert waiting.players, "someone must always be awaited"
        for pid in waiting.players:
            assert game.player(pid).hidden and game.legal_decisions(pid)
            if waiting.kind in ONE_PLAYER_CHOICES:  # no question with one answer
                assert len(game.legal_decisions(pid)) > 1, (waiting, game.legal_decisions(pid))


def check_event_privacy(game: Game, event: Event) -> None:
    if isinstance(event, PRIVATE_TYPES):
        assert event.recipient == event.player
        assert game.has_player(event.recipient)
    else:
        assert event.recipient is None
        # A public event names a card only when it is face up or shown to win a challenge.
        assert isinstance(event, PUBLIC_CARD_TYPES) or not any(
            f.name in ("cards", "drawn", "kept", "shown") for f in fields(event)
        )


def check_view(game: Game, viewer: int | None) -> None:
    view = view_of(game, viewer)
    assert {f.name for f in fields(view.seats[0])} == {
        "id",
        "coins",
        "revealed",
        "cards_down",
        "allegiance",
    }
    for seat in view.seats:
        p = game.player(seat.id)
        assert seat.cards_down == len(p.hidden) and seat.revealed == tuple(p.revealed)
        assert seat.allegiance is p.allegiance
    assert view.reserve == game.reserve and view.variant is game.variant
    if viewer is None:
        assert view.my_cards == () and view.exchange_drawn == () and view.examined is None
    else:
        assert view.my_cards == tuple(game.player(viewer).hidden)
        if view.exchange_drawn:
            assert game.turn.actor == viewer
        if view.examined is not None:
            assert game.phase is Phase.EXAMINE_DECIDE
            assert viewer in (game.turn.actor, game.turn.target)


@settings(max_examples=150, deadline=None)
@given(
    players=st.integers(min_value=2, max_value=6),
    seed=st.integers(min_value=0, max_value=2**64 - 1),
    driver_seed=st.integers(min_value=0, max_value=2**32),
)
def test_random_games_keep_every_invariant(players: int, seed: int, driver_seed: int) -> None:
    play_random(players, seed, driver_seed)


@settings(max_examples=100, deadline=None)
@given(
    variant=st.sampled_from([v for v in VARIANTS if v is not Variant.BASE]),
    players=st.integers(min_value=2, max_value=6),
    seed=st.integers(min_value=0, max_value=2**64 - 1),
    driver_seed=st.integers(min_value=0, max_value=2**32),
)
def test_random_variant_games_keep_every_invariant(
    variant: Variant, players: int, seed: int, driver_seed: int
) -> None:
    play_random(players, seed, driver_seed, variant=variant)


@settings(max_examples=80, deadline=None)
@given(
    variant=st.sampled_from(VARIANTS),
    players=st.integers(min_value=2, max_value=6),
    seed=st.integers(min_value=0, max_value=2**64 - 1),
    driver_seed=st.integers(min_value=0, max_value=2**32),
)
def test_replaying_seed_and_decisions_gives_the_same_game(
    variant: Variant, players: int, seed: int, driver_seed: int
) -> None:
    game, log, events = play_random(players, seed, driver_seed, check=False, variant=variant)
    replay, replay_events = Game.new(list(range(100, 100 + players)), seed, variant=variant)
    for step in log:
        if step[0] == "timeout":
            replay_events += replay.apply_timeout()
        elif step[0] == "leave":
            replay_events += replay.leave(step[1])
        else:
            replay_events += replay.apply(step[1], step[2])
    assert replay_events == events
    assert game_to_dict(replay) == game_to_dict(game)


def test_a_thousand_seeded_games_all_end() -> None:
    winners = set()
    for seed in range(1000):
        game, _, _ = play_random(6, seed, seed, check=False)
        winners.add(game.winner)
    assert len(winners) == 6


def test_five_hundred_seeded_games_of_each_new_variant_all_end() -> None:
    for variant in VARIANTS[1:]:
        winners = set()
        for seed in range(500):
            game, _, _ = play_random(2 + seed % 5, seed, seed, check=False, variant=variant)
            winners.add(game.winner)
        assert len(winners) >= 5, variant


def test_clone_is_independent() -> None:
    game, _ = Game.new([1, 2, 3], seed=9)
    copy = game.clone()
    actor = game.awaiting().players[0]
    game.apply(actor, game.legal_decisions(actor)[0])
    assert game_to_dict(copy) != game_to_dict(game)
    assert copy.version == game.version - 1
