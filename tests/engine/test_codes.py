"""The one decision codec (engine/codes.py): every legal decision of every variant has a
code, and the code reads back as the same decision."""

from __future__ import annotations

import random
from typing import cast

from hypothesis import given, settings
from hypothesis import strategies as st

from tgbot.engine import VARIANT_ACTIONS, Action, Character, Decision, Game, Variant, codes
from tgbot.engine.decisions import (
    Block,
    Challenge,
    ForceExchange,
    KeepCards,
    LetKeep,
    LoseCard,
    Pass,
    ShowCard,
    TakeAction,
)

ALL_KINDS = {
    TakeAction,
    Challenge,
    Pass,
    Block,
    LoseCard,
    KeepCards,
    ShowCard,
    LetKeep,
    ForceExchange,
}
# The Examine's decisions exist in the Inquisitor variants only.
KINDS = {
    v: ALL_KINDS if v.inquisitor else ALL_KINDS - {ShowCard, LetKeep, ForceExchange}
    for v in Variant
}


def legal_decisions_of_a_game(variant: Variant, players: int, seed: int) -> list[tuple]:
    """Play a random game; return every (seats, decision) that was legal on the way."""
    driver = random.Random(seed)
    game, _ = Game.new(list(range(1000, 1000 + players)), seed, variant=variant)
    seats = [p.id for p in game.players]
    seen: list[tuple] = []
    while not game.over:
        if driver.random() < 0.03:
            game.apply_timeout()
            continue
        player = driver.choice(game.awaiting().players)
        legal = game.legal_decisions(player)
        seen += [(seats, d) for d in legal]
        game.apply(player, driver.choice(legal))
    return seen


def round_trips(seats: list[int], decision: Decision) -> None:
    code = codes.encode(decision, seats)
    assert 1 <= len(code) <= codes.MAX_CODE_LENGTH and code.isascii() and code.isalnum()
    assert codes.decode(code, seats) == decision


@settings(max_examples=60, deadline=None)
@given(
    variant=st.sampled_from(list(Variant)),
    players=st.integers(min_value=2, max_value=6),
    seed=st.integers(min_value=0, max_value=2**64 - 1),
)
def test_every_legal_decision_of_a_random_game_round_trips(
    variant: Variant, players: int, seed: int
) -> None:
    for seats, decision in legal_decisions_of_a_game(variant, players, seed):
        round_trips(seats, decision)


def test_every_kind_of_decision_of_every_variant_round_trips() -> None:
    for variant in Variant:
        kinds: set[type] = set()
        actions: set[Action] = set()
        for seed in range(40):
            for seats, decision in legal_decisions_of_a_game(variant, 2 + seed % 5, seed):
                round_trips(seats, decision)
                kinds.add(type(decision))
                if isinstance(decision, TakeAction):
                    actions.add(decision.action)
        assert kinds == KINDS[variant], (variant, kinds)
        assert actions == set(VARIANT_ACTIONS[variant])


def test_every_decision_value_round_trips_even_where_no_game_offers_it() -> None:
    seats = [5, 6, 7, 8, 9, 10]
    decisions: list[Decision] = [
        *(TakeAction(a) for a in Action),
        *(TakeAction(a, t) for a in Action for t in seats),
        Challenge(),
        Pass(),
        LetKeep(),
        ForceExchange(),
        *(kind(c) for kind in (Block, LoseCard, ShowCard) for c in Character),
        *(KeepCards((c,)) for c in Character),
        *(KeepCards((c, d)) for c in Character for d in Character),
    ]
    for decision in decisions:
        round_trips(seats, decision)
    assert len({codes.encode(d, seats) for d in decisions}) == len(decisions)


def test_the_letters_are_those_records_have_always_been_written_with() -> None:
    # The kept game record (service/archive.py, schema 1) wrote these since issue 19;
    # records of up to RECORD_DAYS must still read the same.
    assert dict(zip(Character, "dacmti", strict=True)) == codes.CHARACTER_CODES
    assert dict(zip(Action, "ifcxaseyvz", strict=True)) == codes.ACTION_CODES
    seats = [11, 22, 33]
    examples = {
        "c2": TakeAction(Action.COUP, 33),
        "i": TakeAction(Action.INCOME),
        "C": Challenge(),
        "P": Pass(),
        "Y": LetKeep(),
        "F": ForceExchange(),
        "Bd": Block(Character.DUKE),
        "Lt": LoseCard(Character.CONTESSA),
        "Si": ShowCard(Character.INQUISITOR),
        "Kdm": KeepCards((Character.DUKE, Character.AMBASSADOR)),
    }
    for code, decision in examples.items():
        assert codes.encode(decision, seats) == code
        assert codes.decode(code, seats) == decision


@settings(max_examples=300, deadline=None)
@given(
    code=st.text(max_size=5)
    | st.sampled_from(["", "c6", "c3", "K", "Kdat", "B", "Bz", "c-1", "c²", "CC", "Sd", "i0"])
)
def test_a_string_is_one_decision_s_code_or_refused(code: str) -> None:
    seats = [1, 2, 3]
    try:
        decision = codes.decode(code, seats)
    except codes.BadCode:
        return
    assert codes.encode(decision, seats) == code  # one code per decision, nothing else reads


def test_a_decision_without_a_code_is_refused() -> None:
    for decision, seats in (
        (TakeAction(Action.COUP, 99), [1, 2]),  # not in the game
        (KeepCards(()), [1, 2]),
        (KeepCards((Character.DUKE,) * 3), [1, 2]),
        (TakeAction(cast(Action, "bribe")), [1, 2]),
    ):
        try:
            codes.encode(decision, seats)
        except codes.BadCode:
            continue
        raise AssertionError(f"{decision!r} got a code")
