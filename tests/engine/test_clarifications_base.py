"""VARIANTS.md's clarifications in the base game: one rule set for every variant."""

from __future__ import annotations

import pytest

from tgbot.engine import (
    Action,
    Challenge,
    DecisionKind,
    KeepCards,
    Pass,
    TakeAction,
    Variant,
    game_class,
)

from .helpers import (
    AM,
    CP,
    CT,
    IQ,
    A,
    D,
    check_invariants,
    everyone_passes,
    kinds,
    only,
    stacked_game,
)

# ---- no question with one answer -----------------------------------------------------


def test_base_a_coup_on_two_alike_cards_takes_one_without_asking() -> None:
    game = stacked_game([(D, A), (CT, CT), (AM, CP)], coins={1: 7})
    events = game.apply(1, TakeAction(Action.COUP, 2))
    assert only(events, "CardRevealed").character is CT and only(events, "CardRevealed").player == 2
    assert game.player(2).hidden == [CT] and game.player(2).revealed == [CT]
    assert game.awaiting().kind is DecisionKind.TURN and game.awaiting().players == (2,)
    check_invariants(game)


def test_base_a_failed_challenge_with_two_alike_cards_is_not_asked() -> None:
    game = stacked_game([(D, A), (CP, CT), (AM, AM)])
    game.apply(1, TakeAction(Action.TAX))
    events = game.apply(3, Challenge())  # 1 holds the Duke: 3 loses a card
    assert only(events, "ClaimProven").challenger == 3
    assert only(events, "CardRevealed").character is AM
    assert only(events, "ActionResolved").amount == 3  # the Tax went on at once
    assert game.awaiting().kind is DecisionKind.TURN and game.awaiting().players == (2,)
    assert game.legal_decisions(3) == []
    check_invariants(game)


def test_base_two_different_cards_are_still_asked() -> None:
    game = stacked_game([(D, A), (CT, CP), (AM, AM)], coins={1: 7})
    game.apply(1, TakeAction(Action.COUP, 2))
    assert game.awaiting().kind is DecisionKind.LOSE_CARD and game.awaiting().players == (2,)


def test_base_an_exchange_whose_every_keep_is_the_same_is_not_asked() -> None:
    game = stacked_game([(AM, D), (CP, CT), (A, CT)], deck_top=(AM, AM))
    game.player(1).revealed.append(game.player(1).hidden.pop())  # 1 holds one Ambassador
    game.apply(1, TakeAction(Action.EXCHANGE))
    events = everyone_passes(game)
    assert only(events, "ExchangeDrawn").drawn == (AM, AM)
    assert only(events, "ExchangeKept").kept == (AM,)
    assert "ExchangeCompleted" in kinds(events)
    assert game.awaiting().kind is DecisionKind.TURN and game.awaiting().players == (2,)
    assert game.player(1).hidden == [AM]
    check_invariants(game)


def test_base_an_exchange_with_a_choice_is_still_asked() -> None:
    game = stacked_game([(AM, D), (CP, CT), (A, CT)], deck_top=(AM, CP))
    game.player(1).revealed.append(game.player(1).hidden.pop())
    game.apply(1, TakeAction(Action.EXCHANGE))
    everyone_passes(game)
    assert game.awaiting().kind is DecisionKind.EXCHANGE
    assert set(game.legal_decisions(1)) == {KeepCards((CP,)), KeepCards((AM,))}


# ---- the AFK streak counts turns only --------------------------------------------------

AFK_HANDS = {
    Variant.BASE: [(D, A), (CP, CT), (AM, CT)],
    Variant.REFORMATION: [(D, A), (CP, CT), (AM, CT)],
    Variant.INQUISITOR: [(D, A), (CP, CT), (IQ, CT)],
    Variant.REFORMATION_INQUISITOR: [(D, A), (CP, CT), (IQ, CT)],
}


def afk_scenario(variant: Variant) -> list:
    """1's turn times out; 2 takes Foreign Aid, 3 and 1 pass; 3 takes Income; 1's turn
    times out: the events of that second timeout."""
    sides = "LRL" if variant.reformation else None
    game = stacked_game(AFK_HANDS[variant], variant=variant, sides=sides)
    game.apply_timeout()  # 1's turn: Income by default, the streak is 1
    assert game.player(1).afk_turns == 1
    game.apply(2, TakeAction(Action.FOREIGN_AID))
    assert game.awaiting().players == (3, 1)
    game.apply(3, Pass())
    game.apply(1, Pass())  # a decision of 1's own: the streak is 0 again
    assert game.player(1).afk_turns == 0
    game.apply(3, TakeAction(Action.INCOME))
    events = game.apply_timeout()  # 1's turn again: the streak is 1, not 2
    assert game.player(1).afk_turns == 1
    check_invariants(game)
    return events


@pytest.mark.parametrize("variant", list(Variant))
def test_an_answer_between_two_timed_out_turns_resets_the_afk_streak(variant: Variant) -> None:
    events = afk_scenario(variant)
    assert "PlayerLeft" not in kinds(events)
    assert only(events, "ActionDeclared").action is Action.INCOME


def test_base_a_challenge_or_a_card_choice_resets_the_streak_too() -> None:
    game = stacked_game([(D, A), (CP, CT), (AM, CP)])
    game.player(3).afk_turns = 1
    game.apply(1, TakeAction(Action.TAX))
    game.apply(2, Pass())
    game.apply(3, Challenge())  # fails: 1 holds the Duke, and 3 must choose a card
    assert game.player(3).afk_turns == 0
    game.player(3).afk_turns = 1
    assert game.awaiting().kind is DecisionKind.LOSE_CARD
    game.apply(3, game.legal_decisions(3)[0])
    assert game.player(3).afk_turns == 0


def test_base_a_timed_out_answer_neither_adds_nor_resets() -> None:
    game = stacked_game([(D, A), (CP, CT), (AM, CP)])
    game.player(2).afk_turns = 1
    game.apply(1, TakeAction(Action.TAX))
    game.apply_timeout()  # nobody answered
    assert game.player(2).afk_turns == 1


# ---- rules version 1, for rebuilding old records only ------------------------------------


def test_rules_1_base_games_asked_and_counted_as_they_did() -> None:
    """BaseGameRules1 rebuilds records kept before rules version 2; nothing plays it."""
    old = stacked_game([(D, A), (CP, CT), (AM, AM)], rules=1)
    old.apply(1, TakeAction(Action.TAX))
    old.apply(3, Challenge())
    assert old.awaiting().kind is DecisionKind.LOSE_CARD and old.awaiting().players == (3,)
    assert all(game_class(v, 1) is game_class(v, 2) for v in Variant if v is not Variant.BASE)
    with pytest.raises(ValueError):
        game_class(Variant.BASE, 3)


def test_rules_1_base_games_removed_the_player_of_the_afk_scenario() -> None:
    old = stacked_game(AFK_HANDS[Variant.BASE], rules=1)
    old.apply_timeout()
    old.apply(2, TakeAction(Action.FOREIGN_AID))
    old.apply(3, Pass())
    old.apply(1, Pass())
    old.apply(3, TakeAction(Action.INCOME))
    assert only(old.apply_timeout(), "PlayerLeft").afk
