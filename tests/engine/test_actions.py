"""Each action of RULES.md, unchallenged and unblocked, and the setup rules."""

from __future__ import annotations

from tgbot.engine import (
    Action,
    Block,
    Challenge,
    DecisionKind,
    Game,
    KeepCards,
    LoseCard,
    Pass,
    TakeAction,
    Window,
)
from tgbot.engine.cards import sorted_cards

from .helpers import AM, CP, CT, A, D, check_invariants, kinds, only, set_coins, stacked_game


def everyone_passes(game: Game) -> list:
    """All awaited responders pass; return the events of the last pass."""
    events: list = []
    while game.awaiting().kind is DecisionKind.RESPONSE:
        events = game.apply(game.awaiting().players[0], Pass())
    return events


def test_setup_deals_two_cards_and_two_coins_to_each_of_six() -> None:
    game, events = Game.new([10, 20, 30, 40, 50, 60], seed=1)
    assert sorted(p.id for p in game.players) == [10, 20, 30, 40, 50, 60]
    assert all(len(p.hidden) == 2 and p.coins == 2 for p in game.players)
    assert len(game.deck) == 3 and game.treasury == 38
    dealt = [e for e in events if e.kind == "CardsDealt"]
    assert {e.recipient for e in dealt} == {10, 20, 30, 40, 50, 60}
    check_invariants(game)


def test_seating_and_first_player_come_from_the_seed() -> None:
    seatings = {tuple(p.id for p in Game.new([1, 2, 3, 4], seed=s)[0].players) for s in range(30)}
    firsts = {Game.new([1, 2, 3, 4], seed=s)[0].turn.actor for s in range(30)}
    assert len(seatings) > 5 and firsts == {1, 2, 3, 4}
    once, twice = Game.new([1, 2, 3, 4], seed=5)[0], Game.new([1, 2, 3, 4], seed=5)[0]
    assert [p.hidden for p in once.players] == [p.hidden for p in twice.players]


def test_two_player_first_player_takes_one_coin() -> None:
    for seed in range(10):
        game, events = Game.new([1, 2], seed=seed)
        first = game.turn.actor
        assert game.player(first).coins == 1
        other = 2 if first == 1 else 1
        assert game.player(other).coins == 2
        assert game.treasury == 47
        assert only(events, "GameStarted").first == first


def test_three_players_all_take_two_coins() -> None:
    game, _ = Game.new([1, 2, 3], seed=3)
    assert [p.coins for p in game.players] == [2, 2, 2]


def test_income_takes_one_coin_and_cannot_be_answered() -> None:
    game = stacked_game([(D, A), (CP, CT), (AM, AM)])
    events = game.apply(1, TakeAction(Action.INCOME))
    assert game.player(1).coins == 3
    assert kinds(events) == ["ActionDeclared", "ActionResolved", "TurnStarted"]
    assert game.awaiting().kind is DecisionKind.TURN and game.awaiting().players == (2,)
    check_invariants(game)


def test_foreign_aid_unblocked_takes_two() -> None:
    game = stacked_game([(D, A), (CP, CT), (AM, AM)])
    game.apply(1, TakeAction(Action.FOREIGN_AID))
    waiting = game.awaiting()
    assert waiting.kind is DecisionKind.RESPONSE and waiting.window is Window.ACTION
    assert waiting.players == (2, 3)
    # Foreign Aid claims nothing: only Block as Duke and Pass are offered.
    assert game.legal_decisions(2) == [Block(D), Pass()]
    everyone_passes(game)
    assert game.player(1).coins == 4
    check_invariants(game)


def test_coup_costs_seven_and_target_loses_a_card() -> None:
    game = stacked_game([(D, A), (CP, CT), (AM, AM)], coins={1: 7})
    events = game.apply(1, TakeAction(Action.COUP, 2))
    assert game.player(1).coins == 0
    assert only(events, "ActionDeclared").cost == 7
    assert game.awaiting().kind is DecisionKind.LOSE_CARD and game.awaiting().players == (2,)
    assert game.legal_decisions(2) == [LoseCard(CP), LoseCard(CT)]
    events = game.apply(2, LoseCard(CT))
    assert game.player(2).revealed == [CT] and game.player(2).hidden == [CP]
    assert only(events, "CardRevealed").character is CT
    assert game.awaiting().players == (2,) and game.awaiting().kind is DecisionKind.TURN
    check_invariants(game)


def test_coup_needs_seven_coins() -> None:
    game = stacked_game([(D, A), (CP, CT)], coins={1: 6})
    assert TakeAction(Action.COUP, 2) not in game.legal_decisions(1)
    set_coins(game, 1, 7)
    assert TakeAction(Action.COUP, 2) in game.legal_decisions(1)


def test_tax_unchallenged_takes_three() -> None:
    game = stacked_game([(CT, A), (CP, CT), (AM, AM)])
    game.apply(1, TakeAction(Action.TAX))
    assert game.legal_decisions(2) == [Challenge(), Pass()]
    everyone_passes(game)
    assert game.player(1).coins == 5


