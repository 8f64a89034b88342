"""VARIANTS.md, "Reformation" (and "Reformation with Inquisitor"): each rule and each
numbered test scenario (3, 4, 23-52).

Seats: A = 1, B = 2, C = 3, D = 4, E = 5; A moves unless a test says otherwise. `sides`
gives the allegiances in seat order (L Loyalist, R Reformist); `reserve` is the Rv.
"""

from __future__ import annotations

import pytest

from tgbot.engine import (
    Action,
    Block,
    Challenge,
    DecisionKind,
    ForceExchange,
    Game,
    IllegalDecision,
    LoseCard,
    Pass,
    Reason,
    ShowCard,
    TakeAction,
    Variant,
    view_of,
)
from tgbot.engine.cards import sorted_cards

from .helpers import (
    AM,
    CP,
    CT,
    IQ,
    A,
    D,
    L,
    R,
    check_invariants,
    everyone_passes,
    kinds,
    only,
    stacked_game,
)

REF = Variant.REFORMATION
REF_INQ = Variant.REFORMATION_INQUISITOR


def targets(game: Game, player: int, action: Action) -> list[int | None]:
    """Whom `player` is offered `action` against, in order."""
    return [
        d.target
        for d in game.legal_decisions(player)
        if isinstance(d, TakeAction) and d.action is action
    ]


def knock_out(game: Game, player: int) -> None:
    """Put a player out (all cards face up, coins to the treasury) to build a position."""
    p = game.player(player)
    p.revealed += p.hidden
    p.hidden = []
    game.treasury += p.coins
    p.coins = 0
    game._awaiting = game._compute_awaiting()


def reveal(game: Game, player: int, card: object) -> None:
    """Turn one of a player's face-down cards face up."""
    p = game.player(player)
    p.hidden.remove(card)  # type: ignore[arg-type]
    p.revealed.append(card)  # type: ignore[arg-type]


def give_turn(game: Game, player: int) -> None:
    """Make it `player`'s turn (for positions reached in earlier turns)."""
    game.turn.actor = player
    game._awaiting = game._compute_awaiting()


# ---- setup ----------------------------------------------------------------------------


def test_scenario_03_allegiances_alternate_from_the_first_player() -> None:
    for seed in range(100):
        game, events = Game.new(
            [1, 2, 3, 4, 5], seed, keep_seating=True, first_player=1, variant=REF
        )
        if game.player(1).allegiance is L:
            break
    else:
        raise AssertionError("no seed makes A a Loyalist")
    assert [p.allegiance for p in game.players] == [L, R, L, R, L]
    assigned = only(events, "AllegiancesAssigned")
    assert assigned.recipient is None and assigned.allegiances == (L, R, L, R, L)
    assert game.reserve == 0 and game.treasury == 40
    assert all(p.coins == 2 for p in game.players)
    every = game.deck + [c for p in game.players for c in p.hidden]
    assert every.count(AM) == 3 and IQ not in every
    check_invariants(game)


def test_the_first_allegiance_is_a_fair_coin_and_starts_from_the_first_player() -> None:
    firsts = set()
    for seed in range(40):
        game, _ = Game.new([1, 2, 3], seed, first_player=2, keep_seating=True, variant=REF)
        firsts.add(game.player(2).allegiance)
        assert game.player(3).allegiance is not game.player(2).allegiance
        assert game.player(1).allegiance is game.player(2).allegiance  # odd: first and last
    assert firsts == {L, R}


def test_scenario_04_two_players() -> None:
    game, _ = Game.new([1, 2], 5, keep_seating=True, first_player=1, variant=REF)
    assert game.player(1).coins == 1 and game.player(2).coins == 2
    assert game.player(1).allegiance is not game.player(2).allegiance
    assert game.treasury == 47 and game.reserve == 0
    check_invariants(game)


def test_allegiances_and_the_reserve_are_public() -> None:
    game = stacked_game([(D, A), (CP, CT), (A, CT)], variant=REF, sides="LRL", reserve=3)
    for viewer in (None, 1, 2, 3):
        view = view_of(game, viewer)
        assert [s.allegiance for s in view.seats] == [L, R, L]
        assert view.reserve == 3 and view.divided


