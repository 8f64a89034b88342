"""VARIANTS.md, "Inquisitor": each rule and each numbered test scenario (1, 6-22, 53).

Seats: A = 1, B = 2, C = 3, D = 4; A moves unless a test says otherwise.
"""

from __future__ import annotations

from collections import Counter

import pytest

from tgbot.engine import (
    Action,
    Block,
    Challenge,
    DecisionKind,
    ForceExchange,
    Game,
    IllegalDecision,
    KeepCards,
    LetKeep,
    LoseCard,
    Pass,
    Phase,
    Reason,
    ShowCard,
    TakeAction,
    Variant,
    Window,
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
    check_invariants,
    everyone_passes,
    kinds,
    only,
    stacked_game,
)

INQ = Variant.INQUISITOR


def public(events: list) -> list:
    """The events the group sees."""
    return [e for e in events if e.recipient is None]


def names_a_card(event: object) -> bool:
    """True when an event carries a character (a card's face)."""
    return any(
        isinstance(v, str) and v in {c.value for c in (D, A, CP, CT, IQ, AM)}
        for v in vars_of(event).values()
    )


def vars_of(event: object) -> dict:
    """An event's fields."""
    return {k: getattr(event, k) for k in event.__slots__}  # type: ignore[attr-defined]


def reveal(game: Game, player: int, card: object) -> None:
    """Turn one of a player's face-down cards face up (to build `x†` positions)."""
    p = game.player(player)
    p.hidden.remove(card)  # type: ignore[arg-type]
    p.revealed.append(card)  # type: ignore[arg-type]
    game._awaiting = game._compute_awaiting()


# ---- setup and decks ------------------------------------------------------------------


def test_scenario_01_inquisitor_deck_replaces_the_ambassador() -> None:
    game, _ = Game.new([1, 2, 3, 4], seed=3, variant=INQ)
    assert len(game.deck) == 7 and sum(len(p.hidden) for p in game.players) == 8
    cards = Counter(game.deck) + sum((Counter(p.hidden) for p in game.players), Counter())
    assert cards == {D: 3, A: 3, CP: 3, IQ: 3, CT: 3}
    assert AM not in cards
    check_invariants(game)


def test_variant_names_and_the_command_line_spelling() -> None:
    assert Variant.parse("reformation+inquisitor") is Variant.REFORMATION_INQUISITOR
    assert Variant.parse("reformation_inquisitor") is Variant.REFORMATION_INQUISITOR
    game, _ = Game.new([1, 2], seed=1, variant="reformation+inquisitor")
    assert game.variant is Variant.REFORMATION_INQUISITOR
    with pytest.raises(IllegalDecision) as err:
        Game.new([1, 2], seed=1, variant="chaos")
    assert err.value.reason is Reason.BAD_SETUP


def test_a_stacked_deck_must_be_the_variants_deck() -> None:
    with pytest.raises(IllegalDecision) as err:
        Game.new([1, 2], seed=1, deck=[D, A, CP, AM, CT] * 3, variant=INQ)
    assert err.value.reason is Reason.BAD_SETUP


# ---- Exchange (draws one) -------------------------------------------------------------


def test_scenario_06_exchange_draws_one_and_keeps_as_many_as_held() -> None:
    game = stacked_game([(D, CT), (A, A), (CP, CT)], deck_top=(CP,), variant=INQ)
    deck_before = len(game.deck)
    declared = game.apply(1, TakeAction(Action.EXCHANGE))
    assert only(declared, "ActionDeclared").claim is IQ
    events = everyone_passes(game)
    drawn = only(events, "ExchangeDrawn")
    assert drawn.recipient == 1 and drawn.drawn == (CP,)
    assert game.awaiting().kind is DecisionKind.EXCHANGE
    assert view_of(game, 1).exchange_drawn == (CP,)
    assert KeepCards(sorted_cards([CP, CT])) in game.legal_decisions(1)
    events = game.apply(1, KeepCards((CP, CT)))
    assert sorted_cards(game.player(1).hidden) == sorted_cards([CP, CT])
    assert D in game.deck and len(game.deck) == deck_before
    assert [e.kind for e in public(events)] == ["ExchangeCompleted", "TurnStarted"]
    check_invariants(game)


