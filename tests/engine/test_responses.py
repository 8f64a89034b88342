"""Blocks, challenges of actions and of blocks, and their edge cases."""

from __future__ import annotations

from collections import Counter

from tgbot.engine import (
    Action,
    Block,
    Challenge,
    DecisionKind,
    LoseCard,
    Pass,
    TakeAction,
    Window,
)

from .helpers import AM, CP, CT, A, D, check_invariants, kinds, only, stacked_game

# ---- blocks ------------------------------------------------------------------------


def test_duke_blocks_foreign_aid_and_the_block_stands() -> None:
    game = stacked_game([(CP, A), (D, CT), (AM, AM)])
    game.apply(1, TakeAction(Action.FOREIGN_AID))
    events = game.apply(3, Block(D))  # anyone may block Foreign Aid, even a bluffing Duke
    assert only(events, "BlockDeclared").blocker == 3
    waiting = game.awaiting()
    assert waiting.window is Window.BLOCK_CHALLENGE and waiting.players == (2, 1)
    game.apply(1, Pass())
    events = game.apply(2, Pass())
    assert only(events, "ActionBlocked").blocker == 3
    assert game.player(1).coins == 2
    assert game.awaiting().players == (2,) and game.awaiting().kind is DecisionKind.TURN
    check_invariants(game)


def test_contessa_blocks_assassination_and_coins_stay_spent() -> None:
    game = stacked_game([(D, A), (CP, CT), (AM, AM)], coins={1: 3})
    game.apply(1, TakeAction(Action.ASSASSINATE, 2))
    game.apply(2, Block(CT))
    game.apply(1, Pass())
    events = game.apply(3, Pass())
    assert "ActionBlocked" in kinds(events)
    assert game.player(1).coins == 0  # the 3 coins are not returned when blocked
    assert game.player(2).hidden == [CP, CT]
    check_invariants(game)


def test_captain_blocks_steal() -> None:
    game = stacked_game([(CP, A), (CP, D)])
    game.apply(1, TakeAction(Action.STEAL, 2))
    game.apply(2, Block(CP))
    events = game.apply(1, Pass())
    assert only(events, "ActionBlocked").character is CP
    assert game.player(1).coins == 1 and game.player(2).coins == 2


def test_ambassador_blocks_steal() -> None:
    game = stacked_game([(CP, A), (AM, D)])
    game.apply(1, TakeAction(Action.STEAL, 2))
    game.apply(2, Block(AM))
    events = game.apply(1, Pass())
    assert only(events, "ActionBlocked").character is AM
    assert game.player(2).coins == 2


def test_only_the_target_may_block_a_steal() -> None:
    game = stacked_game([(CP, A), (AM, D), (CP, CT)])
    game.apply(1, TakeAction(Action.STEAL, 2))
    assert Block(CP) not in game.legal_decisions(3)


# ---- challenges of actions ---------------------------------------------------------


def test_challenged_bluff_fails_and_claimant_loses() -> None:
    game = stacked_game([(CP, A), (D, CT), (AM, AM)])
    game.apply(1, TakeAction(Action.TAX))  # player 1 has no Duke
    events = game.apply(2, Challenge())
    assert kinds(events)[:2] == ["ChallengeDeclared", "ClaimFailed"]
    assert game.awaiting().kind is DecisionKind.LOSE_CARD and game.awaiting().players == (1,)
    events = game.apply(1, LoseCard(A))
    assert game.player(1).coins == 2  # no tax
    assert kinds(events) == ["CardRevealed", "TurnStarted"]
    check_invariants(game)


def test_challenge_of_true_claim_fails_card_is_shown_and_replaced() -> None:
    game = stacked_game([(D, A), (CP, CT), (AM, CT)])
    deck_before = Counter(game.deck)
    game.apply(1, TakeAction(Action.TAX))
    events = game.apply(3, Challenge())
    proven = only(events, "ClaimProven")
    assert proven.claimant == 1 and proven.character is D and proven.challenger == 3
    replaced = only(events, "CardReplaced")
    assert replaced.recipient == 1 and replaced.shown is D
    # The Duke went back into the deck, and the replacement came out of it.
    assert Counter(game.deck) == deck_before + Counter([D]) - Counter([replaced.drawn])
    assert sorted(game.player(1).hidden) == sorted([A, replaced.drawn])
    # The challenger loses a card, then the tax resolves.
    assert game.awaiting().players == (3,) and game.awaiting().kind is DecisionKind.LOSE_CARD
    game.apply(3, LoseCard(AM))
    assert game.player(1).coins == 5
    check_invariants(game)


def test_first_challenge_decides_the_window() -> None:
    game = stacked_game([(D, A), (CP, CT), (AM, CT)])
    game.apply(1, TakeAction(Action.TAX))
    game.apply(2, Pass())
    game.apply(3, Challenge())
    assert game.awaiting().kind is DecisionKind.LOSE_CARD
    assert game.legal_decisions(2) == []


def test_assassin_claim_beaten_returns_the_coins() -> None:
    game = stacked_game([(D, CP), (A, CT), (AM, AM)], coins={1: 3})
    game.apply(1, TakeAction(Action.ASSASSINATE, 2))
    assert game.player(1).coins == 0
    events = game.apply(3, Challenge())
    assert only(events, "CoinsRefunded").amount == 3
    assert game.player(1).coins == 3
    game.apply(1, LoseCard(D))
    assert game.player(2).hidden == [A, CT]  # the target is untouched
    check_invariants(game)