# ---- while divided: the restrictions --------------------------------------------------


def test_scenario_23_targets_only_of_the_other_allegiance() -> None:
    game = stacked_game([(D, A), (CP, CT), (A, CT)], variant=REF, sides="LRL", coins={1: 7})
    for action in (Action.COUP, Action.ASSASSINATE, Action.STEAL):
        assert targets(game, 1, action) == [2]
        with pytest.raises(IllegalDecision) as err:
            game.apply(1, TakeAction(action, 3))
        assert err.value.reason is Reason.SAME_ALLEGIANCE


def test_scenario_24_foreign_aid_waits_only_for_the_other_allegiance() -> None:
    game = stacked_game([(D, A), (CP, CT), (A, CT), (A, CP)], variant=REF, sides="LRLR")
    game.apply(1, TakeAction(Action.FOREIGN_AID))
    assert game.awaiting().players == (2, 4)
    assert game.legal_decisions(2) == [Block(D), Pass()]
    assert game.legal_decisions(3) == []
    with pytest.raises(IllegalDecision) as err:
        game.apply(3, Block(D))
    assert err.value.reason is Reason.NOT_YOUR_DECISION
    everyone_passes(game)
    assert game.player(1).coins == 4


def test_scenario_25_anyone_may_challenge_a_foreign_aid_block() -> None:
    game = stacked_game([(D, A), (CP, CT), (A, CT), (A, CP)], variant=REF, sides="LRLR")
    game.apply(1, TakeAction(Action.FOREIGN_AID))
    game.apply(2, Block(D))
    assert set(game.awaiting().players) == {1, 3, 4}
    events = game.apply(4, Challenge())  # D is a Reformist, like the blocker
    assert only(events, "ClaimFailed").claimant == 2
    game.apply(2, LoseCard(CT))
    assert game.player(1).coins == 4
    check_invariants(game)


def test_a_window_keeps_its_responders_apart_from_those_who_go_out() -> None:
    game = stacked_game([(D, A), (CP, CT), (A, CT), (A, CP)], variant=REF, sides="LRLR")
    game.apply(1, TakeAction(Action.FOREIGN_AID))
    assert game.awaiting().players == (2, 4)
    game.leave(2)
    assert game.awaiting().players == (4,) and game.divided()
    game.leave(4)  # no Reformist left: united, and nobody is left to answer
    assert not game.divided() and game.player(1).coins == 4
    assert game.awaiting() == (DecisionKind.TURN, (3,), None)


def test_scenario_26_a_challenge_of_ones_own_allegiance_is_allowed() -> None:
    game = stacked_game([(CP, A), (CP, CT), (A, CT)], variant=REF, sides="LRL")
    game.apply(1, TakeAction(Action.TAX))
    game.apply(2, Pass())
    events = game.apply(3, Challenge())
    assert only(events, "ClaimFailed").claimant == 1


def test_scenario_27_an_elimination_unites_the_table() -> None:
    # The scenario gives A 3 coins; A pays them all, and nobody may steal from 0 coins
    # (RULES.md), so A starts with 4 here to leave one coin to steal.
    game = stacked_game([(A, D), (CP, D), (CP, CT)], variant=REF, sides="LRL", coins={1: 4})
    reveal(game, 2, D)
    game.apply(1, TakeAction(Action.ASSASSINATE, 2))
    everyone_passes(game)
    assert not game.player(2).hidden and not game.divided()
    assert game.awaiting() == (DecisionKind.TURN, (3,), None)
    assert targets(game, 3, Action.STEAL) == [1]
    game.player(3).coins = 7
    game.treasury -= 5
    assert targets(game, 3, Action.COUP) == [1] and targets(game, 3, Action.ASSASSINATE) == [1]
    game.apply(3, TakeAction(Action.FOREIGN_AID))
    assert game.awaiting().players == (1,) and Block(D) in game.legal_decisions(1)


def test_scenario_28_united_players_may_target_each_other() -> None:
    game = stacked_game([(D, A), (CP, CT), (A, CT), (CP, D)], variant=REF, sides="LRLL")
    knock_out(game, 2)
    give_turn(game, 4)
    assert not game.divided()
    assert targets(game, 4, Action.STEAL) == [1, 3]
    game.apply(4, TakeAction(Action.STEAL, 3))


