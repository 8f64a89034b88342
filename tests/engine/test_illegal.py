"""Illegal decisions are refused with a reason and leave the game unchanged."""

from __future__ import annotations

import pytest

from tgbot.engine import (
    Action,
    Block,
    Challenge,
    Decision,
    Game,
    IllegalDecision,
    KeepCards,
    LoseCard,
    Pass,
    Reason,
    TakeAction,
    game_to_dict,
)

from .helpers import AM, CP, CT, A, D, stacked_game


def refused(game: Game, player: int, decision: Decision, reason: Reason, **kw: int) -> None:
    before = game_to_dict(game)
    with pytest.raises(IllegalDecision) as err:
        game.apply(player, decision, **kw)
    assert err.value.reason is reason, err.value
    assert game_to_dict(game) == before


def test_wrong_player_cannot_act() -> None:
    game = stacked_game([(D, A), (CP, CT), (AM, AM)])
    refused(game, 2, TakeAction(Action.INCOME), Reason.NOT_YOUR_DECISION)


def test_unknown_player_is_refused() -> None:
    game = stacked_game([(D, A), (CP, CT)])
    refused(game, 99, TakeAction(Action.INCOME), Reason.UNKNOWN_PLAYER)


def test_response_during_a_turn_is_wrong_kind() -> None:
    game = stacked_game([(D, A), (CP, CT)])
    refused(game, 1, Pass(), Reason.WRONG_KIND)
    refused(game, 1, LoseCard(D), Reason.WRONG_KIND)
    refused(game, 1, KeepCards((D, A)), Reason.WRONG_KIND)


def test_unaffordable_actions_are_refused() -> None:
    game = stacked_game([(D, A), (CP, CT)], coins={1: 2})
    refused(game, 1, TakeAction(Action.ASSASSINATE, 2), Reason.CANNOT_AFFORD)
    refused(game, 1, TakeAction(Action.COUP, 2), Reason.CANNOT_AFFORD)


def test_must_coup_at_ten() -> None:
    game = stacked_game([(D, A), (CP, CT)], coins={1: 10})
    refused(game, 1, TakeAction(Action.INCOME), Reason.MUST_COUP)
    refused(game, 1, TakeAction(Action.TAX), Reason.MUST_COUP)


def test_bad_targets_are_refused() -> None:
    game = stacked_game([(D, A), (CP, CT), (AM, AM)], coins={1: 7, 3: 0})
    refused(game, 1, TakeAction(Action.COUP, 1), Reason.BAD_TARGET)
    refused(game, 1, TakeAction(Action.COUP, 42), Reason.BAD_TARGET)
    refused(game, 1, TakeAction(Action.COUP), Reason.BAD_TARGET)
    refused(game, 1, TakeAction(Action.INCOME, 2), Reason.BAD_TARGET)
    refused(game, 1, TakeAction(Action.STEAL, 3), Reason.BAD_TARGET)
    game.leave(2)
    refused(game, 1, TakeAction(Action.COUP, 2), Reason.BAD_TARGET)


def test_ineligible_responses_are_refused() -> None:
    game = stacked_game([(D, A), (CP, CT), (AM, AM)])
    game.apply(1, TakeAction(Action.FOREIGN_AID))
    refused(game, 2, Challenge(), Reason.NOT_ELIGIBLE)  # Foreign Aid claims nothing
    refused(game, 2, Block(CT), Reason.NOT_ELIGIBLE)
    refused(game, 1, Pass(), Reason.NOT_YOUR_DECISION)  # the actor does not answer
    game.apply(2, Pass())
    refused(game, 2, Block(D), Reason.NOT_YOUR_DECISION)  # already answered


def test_non_target_cannot_block_an_assassination() -> None:
    game = stacked_game([(D, A), (CP, CT), (AM, CT)], coins={1: 3})
    game.apply(1, TakeAction(Action.ASSASSINATE, 2))
    refused(game, 3, Block(CT), Reason.NOT_ELIGIBLE)


def test_losing_a_card_one_does_not_hold_is_refused() -> None:
    game = stacked_game([(D, A), (CP, CT)], coins={1: 7})
    game.apply(1, TakeAction(Action.COUP, 2))
    refused(game, 2, LoseCard(D), Reason.NO_SUCH_CARD)
    refused(game, 1, LoseCard(D), Reason.NOT_YOUR_DECISION)


def test_bad_exchange_selections_are_refused() -> None:
    game = stacked_game([(CP, A), (D, CT)], deck_top=(AM, D))
    game.apply(1, TakeAction(Action.EXCHANGE))
    game.apply(2, Pass())
    refused(game, 1, KeepCards((CP,)), Reason.BAD_SELECTION)
    refused(game, 1, KeepCards((CP, A, D)), Reason.BAD_SELECTION)
    refused(game, 1, KeepCards((CT, CP)), Reason.BAD_SELECTION)
    refused(game, 1, KeepCards((AM, AM)), Reason.BAD_SELECTION)


def test_stale_version_is_refused() -> None:
    game = stacked_game([(D, A), (CP, CT)])
    version = game.version
    game.apply(1, TakeAction(Action.INCOME), expected_version=version)
    assert game.version == version + 1
    refused(game, 2, TakeAction(Action.INCOME), Reason.STALE, expected_version=version)
    with pytest.raises(IllegalDecision) as err:
        game.apply_timeout(expected_version=version)
    assert err.value.reason is Reason.STALE


def test_nothing_is_legal_after_the_game_ends() -> None:
    game = stacked_game([(D, A), (CP, CT)])
    game.leave(2)
    refused(game, 1, TakeAction(Action.INCOME), Reason.GAME_OVER)
    with pytest.raises(IllegalDecision):
        game.apply_timeout()


def test_out_player_is_refused() -> None:
    game = stacked_game([(D, A), (CP, CT), (AM, AM)])
    game.apply(1, TakeAction(Action.TAX))
    game.leave(3)
    refused(game, 3, Challenge(), Reason.NOT_ALIVE)


@pytest.mark.parametrize(
    "ids", [[1], [1, 2, 3, 4, 5, 6, 7], [1, 1, 2]], ids=["one", "seven", "duplicate"]
)
def test_bad_setups_are_refused(ids: list[int]) -> None:
    with pytest.raises(IllegalDecision) as err:
        Game.new(ids, seed=1)
    assert err.value.reason is Reason.BAD_SETUP


def test_a_deck_that_is_not_the_court_is_refused() -> None:
    with pytest.raises(IllegalDecision):
        Game.new([1, 2], seed=1, deck=[D] * 15)
