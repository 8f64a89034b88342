"""Timeout defaults, AFK removal and leaving mid-game (RULES.md, "Time")."""

from __future__ import annotations

import pytest

from tgbot.engine import (
    Action,
    Block,
    DecisionKind,
    IllegalDecision,
    KeepCards,
    LoseCard,
    Pass,
    Reason,
    TakeAction,
    Window,
)

from .helpers import AM, CP, CT, A, D, check_invariants, kinds, only, stacked_game


def test_turn_timeout_takes_income() -> None:
    game = stacked_game([(D, A), (CP, CT), (AM, AM)])
    events = game.apply_timeout()
    assert kinds(events)[:3] == ["DecisionTimedOut", "ActionDeclared", "ActionResolved"]
    assert only(events, "DecisionTimedOut").decision is DecisionKind.TURN
    assert game.player(1).coins == 3 and game.awaiting().players == (2,)


def test_forced_turn_timeout_coups_the_next_living_opponent() -> None:
    game = stacked_game([(D, A), (CP, CT), (AM, AM)], coins={1: 10})
    game.player(2).revealed.extend(game.player(2).hidden)
    game.player(2).hidden.clear()
    events = game.apply_timeout()
    declared = only(events, "ActionDeclared")
    assert declared.action is Action.COUP and declared.target == 3  # 2 is out: next is 3
    assert game.player(1).coins == 3


def test_response_timeout_passes_everyone_still_awaited() -> None:
    game = stacked_game([(D, A), (CP, CT), (AM, AM)])
    game.apply(1, TakeAction(Action.TAX))
    game.apply(2, Pass())
    events = game.apply_timeout()
    timed_out = [e.player for e in events if e.kind == "DecisionTimedOut"]
    assert timed_out == [3]
    assert game.player(1).coins == 5


def test_block_window_timeout_lets_the_action_resolve() -> None:
    game = stacked_game([(CP, A), (D, CT), (AM, AM)])
    game.apply(1, TakeAction(Action.FOREIGN_AID))
    game.apply(2, Block(D))
    assert game.awaiting().window is Window.BLOCK_CHALLENGE
    events = game.apply_timeout()
    assert "ActionBlocked" in kinds(events)


def test_lose_card_timeout_picks_with_the_game_rng() -> None:
    picks = set()
    for seed in range(20):
        game = stacked_game([(D, A), (CP, CT)], coins={1: 7}, seed=seed)
        game.apply(1, TakeAction(Action.COUP, 2))
        events = game.apply_timeout()
        assert only(events, "DecisionTimedOut").decision is DecisionKind.LOSE_CARD
        picks.add(only(events, "CardRevealed").character)
        check_invariants(game)
    assert picks == {CP, CT}
    again = stacked_game([(D, A), (CP, CT)], coins={1: 7}, seed=3)
    again.apply(1, TakeAction(Action.COUP, 2))
    twice = stacked_game([(D, A), (CP, CT)], coins={1: 7}, seed=3)
    twice.apply(1, TakeAction(Action.COUP, 2))
    assert again.apply_timeout() == twice.apply_timeout()


def test_exchange_timeout_keeps_the_cards_held() -> None:
    game = stacked_game([(CP, A), (D, CT)], deck_top=(AM, D))
    game.apply(1, TakeAction(Action.EXCHANGE))
    game.apply(2, Pass())
    events = game.apply_timeout()
    assert sorted(game.player(1).hidden) == sorted([CP, A])
    assert only(events, "ExchangeKept").kept == (A, CP)
    assert len(game.turn.drawn) == 0
    check_invariants(game)


def test_two_timed_out_turns_in_a_row_remove_the_player() -> None:
    game = stacked_game([(D, A), (CP, CT), (AM, AM)])
    game.apply_timeout()  # player 1: income, strike 1
    game.apply(2, TakeAction(Action.INCOME))
    game.apply(3, TakeAction(Action.INCOME))
    events = game.apply_timeout()  # player 1 again: removed
    left = only(events, "PlayerLeft")
    assert left.player == 1 and left.afk
    assert game.player(1).hidden == [] and sorted(game.player(1).revealed) == sorted([D, A])
    assert game.player(1).coins == 0
    assert game.awaiting().players == (2,)
    check_invariants(game)


def test_a_decision_of_ones_own_resets_the_afk_count() -> None:
    game = stacked_game([(D, A), (CP, CT), (AM, AM)])
    game.apply_timeout()
    game.apply(2, TakeAction(Action.INCOME))
    game.apply(3, TakeAction(Action.INCOME))
    game.apply(1, TakeAction(Action.INCOME))
    game.apply(2, TakeAction(Action.INCOME))
    game.apply(3, TakeAction(Action.INCOME))
    events = game.apply_timeout()
    assert "PlayerLeft" not in kinds(events)