def test_five_players_coup_only_the_other_allegiance() -> None:
    game = stacked_game(
        [(D, A), (CP, CT), (A, CT), (CP, D), (D, CT)], variant=REF, sides="LRLRL", coins={1: 7}
    )
    assert targets(game, 1, Action.COUP) == [2, 4]


# ---- Conversion -----------------------------------------------------------------------


def test_scenario_29_convert_yourself_pays_one_to_the_reserve() -> None:
    game = stacked_game([(D, A), (CP, CT), (A, CT)], variant=REF, sides="LRL", coins={1: 3})
    treasury = game.treasury
    events = game.apply(1, TakeAction(Action.CONVERT, 1))
    declared = only(events, "ActionDeclared")
    assert (declared.action, declared.target, declared.cost) == (Action.CONVERT, 1, 1)
    changed = only(events, "AllegianceChanged")
    assert (changed.player, changed.allegiance, changed.reserve) == (1, R, 1)
    assert game.player(1).allegiance is R and game.player(1).coins == 2
    assert game.reserve == 1 and game.treasury == treasury
    assert "ResponsePassed" not in kinds(events)
    assert game.awaiting() == (DecisionKind.TURN, (2,), None)
    check_invariants(game)


def test_scenario_30_convert_another_player_pays_two() -> None:
    game = stacked_game([(D, A), (CP, CT), (A, CT)], variant=REF, sides="LRL", coins={1: 5})
    game.apply(1, TakeAction(Action.CONVERT, 3))
    assert game.player(3).allegiance is R and game.player(1).coins == 3 and game.reserve == 2
    check_invariants(game)


def test_scenario_31_conversion_needs_the_coins() -> None:
    game = stacked_game([(D, A), (CP, CT), (A, CT)], variant=REF, sides="LRL", coins={1: 1})
    assert targets(game, 1, Action.CONVERT) == [1]
    with pytest.raises(IllegalDecision) as err:
        game.apply(1, TakeAction(Action.CONVERT, 2))
    assert err.value.reason is Reason.CANNOT_AFFORD
    game = stacked_game([(D, A), (CP, CT), (A, CT)], variant=REF, sides="LRL", coins={1: 0})
    assert targets(game, 1, Action.CONVERT) == []
    with pytest.raises(IllegalDecision) as err:
        game.apply(1, TakeAction(Action.CONVERT, 1))
    assert err.value.reason is Reason.CANNOT_AFFORD


def test_scenario_32_ten_coins_forbid_conversion_and_embezzlement() -> None:
    game = stacked_game(
        [(D, A), (CP, CT), (A, CT)], variant=REF, sides="LRL", coins={1: 10}, reserve=2
    )
    assert game.legal_decisions(1) == [TakeAction(Action.COUP, 2)]
    for decision in (TakeAction(Action.CONVERT, 1), TakeAction(Action.EMBEZZLE)):
        with pytest.raises(IllegalDecision) as err:
            game.apply(1, decision)
        assert err.value.reason is Reason.MUST_COUP


def test_scenario_33_a_conversion_unites_the_table() -> None:
    game = stacked_game([(D, A), (CP, CT), (A, CT)], variant=REF, sides="LRL", first=2)
    game.apply(2, TakeAction(Action.CONVERT, 2))
    assert not game.divided()
    assert targets(game, 3, Action.STEAL) == [1, 2]


def test_scenario_34_a_conversion_divides_the_table_again() -> None:
    game = stacked_game([(D, A), (CP, CT), (A, CT)], variant=REF, sides="LLL", coins={1: 4})
    assert not game.divided()
    game.apply(1, TakeAction(Action.CONVERT, 2))
    assert game.player(2).allegiance is R and game.divided()
    assert targets(game, 2, Action.STEAL) == [1, 3]
    game.apply(2, TakeAction(Action.INCOME))
    assert targets(game, 3, Action.STEAL) == [2]
    with pytest.raises(IllegalDecision) as err:
        game.apply(3, TakeAction(Action.STEAL, 1))
    assert err.value.reason is Reason.SAME_ALLEGIANCE


