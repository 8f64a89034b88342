"""Builders for scenario tests: games with known hands, seats and coins."""

from __future__ import annotations

from collections import Counter

from tgbot.engine import (
    RULES_VERSION,
    Allegiance,
    Character,
    DecisionKind,
    Game,
    Pass,
    Variant,
    game_class,
)
from tgbot.engine.cards import full_deck
from tgbot.engine.events import Event

D, A, CP, AM, CT = (
    Character.DUKE,
    Character.ASSASSIN,
    Character.CAPTAIN,
    Character.AMBASSADOR,
    Character.CONTESSA,
)
IQ = Character.INQUISITOR
L, R = Allegiance.LOYALIST, Allegiance.REFORMIST


def stacked_game(
    hands: list[tuple[Character, ...]],
    *,
    deck_top: tuple[Character, ...] = (),
    first: int = 1,
    seed: int = 7,
    afk_limit: int = 2,
    coins: dict[int, int] | None = None,
    variant: Variant = Variant.BASE,
    sides: str | None = None,
    reserve: int = 0,
    rules: int = RULES_VERSION,
) -> Game:
    """Players 1..n sit in order with these hands; `deck_top` is drawn first.

    `sides` sets the allegiances in seat order ("LRL": 1 Loyalist, 2 Reformist, ...) and
    `reserve` moves coins from the treasury to the Treasury Reserve (Reformation games);
    `rules` is the rules version (1 only to check how old records rebuild).
    """
    wanted = [c for hand in hands for c in hand] + list(deck_top)
    left = Counter(full_deck(variant))
    left.subtract(Counter(wanted))
    assert all(n >= 0 for n in left.values()), "more than 3 of a character"
    remaining = []
    for card in full_deck(variant):
        if left[card] > 0:
            remaining.append(card)
            left[card] -= 1
    game, _ = game_class(variant, rules).new(
        list(range(1, len(hands) + 1)),
        seed,
        deck=wanted + remaining,
        keep_seating=True,
        first_player=first,
        afk_limit=afk_limit,
        variant=variant,
    )
    for pid, amount in (coins or {}).items():
        set_coins(game, pid, amount)
    if sides is not None:
        for p, side in zip(game.players, sides, strict=True):
            p.allegiance = L if side == "L" else R
    if reserve:
        game.treasury -= reserve
        game.reserve += reserve
    return game


def set_coins(game: Game, player_id: int, amount: int) -> None:
    """Give a player exactly `amount` coins, moving the difference to or from the treasury."""
    me = game.player(player_id)
    game.treasury -= amount - me.coins
    me.coins = amount
    assert game.treasury >= 0


def kinds(events: list[Event]) -> list[str]:
    """The event type names, in order."""
    return [e.kind for e in events]


def only(events: list[Event], kind: str) -> Event:
    """The single event of a kind."""
    found = [e for e in events if e.kind == kind]
    assert len(found) == 1, f"expected one {kind}, got {kinds(events)}"
    return found[0]


def check_invariants(game: Game) -> None:
    """The invariants of RULES.md and VARIANTS.md."""
    assert game.coin_count() == 50
    assert game.treasury >= 0 and all(p.coins >= 0 for p in game.players)
    assert game.reserve >= 0
    if not game.variant.reformation:
        assert game.reserve == 0
        assert all(p.allegiance is None for p in game.players)
    else:
        assert all(isinstance(p.allegiance, Allegiance) for p in game.players)
    cards = Counter(game.deck) + Counter(game.turn.drawn)
    for p in game.players:
        cards += Counter(p.hidden) + Counter(p.revealed)
    assert cards == Counter(full_deck(game.variant))
    if not game.turn.drawn:
        assert len(game.deck) == 15 - 2 * len(game.players)
    for p in game.players:
        assert len(p.hidden) + len(p.revealed) == 2
        if not p.hidden:
            assert p.coins == 0
    alive = [p for p in game.players if p.hidden]
    if game.over:
        assert len(alive) == 1 and game.winner == alive[0].id
    else:
        assert len(alive) >= 2


def everyone_passes(game: Game) -> list:
    """All awaited responders pass; return the events of all the passes."""
    events: list = []
    while game.awaiting().kind is DecisionKind.RESPONSE:
        events += game.apply(game.awaiting().players[0], Pass())
    return events