def test_scenario_07_one_card_left_keeps_one_of_two() -> None:
    game = stacked_game([(A, D), (CT, CT), (CP, D)], deck_top=(CP,), variant=INQ)
    reveal(game, 1, D)
    game.apply(1, TakeAction(Action.EXCHANGE))
    everyone_passes(game)
    assert set(game.legal_decisions(1)) == {KeepCards((A,)), KeepCards((CP,))}
    game.apply(1, KeepCards((CP,)))
    assert game.player(1).hidden == [CP] and game.player(1).revealed == [D]
    check_invariants(game)


def test_scenario_08_exchange_timeout_keeps_the_cards_and_reshuffles() -> None:
    game = stacked_game([(D, CT), (A, A), (CP, CT)], deck_top=(CP,), variant=INQ)
    deck_before = len(game.deck)
    game.apply(1, TakeAction(Action.EXCHANGE))
    everyone_passes(game)
    rng_before = game.rng.getstate()
    events = game.apply_timeout()
    assert only(events, "DecisionTimedOut").decision is DecisionKind.EXCHANGE
    assert sorted_cards(game.player(1).hidden) == sorted_cards([D, CT])
    assert len(game.deck) == deck_before and CP in game.deck
    assert game.rng.getstate() != rng_before  # the deck was shuffled with the game RNG
    assert game.player(1).afk_turns == 0  # not a turn
    check_invariants(game)


def test_scenario_09_proven_exchange_replaces_the_inquisitor_then_draws_one() -> None:
    game = stacked_game([(IQ, D), (A, CP), (CT, CT)], deck_top=(CP, CT), variant=INQ)
    game.apply(1, TakeAction(Action.EXCHANGE))
    events = game.apply(2, Challenge())
    assert only(events, "ClaimProven").character is IQ
    replaced = only(events, "CardReplaced")
    assert replaced.recipient == 1 and replaced.shown is IQ
    assert game.awaiting() == (DecisionKind.LOSE_CARD, (2,), None)
    events = game.apply(2, LoseCard(A))
    drawn = only(events, "ExchangeDrawn")
    assert len(drawn.drawn) == 1
    pool = game.player(1).hidden + list(drawn.drawn)
    assert len(pool) == 3
    game.apply(1, game.legal_decisions(1)[0])
    assert len(game.player(1).hidden) == 2
    check_invariants(game)


def test_scenario_10_failed_exchange_claim_costs_a_card_and_draws_nothing() -> None:
    game = stacked_game([(D, CP), (A, CT), (CT, A)], variant=INQ)
    game.apply(1, TakeAction(Action.EXCHANGE))
    events = game.apply(2, Challenge())
    assert only(events, "ClaimFailed").character is IQ
    assert game.awaiting() == (DecisionKind.LOSE_CARD, (1,), None)
    events = game.apply(1, LoseCard(CP))
    assert "ExchangeDrawn" not in kinds(events)
    assert game.awaiting() == (DecisionKind.TURN, (2,), None)
    check_invariants(game)


def test_an_exchange_with_one_possible_choice_is_kept_without_asking() -> None:
    game = stacked_game([(D, D), (A, A), (CP, CT)], deck_top=(D,), variant=INQ)
    game.apply(1, TakeAction(Action.EXCHANGE))
    events = everyone_passes(game)
    assert kinds(events)[-3:] == ["ExchangeKept", "ExchangeCompleted", "TurnStarted"]
    assert game.player(1).hidden == [D, D] and game.awaiting().kind is DecisionKind.TURN
    check_invariants(game)


def test_exchange_actor_who_leaves_returns_the_drawn_card() -> None:
    game = stacked_game([(D, CT), (A, A), (CP, CT)], deck_top=(CP,), variant=INQ)
    deck_before = len(game.deck)
    game.apply(1, TakeAction(Action.EXCHANGE))
    everyone_passes(game)
    game.leave(1)
    assert game.turn.drawn == [] and len(game.deck) == deck_before
    assert game.awaiting() == (DecisionKind.TURN, (2,), None)
    check_invariants(game)