def test_steal_survives_challenge_then_target_may_still_block() -> None:
    game = stacked_game([(CP, A), (AM, D), (CT, D)])
    game.apply(1, TakeAction(Action.STEAL, 2))
    game.apply(3, Challenge())
    game.apply(3, LoseCard(CT))
    waiting = game.awaiting()
    assert waiting.window is Window.BLOCK and waiting.players == (2,)
    assert game.legal_decisions(2) == [Block(CP), Block(AM), Pass()]
    game.apply(2, Block(AM))
    game.apply(1, Pass())
    events = game.apply(3, Pass())
    assert "ActionBlocked" in kinds(events)


# ---- challenges of blocks ----------------------------------------------------------


def test_challenged_block_bluff_fails_and_action_resolves() -> None:
    game = stacked_game([(CP, A), (AM, CT), (AM, D)])
    game.apply(1, TakeAction(Action.FOREIGN_AID))
    game.apply(2, Block(D))  # player 2 has no Duke
    events = game.apply(1, Challenge())
    assert only(events, "ClaimFailed").claimant == 2
    events = game.apply(2, LoseCard(CT))
    assert only(events, "ActionResolved").amount == 2
    assert game.player(1).coins == 4
    check_invariants(game)


def test_challenged_true_block_stands_and_challenger_loses() -> None:
    game = stacked_game([(CP, A), (D, CT), (AM, CT)])
    game.apply(1, TakeAction(Action.FOREIGN_AID))
    game.apply(2, Block(D))
    events = game.apply(3, Challenge())
    assert only(events, "ClaimProven").claimant == 2
    assert only(events, "CardReplaced").recipient == 2
    events = game.apply(3, LoseCard(AM))
    assert "ActionBlocked" in kinds(events)
    assert game.player(1).coins == 2
    check_invariants(game)


def test_blocker_may_not_challenge_their_own_block() -> None:
    game = stacked_game([(CP, A), (D, CT), (AM, AM)])
    game.apply(1, TakeAction(Action.FOREIGN_AID))
    game.apply(2, Block(D))
    assert game.awaiting().players == (3, 1)
    assert game.legal_decisions(2) == []


# ---- double loss on an assassination -----------------------------------------------


def test_target_who_wrongly_challenges_the_assassin_loses_twice() -> None:
    game = stacked_game([(A, D), (CP, CT), (AM, AM)], coins={1: 3})
    game.apply(1, TakeAction(Action.ASSASSINATE, 2))
    game.apply(2, Challenge())
    game.apply(2, LoseCard(CP))  # for the failed challenge
    # The target may still block with Contessa; they pass, and lose their last card.
    assert game.awaiting().window is Window.BLOCK
    events = game.apply(2, Pass())
    assert only(events, "PlayerEliminated").player == 2
    assert game.player(2).hidden == []
    check_invariants(game)


def test_target_whose_bluffed_contessa_is_challenged_loses_twice() -> None:
    game = stacked_game([(A, D), (CP, AM), (AM, CT)], coins={1: 3})
    game.apply(1, TakeAction(Action.ASSASSINATE, 2))
    game.apply(2, Block(CT))
    game.apply(1, Challenge())
    # One card for the failed block; the assassination then takes the other.
    events = game.apply(2, LoseCard(CP))
    assert [e.kind for e in events].count("CardRevealed") == 2
    assert only(events, "PlayerEliminated").player == 2
    assert game.player(1).coins == 0
    check_invariants(game)


def test_target_killed_by_its_failed_challenge_cannot_be_assassinated_again() -> None:
    game = stacked_game([(A, D), (CP, CT), (AM, AM)], coins={1: 3})
    game.player(2).revealed.append(game.player(2).hidden.pop())
    game.apply(1, TakeAction(Action.ASSASSINATE, 2))
    events = game.apply(2, Challenge())
    assert only(events, "PlayerEliminated").player == 2
    assert "ActionResolved" not in kinds(events)
    assert game.awaiting().kind is DecisionKind.TURN and game.awaiting().players == (3,)
    check_invariants(game)


# ---- the table's answers ---------------------------------------------------------------


def test_the_tables_answers_are_every_awaited_players_each_once_in_button_order() -> None:
    game = stacked_game([(CP, A), (AM, D), (CP, CT)])
    assert game.answers() == []  # a turn to take: nothing to answer
    game.apply(1, TakeAction(Action.STEAL, 2))
    # The target may block with either card, anyone may challenge, and anyone may pass.
    assert game.answers() == [Challenge(), Block(CP), Block(AM), Pass()]
    game.apply(2, Block(AM))
    # The block may be challenged (by the stealer and the third player), or let stand.
    assert game.answers() == [Challenge(), Pass()]


def test_foreign_aids_answers_are_a_block_by_anyone_and_no_challenge() -> None:
    game = stacked_game([(CP, A), (AM, D), (CP, CT)])
    game.apply(1, TakeAction(Action.FOREIGN_AID))
    assert game.answers() == [Block(D), Pass()]