def test_afk_limit_is_configurable() -> None:
    game = stacked_game([(D, A), (CP, CT), (AM, AM)], afk_limit=1)
    events = game.apply_timeout()
    assert only(events, "PlayerLeft").afk


def test_response_timeouts_do_not_count_as_afk_turns() -> None:
    game = stacked_game([(D, A), (CP, CT)], afk_limit=1)
    game.apply(1, TakeAction(Action.TAX))
    game.apply_timeout()  # player 2 did not answer
    assert game.player(2).afk_turns == 0
    game.apply(2, TakeAction(Action.INCOME))
    assert not game.over


def test_leaving_mid_game_turns_cards_up_and_returns_coins() -> None:
    game = stacked_game([(D, A), (CP, CT), (AM, AM)], coins={3: 6})
    treasury = game.treasury
    events = game.leave(3)
    assert kinds(events) == ["PlayerLeft", "CardRevealed", "CardRevealed", "PlayerEliminated"]
    assert game.treasury == treasury + 6
    assert not game.over and game.awaiting().players == (1,)
    check_invariants(game)


def test_actor_leaving_ends_their_turn() -> None:
    game = stacked_game([(D, A), (CP, CT), (AM, AM)])
    game.apply(1, TakeAction(Action.TAX))
    events = game.leave(1)
    assert only(events, "TurnStarted").player == 2
    assert game.player(1).coins == 0
    check_invariants(game)


def test_responder_leaving_is_no_longer_awaited() -> None:
    game = stacked_game([(D, A), (CP, CT), (AM, AM)])
    game.apply(1, TakeAction(Action.TAX))
    game.apply(2, Pass())
    events = game.leave(3)  # the last awaited responder leaves: the window closes
    assert only(events, "ActionResolved").amount == 3


def test_blocker_leaving_takes_the_block_along() -> None:
    game = stacked_game([(CP, A), (D, CT), (AM, AM)])
    game.apply(1, TakeAction(Action.FOREIGN_AID))
    game.apply(2, Block(D))
    events = game.leave(2)
    assert only(events, "ActionResolved").amount == 2


def test_exchanger_leaving_returns_the_drawn_cards() -> None:
    game = stacked_game([(CP, A), (D, CT), (AM, AM)])
    game.apply(1, TakeAction(Action.EXCHANGE))
    game.apply(2, Pass())
    game.apply(3, Pass())
    assert game.awaiting().kind is DecisionKind.EXCHANGE
    game.leave(1)
    assert game.turn.drawn == [] and len(game.deck) == 9
    check_invariants(game)


def test_player_owing_a_card_who_leaves_is_skipped() -> None:
    game = stacked_game([(D, A), (CP, CT), (AM, AM)], coins={1: 7})
    game.apply(1, TakeAction(Action.COUP, 2))
    game.leave(2)
    assert game.awaiting().kind is DecisionKind.TURN and game.awaiting().players == (3,)
    check_invariants(game)


def test_leaving_two_player_game_hands_the_win() -> None:
    game = stacked_game([(D, A), (CP, CT)])
    events = game.leave(1)
    assert game.over and game.winner == 2 and kinds(events)[-1] == "GameEnded"


def test_cannot_leave_twice() -> None:
    game = stacked_game([(D, A), (CP, CT), (AM, AM)])
    game.leave(3)
    with pytest.raises(IllegalDecision) as err:
        game.leave(3)
    assert err.value.reason is Reason.NOT_ALIVE


def test_timeouts_alone_finish_a_game() -> None:
    game = stacked_game([(D, A), (CP, CT), (AM, AM)])
    for _ in range(100):
        if game.over:
            break
        game.apply_timeout()
        check_invariants(game)
    assert game.over


def test_keep_after_exchange_timeout_is_refused() -> None:
    game = stacked_game([(CP, A), (D, CT)], deck_top=(AM, D))
    game.apply(1, TakeAction(Action.EXCHANGE))
    game.apply_timeout()
    game.apply_timeout()
    with pytest.raises(IllegalDecision) as err:
        game.apply(1, KeepCards((AM, D)))
    assert err.value.reason in (Reason.NOT_YOUR_DECISION, Reason.WRONG_KIND)
    with pytest.raises(IllegalDecision):
        game.apply(1, LoseCard(A))