# ---- Steal and its blockers -----------------------------------------------------------


def test_scenario_11_steal_is_blocked_as_captain_or_inquisitor() -> None:
    game = stacked_game([(D, A), (CT, CT), (A, D)], variant=INQ, coins={2: 3})
    game.apply(1, TakeAction(Action.STEAL, 2))
    assert game.legal_decisions(2) == [Challenge(), Block(CP), Block(IQ), Pass()]
    with pytest.raises(IllegalDecision) as err:
        game.apply(2, Block(AM))
    assert err.value.reason is Reason.NOT_IN_VARIANT
    game.apply(2, Block(IQ))
    events = everyone_passes(game)
    assert only(events, "ActionBlocked").character is IQ
    assert game.player(1).coins == 2 and game.player(2).coins == 3
    check_invariants(game)


def test_scenario_12_a_bluffed_inquisitor_block_fails_and_the_steal_resolves() -> None:
    game = stacked_game([(CP, A), (D, CT), (A, D)], variant=INQ, coins={2: 3})
    game.apply(1, TakeAction(Action.STEAL, 2))
    game.apply(2, Block(IQ))
    assert game.awaiting().window is Window.BLOCK_CHALLENGE
    events = game.apply(3, Challenge())
    assert only(events, "ClaimFailed").claimant == 2
    game.apply(2, LoseCard(CT))
    assert game.player(1).coins == 4 and game.player(2).coins == 1
    check_invariants(game)


# ---- Examine --------------------------------------------------------------------------


def examine_b(hand_b: tuple = (CP, CT), players: int = 3) -> Game:
    """A [Inquisitor, Duke] examines B; returns the game after everyone passed."""
    hands = [(IQ, D), hand_b, (A, A), (D, A)][:players]
    game = stacked_game(hands, variant=INQ)
    events = game.apply(1, TakeAction(Action.EXAMINE, 2))
    declared = only(events, "ActionDeclared")
    assert (declared.action, declared.target, declared.claim) == (Action.EXAMINE, 2, IQ)
    everyone_passes(game)
    return game


def test_scenario_13_examine_keep_shows_the_card_to_the_actor_only() -> None:
    game = examine_b()
    deck_before = list(game.deck)
    assert game.awaiting() == (DecisionKind.SHOW_CARD, (2,), None)
    assert game.legal_decisions(2) == [ShowCard(CP), ShowCard(CT)]
    events = game.apply(2, ShowCard(CT))
    seen = only(events, "ExaminedCard")
    assert seen.recipient == 1 and seen.character is CT and seen.target == 2
    told = only(events, "CardShownTo")
    assert told.recipient == 2 and told.character is CT and told.actor == 1
    assert [e.kind for e in public(events)] == ["CardShown"]
    assert view_of(game, 1).examined is CT and view_of(game, 2).examined is CT
    assert view_of(game, 3).examined is None and view_of(game).examined is None
    assert game.awaiting() == (DecisionKind.EXAMINE, (1,), None)
    assert game.legal_decisions(1) == [LetKeep(), ForceExchange()]
    events = game.apply(1, LetKeep())
    decided = only(events, "ExamineDecided")
    assert (decided.actor, decided.target, decided.forced) == (1, 2, False)
    assert sorted_cards(game.player(2).hidden) == (CP, CT) and game.deck == deck_before
    assert not any(names_a_card(e) for e in public(events))
    assert game.awaiting() == (DecisionKind.TURN, (2,), None)
    check_invariants(game)


def test_scenario_14_examine_force_swaps_the_shown_card_for_a_private_draw() -> None:
    game = examine_b()
    deck_size = len(game.deck)
    game.apply(2, ShowCard(CT))
    events = game.apply(1, ForceExchange())
    assert only(events, "ExamineDecided").forced is True
    replaced = only(events, "CardReplaced")
    assert replaced.recipient == 2 and replaced.shown is CT
    assert len(game.player(2).hidden) == 2 and replaced.drawn in game.player(2).hidden
    assert len(game.deck) == deck_size
    assert not any(names_a_card(e) for e in public(events))
    check_invariants(game)  # 3 of each character