def test_scenario_35_a_player_who_is_out_cannot_be_converted() -> None:
    game = stacked_game([(D, A), (CP, CT), (A, CT)], variant=REF, sides="LRL", coins={1: 4})
    knock_out(game, 3)
    assert targets(game, 1, Action.CONVERT) == [1, 2]
    with pytest.raises(IllegalDecision) as err:
        game.apply(1, TakeAction(Action.CONVERT, 3))
    assert err.value.reason is Reason.BAD_TARGET


def test_conversion_is_never_restricted_by_allegiance() -> None:
    game = stacked_game([(D, A), (CP, CT), (A, CT)], variant=REF, sides="LRL", coins={1: 4})
    assert targets(game, 1, Action.CONVERT) == [1, 2, 3]


# ---- Embezzlement ---------------------------------------------------------------------


def test_scenario_36_unchallenged_embezzlement_takes_the_reserve() -> None:
    game = stacked_game([(CP, CT), (A, A), (D, CT)], variant=REF, sides="LRL", reserve=3)
    events = game.apply(1, TakeAction(Action.EMBEZZLE))
    assert only(events, "ActionDeclared").claim is None
    treasury = game.treasury
    events = everyone_passes(game)
    assert only(events, "ActionResolved").amount == 3
    assert game.player(1).coins == 5 and game.reserve == 0 and game.treasury == treasury
    check_invariants(game)


def test_scenario_37_embezzlement_needs_a_coin_in_the_reserve() -> None:
    game = stacked_game([(CP, CT), (A, A), (D, CT)], variant=REF, sides="LRL")
    assert targets(game, 1, Action.EMBEZZLE) == []
    with pytest.raises(IllegalDecision) as err:
        game.apply(1, TakeAction(Action.EMBEZZLE))
    assert err.value.reason is Reason.RESERVE_EMPTY


def test_scenario_38_an_honest_embezzler_shows_and_replaces_every_card() -> None:
    game = stacked_game([(CP, CT), (A, A), (D, D)], variant=REF, sides="LRL", reserve=4)
    deck = len(game.deck)
    game.apply(1, TakeAction(Action.EMBEZZLE))
    events = game.apply(2, Challenge())
    assert only(events, "EmbezzlementChallenged").challenger == 2
    cleared = only(events, "EmbezzlerCleared")
    assert cleared.recipient is None and cleared.cards == (CP, CT)
    redrawn = only(events, "CardsRedrawn")
    assert redrawn.recipient == 1 and sorted_cards(redrawn.drawn) == sorted_cards(
        game.player(1).hidden
    )
    assert len(redrawn.drawn) == 2 and len(game.deck) == deck
    assert game.player(1).coins == 6 and game.reserve == 0
    assert only(events, "CardRevealed").player == 2  # B's two Assassins: no question
    check_invariants(game)


def test_scenario_39_an_embezzler_with_a_duke_loses_a_card_of_their_choice() -> None:
    game = stacked_game([(D, CP), (A, A), (CT, CT)], variant=REF, sides="LRL", reserve=4)
    game.apply(1, TakeAction(Action.EMBEZZLE))
    events = game.apply(2, Challenge())
    assert only(events, "EmbezzlerHadDuke").claimant == 1
    assert "EmbezzlerCleared" not in kinds(events) and "ClaimProven" not in kinds(events)
    assert game.awaiting() == (DecisionKind.LOSE_CARD, (1,), None)
    events = game.apply(1, LoseCard(CP))
    assert game.reserve == 4 and game.player(1).coins == 2
    assert game.awaiting() == (DecisionKind.TURN, (2,), None)
    check_invariants(game)


def test_scenario_40_an_embezzler_caught_on_the_last_card_is_out() -> None:
    game = stacked_game(
        [(D, A), (A, CP), (CT, CT)], variant=REF, sides="LRL", reserve=2, coins={1: 3}
    )
    reveal(game, 1, A)
    treasury = game.treasury
    game.apply(1, TakeAction(Action.EMBEZZLE))
    game.apply(2, Pass())
    events = game.apply(3, Challenge())
    assert only(events, "PlayerEliminated").coins == 3
    assert game.treasury == treasury + 3 and game.reserve == 2
    check_invariants(game)