def test_assassinate_unanswered_costs_three_and_kills() -> None:
    game = stacked_game([(D, A), (CP, CT), (AM, AM)], coins={1: 3})
    game.apply(1, TakeAction(Action.ASSASSINATE, 2))
    assert game.player(1).coins == 0
    # Everyone may challenge; only the target may block, as Contessa.
    assert game.legal_decisions(2) == [Challenge(), Block(CT), Pass()]
    assert game.legal_decisions(3) == [Challenge(), Pass()]
    everyone_passes(game)
    assert game.awaiting().kind is DecisionKind.LOSE_CARD
    game.apply(2, LoseCard(CP))
    assert game.player(2).hidden == [CT]
    check_invariants(game)


def test_steal_takes_two() -> None:
    game = stacked_game([(CP, A), (D, CT), (AM, AM)], coins={2: 5})
    game.apply(1, TakeAction(Action.STEAL, 2))
    assert game.legal_decisions(2) == [Challenge(), Block(CP), Block(AM), Pass()]
    assert game.legal_decisions(3) == [Challenge(), Pass()]
    events = everyone_passes(game)
    assert only(events, "ActionResolved").amount == 2
    assert game.player(1).coins == 4 and game.player(2).coins == 3


def test_steal_from_a_player_with_one_coin_takes_one() -> None:
    game = stacked_game([(CP, A), (D, CT)], coins={2: 1})
    game.apply(1, TakeAction(Action.STEAL, 2))
    events = everyone_passes(game)
    assert only(events, "ActionResolved").amount == 1
    assert game.player(2).coins == 0 and game.player(1).coins == 2


def test_no_steal_from_a_player_with_no_coins() -> None:
    game = stacked_game([(CP, A), (D, CT), (AM, AM)], coins={2: 0})
    legal = game.legal_decisions(1)
    assert TakeAction(Action.STEAL, 2) not in legal
    assert TakeAction(Action.STEAL, 3) in legal


def test_exchange_with_two_cards() -> None:
    game = stacked_game([(CP, A), (D, CT)], deck_top=(AM, D))
    game.apply(1, TakeAction(Action.EXCHANGE))
    events = everyone_passes(game)
    drawn = only(events, "ExchangeDrawn")
    assert drawn.recipient == 1 and sorted_cards(drawn.drawn) == sorted_cards([AM, D])
    assert game.awaiting().kind is DecisionKind.EXCHANGE
    options = game.legal_decisions(1)
    # choose 2 of {captain, assassin, ambassador, duke}: 6 combinations
    assert len(options) == 6 and all(len(o.cards) == 2 for o in options)
    deck_before = len(game.deck)
    events = game.apply(1, KeepCards((D, AM)))
    assert sorted_cards(game.player(1).hidden) == sorted_cards([D, AM])
    assert len(game.deck) == deck_before + 2
    assert only(events, "ExchangeKept").kept == sorted_cards([D, AM])
    assert "ExchangeCompleted" in kinds(events)
    check_invariants(game)


def test_exchange_with_one_card() -> None:
    game = stacked_game([(CP, A), (D, CT), (AM, CT)], deck_top=(D, D), coins={2: 7})
    game.apply(1, TakeAction(Action.INCOME))
    game.apply(2, TakeAction(Action.COUP, 3))
    game.apply(3, LoseCard(CT))
    game.apply(3, TakeAction(Action.EXCHANGE))
    everyone_passes(game)
    options = game.legal_decisions(3)
    assert options == [KeepCards((D,)), KeepCards((AM,))]
    game.apply(3, KeepCards((D,)))
    assert game.player(3).hidden == [D]
    check_invariants(game)


def test_forced_coup_at_ten_coins() -> None:
    game = stacked_game([(D, A), (CP, CT), (AM, AM)], coins={1: 10})
    legal = game.legal_decisions(1)
    assert legal == [TakeAction(Action.COUP, 2), TakeAction(Action.COUP, 3)]


def test_elimination_returns_coins_to_the_treasury() -> None:
    game = stacked_game([(D, A), (CP, CT), (AM, AM)], coins={1: 7, 2: 5})
    game.player(2).revealed.append(game.player(2).hidden.pop())  # already lost Contessa
    treasury = game.treasury
    events = game.apply(1, TakeAction(Action.COUP, 2))
    out = only(events, "PlayerEliminated")
    assert out.player == 2 and out.coins == 5
    assert game.player(2).coins == 0 and game.treasury == treasury + 7 + 5
    # Player 2 is skipped: the turn goes to player 3.
    assert game.awaiting().players == (3,)
    check_invariants(game)


def test_last_player_standing_wins() -> None:
    game = stacked_game([(D, A), (CP, CT)], coins={1: 7})
    game.player(2).revealed.append(game.player(2).hidden.pop())
    events = game.apply(1, TakeAction(Action.COUP, 2))
    assert game.over and game.winner == 1
    assert kinds(events)[-1] == "GameEnded" and only(events, "GameEnded").winner == 1
    assert game.awaiting().kind is None and game.legal_decisions(1) == []
    check_invariants(game)


def test_turns_go_round_in_seat_order() -> None:
    game = stacked_game([(D, A), (CP, CT), (AM, AM)], first=2)
    order = []
    for _ in range(4):
        actor = game.awaiting().players[0]
        order.append(actor)
        game.apply(actor, TakeAction(Action.INCOME))
    assert order == [2, 3, 1, 2]