def test_scenario_15_a_single_face_down_card_is_shown_without_asking() -> None:
    hands = [(IQ, D), (D, CP), (A, A)]
    game = stacked_game(hands, variant=INQ)
    reveal(game, 2, CP)
    game.apply(1, TakeAction(Action.EXAMINE, 2))
    events = everyone_passes(game)
    assert only(events, "ExaminedCard").character is D
    assert game.awaiting() == (DecisionKind.EXAMINE, (1,), None)


def test_a_target_whose_cards_are_alike_is_not_asked() -> None:
    game = examine_b(hand_b=(CT, CT))
    assert only(game.apply(1, LetKeep()), "ExamineDecided").forced is False


def test_scenario_16_show_timeout_picks_a_card_with_the_rng() -> None:
    game = examine_b()
    events = game.apply_timeout()
    assert only(events, "DecisionTimedOut").decision is DecisionKind.SHOW_CARD
    seen = only(events, "ExaminedCard")
    assert seen.recipient == 1 and seen.character in (CP, CT)
    assert game.awaiting() == (DecisionKind.EXAMINE, (1,), None)
    assert game.player(2).afk_turns == 0


def test_scenario_17_decision_timeout_keeps() -> None:
    game = examine_b()
    game.apply(2, ShowCard(CP))
    events = game.apply_timeout()
    assert only(events, "ExamineDecided").forced is False
    assert sorted_cards(game.player(2).hidden) == (CP, CT)
    assert game.player(1).afk_turns == 0
    check_invariants(game)


def test_scenario_18_examine_window_offers_challenge_and_pass_only() -> None:
    game = stacked_game([(IQ, D), (CP, CT), (A, A), (D, A)], variant=INQ)
    game.apply(1, TakeAction(Action.EXAMINE, 2))
    waiting = game.awaiting()
    assert waiting.kind is DecisionKind.RESPONSE and waiting.window is Window.ACTION
    assert waiting.players == (2, 3, 4)
    for pid in (2, 3, 4):
        assert game.legal_decisions(pid) == [Challenge(), Pass()]
    with pytest.raises(IllegalDecision):
        game.apply(2, Block(CT))


def test_scenario_19_a_failed_examine_claim_shows_nothing() -> None:
    game = stacked_game([(D, CP), (CP, CT), (A, A)], variant=INQ)
    game.apply(1, TakeAction(Action.EXAMINE, 2))
    game.apply(2, Pass())
    events = game.apply(3, Challenge())
    assert only(events, "ClaimFailed").character is IQ
    events += game.apply(1, LoseCard(CP))
    assert not {"CardShown", "ExaminedCard"} & set(kinds(events))
    assert game.awaiting() == (DecisionKind.TURN, (2,), None)


def test_scenario_20_a_target_who_challenges_and_goes_out_ends_the_examine() -> None:
    game = stacked_game([(IQ, D), (CP, CT), (A, A)], variant=INQ)
    reveal(game, 2, CT)
    treasury = game.treasury
    game.apply(1, TakeAction(Action.EXAMINE, 2))
    events = game.apply(2, Challenge())
    assert only(events, "ClaimProven").character is IQ
    assert only(events, "CardReplaced").recipient == 1
    assert only(events, "PlayerEliminated").coins == 2 and game.treasury == treasury + 2
    assert "ExaminedCard" not in kinds(events)
    assert game.awaiting() == (DecisionKind.TURN, (3,), None)
    check_invariants(game)


def test_scenario_21_ten_coins_forbids_examine_and_exchange() -> None:
    game = stacked_game([(IQ, D), (CP, CT), (A, A)], variant=INQ, coins={1: 10})
    assert {d.action for d in game.legal_decisions(1)} == {Action.COUP}  # type: ignore[union-attr]
    for decision in (TakeAction(Action.EXAMINE, 2), TakeAction(Action.EXCHANGE)):
        with pytest.raises(IllegalDecision) as err:
            game.apply(1, decision)
        assert err.value.reason is Reason.MUST_COUP