def test_scenario_41_a_face_up_duke_does_not_count() -> None:
    game = stacked_game([(CP, D), (A, A), (CT, CT)], variant=REF, sides="LRL", reserve=2)
    reveal(game, 1, D)
    game.apply(1, TakeAction(Action.EMBEZZLE))
    events = game.apply(2, Challenge())
    assert only(events, "EmbezzlerCleared").cards == (CP,)
    assert len(only(events, "CardsRedrawn").drawn) == 1
    assert game.player(1).coins == 4 and game.reserve == 0
    check_invariants(game)


def test_scenario_42_a_challenge_of_ones_own_allegiance_embezzling_is_allowed() -> None:
    game = stacked_game([(CP, CT), (A, A), (D, CT)], variant=REF, sides="LRL", reserve=1)
    game.apply(1, TakeAction(Action.EMBEZZLE))
    game.apply(2, Pass())
    events = game.apply(3, Challenge())
    assert "EmbezzlementChallenged" in kinds(events)


def test_scenario_43_embezzlement_window_times_out_into_the_reserve() -> None:
    game = stacked_game([(CP, CT), (A, A), (D, CT)], variant=REF, sides="LRL", reserve=2)
    game.apply(1, TakeAction(Action.EMBEZZLE))
    assert game.legal_decisions(2) == [Challenge(), Pass()]
    assert game.legal_decisions(3) == [Challenge(), Pass()]
    game.apply_timeout()
    assert game.player(1).coins == 4 and game.reserve == 0


def test_the_game_ends_before_the_reserve_is_taken() -> None:
    game = stacked_game([(CP, CT), (A, A)], variant=REF, sides="LR", reserve=2, first=1)
    reveal(game, 2, A)
    coins = game.player(1).coins
    events = game.apply(1, TakeAction(Action.EMBEZZLE))
    events = game.apply(2, Challenge())
    assert game.over and game.winner == 1
    assert game.reserve == 2 and game.player(1).coins == coins
    assert "ActionResolved" not in kinds(events)


# ---- the forced Coup and timeouts -----------------------------------------------------


def test_scenario_44_forced_coup_timeout_skips_ones_allegiance() -> None:
    game = stacked_game(
        [(D, A), (CP, CT), (A, CT), (CP, D)], variant=REF, sides="LLRL", coins={1: 10}
    )
    events = game.apply_timeout()
    declared = only(events, "ActionDeclared")
    assert (declared.action, declared.target) == (Action.COUP, 3)


def test_scenario_45_forced_coup_timeout_when_united_hits_the_next_player() -> None:
    game = stacked_game(
        [(D, A), (CP, CT), (A, CT), (CP, D)], variant=REF, sides="LLLL", coins={1: 10}
    )
    declared = only(game.apply_timeout(), "ActionDeclared")
    assert (declared.action, declared.target) == (Action.COUP, 2)


def test_scenario_46_two_players_after_a_conversion() -> None:
    game = stacked_game([(D, A), (CP, CT)], variant=REF, sides="LR", coins={1: 3})
    game.apply(1, TakeAction(Action.CONVERT, 1))
    assert game.player(1).coins == 2 and game.reserve == 1 and not game.divided()
    assert targets(game, 2, Action.STEAL) == [1]
    game.apply(2, TakeAction(Action.FOREIGN_AID))
    assert game.awaiting().players == (1,)


def test_scenario_47_coins_add_up_to_fifty_after_every_step() -> None:
    game = stacked_game(
        [(A, D), (CP, CT), (A, CT)], variant=REF, sides="LRL", coins={1: 6, 2: 4, 3: 4}
    )

    def step(events: list) -> None:
        assert game.treasury + game.reserve + sum(p.coins for p in game.players) == 50
        check_invariants(game)

    step(game.apply(1, TakeAction(Action.CONVERT, 1)))  # Rv 1
    step(game.apply(2, TakeAction(Action.CONVERT, 3)))  # Rv 3
    assert game.reserve == 3
    step(game.apply(3, TakeAction(Action.EMBEZZLE)))
    while game.awaiting().kind is DecisionKind.RESPONSE:
        step(game.apply(game.awaiting().players[0], Pass()))
    assert game.reserve == 0 and game.player(3).coins == 7
    treasury = game.treasury
    step(game.apply(1, TakeAction(Action.ASSASSINATE, 2)))
    assert game.treasury == treasury + 3


def test_scenario_48_an_eliminated_players_coins_go_to_the_treasury() -> None:
    game = stacked_game(
        [(D, A), (CP, CT), (A, CT)], variant=REF, sides="LRL", coins={1: 7, 2: 4}, reserve=2
    )
    reveal(game, 2, CT)
    treasury = game.treasury
    game.apply(1, TakeAction(Action.COUP, 2))
    assert game.treasury == treasury + 7 + 4 and game.reserve == 2
    check_invariants(game)


def test_scenario_52_steal_has_no_target_when_the_other_side_is_broke() -> None:
    game = stacked_game(
        [(D, A), (CP, CT), (A, CT), (CP, D)],
        variant=REF,
        sides="LRLR",
        coins={1: 7, 2: 0, 4: 0},
    )
    assert targets(game, 1, Action.STEAL) == []
    assert targets(game, 1, Action.COUP) == [2, 4]
    assert targets(game, 1, Action.ASSASSINATE) == [2, 4]


# ---- the clarifications in the new variants ------------------------------------------


def test_a_card_to_lose_when_both_are_alike_is_taken_without_asking() -> None:
    game = stacked_game([(D, A), (CT, CT), (A, CP)], variant=REF, sides="LRL", coins={1: 7})
    events = game.apply(1, TakeAction(Action.COUP, 2))
    assert only(events, "CardRevealed").character is CT
    assert "DecisionTimedOut" not in kinds(events)


def test_any_own_decision_resets_the_afk_streak() -> None:
    game = stacked_game([(D, A), (CP, CT), (A, CP)], variant=REF, sides="LRL")
    game.player(2).afk_turns = 1
    game.apply(1, TakeAction(Action.TAX))
    game.apply(2, Pass())
    assert game.player(2).afk_turns == 0


# ---- Reformation with Inquisitor ------------------------------------------------------


def test_scenario_49_examine_and_steal_blocks_in_reformation_inquisitor() -> None:
    game = stacked_game([(IQ, CP), (CP, CT), (A, CT)], variant=REF_INQ, sides="LRL", coins={2: 3})
    assert targets(game, 1, Action.EXAMINE) == [2]
    with pytest.raises(IllegalDecision) as err:
        game.apply(1, TakeAction(Action.EXAMINE, 3))
    assert err.value.reason is Reason.SAME_ALLEGIANCE
    game.apply(1, TakeAction(Action.STEAL, 2))
    assert game.legal_decisions(2) == [Challenge(), Block(CP), Block(IQ), Pass()]


def test_scenario_50_an_embezzler_shows_and_replaces_an_inquisitor_too() -> None:
    game = stacked_game([(IQ, CP), (A, A), (CT, CT)], variant=REF_INQ, sides="LRL", reserve=3)
    game.apply(1, TakeAction(Action.EMBEZZLE))
    events = game.apply(2, Challenge())
    assert only(events, "EmbezzlerCleared").cards == (CP, IQ)
    assert len(only(events, "CardsRedrawn").drawn) == 2
    assert game.player(1).coins == 5 and game.reserve == 0
    check_invariants(game)


def test_scenario_51_the_two_expansions_do_not_interact() -> None:
    game = stacked_game(
        [(IQ, D), (CP, CT), (A, CT)], variant=REF_INQ, sides="LRL", coins={1: 2, 2: 2}
    )
    sides = [p.allegiance for p in game.players]
    game.apply(1, TakeAction(Action.EXAMINE, 2))
    everyone_passes(game)
    game.apply(2, ShowCard(CT))
    game.apply(1, ForceExchange())
    assert [p.allegiance for p in game.players] == sides
    cards = [(list(p.hidden), list(p.revealed)) for p in game.players]
    deck = list(game.deck)
    game.apply(2, TakeAction(Action.CONVERT, 1))
    assert [(list(p.hidden), list(p.revealed)) for p in game.players] == cards
    assert game.deck == deck
    check_invariants(game)