def test_scenario_22_examine_needs_a_living_opponent() -> None:
    game = stacked_game([(IQ, D), (CP, CT), (A, A)], variant=INQ)
    game.player(3).revealed += game.player(3).hidden
    game.player(3).hidden = []
    game.treasury += game.player(3).coins
    game.player(3).coins = 0
    game._awaiting = game._compute_awaiting()
    for target in (1, 3, 99):
        with pytest.raises(IllegalDecision) as err:
            game.apply(1, TakeAction(Action.EXAMINE, target))
        assert err.value.reason is Reason.BAD_TARGET
    offered = [d.target for d in game.legal_decisions(1) if d.action is Action.EXAMINE]  # type: ignore[union-attr]
    assert offered == [2]


def test_the_ambassador_cannot_be_claimed_in_an_inquisitor_game() -> None:
    game = stacked_game([(IQ, D), (CP, CT), (A, A)], variant=INQ, coins={2: 3})
    options = game.legal_decisions(1)
    assert all(isinstance(d, TakeAction) for d in options)
    game.apply(1, TakeAction(Action.STEAL, 2))
    assert Block(AM) not in game.legal_decisions(2)


def test_scenario_53_the_ambassador_deck_has_no_inquisitor() -> None:
    for variant in (Variant.BASE, Variant.REFORMATION):
        sides = "LRL" if variant.reformation else None
        game = stacked_game([(D, A), (CP, CT), (A, CT)], variant=variant, coins={2: 3}, sides=sides)
        assert not any(d.action is Action.EXAMINE for d in game.legal_decisions(1))  # type: ignore[union-attr]
        with pytest.raises(IllegalDecision) as err:
            game.apply(1, TakeAction(Action.EXAMINE, 2))
        assert err.value.reason is Reason.NOT_IN_VARIANT
        game.apply(1, TakeAction(Action.STEAL, 2))
        assert game.legal_decisions(2) == [Challenge(), Block(CP), Block(AM), Pass()]
        with pytest.raises(IllegalDecision) as err:
            game.apply(2, Block(IQ))
        assert err.value.reason is Reason.NOT_IN_VARIANT


# ---- leaving mid-Examine and timeouts -------------------------------------------------


def test_a_target_who_leaves_before_showing_ends_the_examine() -> None:
    game = examine_b()
    events = game.leave(2)
    assert "ExaminedCard" not in kinds(events)
    assert game.awaiting() == (DecisionKind.TURN, (3,), None)
    assert game.turn.shown is None
    check_invariants(game)


def test_a_target_who_leaves_after_showing_ends_the_examine() -> None:
    game = examine_b()
    game.apply(2, ShowCard(CP))
    events = game.leave(2)
    assert "ExamineDecided" not in kinds(events)
    assert game.awaiting() == (DecisionKind.TURN, (3,), None)
    check_invariants(game)


def test_an_actor_who_leaves_while_deciding_lets_the_target_keep_the_card() -> None:
    game = examine_b()
    game.apply(2, ShowCard(CP))
    game.leave(1)
    assert sorted_cards(game.player(2).hidden) == (CP, CT)
    assert game.phase is Phase.TURN and game.awaiting() == (DecisionKind.TURN, (2,), None)
    check_invariants(game)


def test_examine_timeouts_do_not_count_toward_the_afk_limit() -> None:
    game = examine_b()
    game.player(2).afk_turns = 1
    game.apply_timeout()  # B's show
    game.player(1).afk_turns = 1
    game.apply_timeout()  # A's keep / force
    assert game.player(1).afk_turns == 1 and game.player(2).afk_turns == 1
    assert not game.over and len(game.alive_players()) == 3


def test_examine_moves_no_coins_and_no_influence() -> None:
    game = examine_b()
    coins = [p.coins for p in game.players]
    down = [len(p.hidden) for p in game.players]
    deck = len(game.deck)
    game.apply(2, ShowCard(CP))
    game.apply(1, ForceExchange())
    assert [p.coins for p in game.players] == coins
    assert [len(p.hidden) for p in game.players] == down and len(game.deck) == deck


def test_the_contessa_does_not_block_examine() -> None:
    game = stacked_game([(IQ, D), (CT, CT), (A, A)], variant=INQ)
    game.apply(1, TakeAction(Action.EXAMINE, 2))
    assert Block(CT) not in game.legal_decisions(2)
