"""VARIANTS.md, "Choosing a variant", serialisation and the numbered scenarios 2 and 5."""

from __future__ import annotations

import json
import random

import pytest

from tgbot.engine import (
    SCHEMA_VERSION,
    Action,
    Block,
    Challenge,
    DecisionKind,
    Game,
    IllegalDecision,
    Pass,
    Reason,
    TakeAction,
    Variant,
    Window,
    game_from_dict,
    game_to_dict,
    view_of,
)

from .helpers import CP, CT, IQ, A, D, check_invariants, stacked_game

# A base game in the middle of a Steal, written by the engine before the variants existed.
SCHEMA_1 = json.loads(
    '{"schema": 1, "version": 9, "rng": 1663341875487337619, "afk_limit": 2, "phase": '
    '"action_window", "treasury": 44, "deck": ["assassin", "contessa", "captain", '
    '"contessa", "contessa", "captain", "duke", "ambassador", "duke"], "players": [[33, 0, '
    '["duke", "assassin"], [], 0], [11, 4, ["ambassador"], ["ambassador"], 0], [22, 2, '
    '["assassin", "captain"], [], 0]], "turn": {"actor": 33, "action": "steal", "target": '
    '11, "blocker": null, "block": null, "waiting": [22], "drawn": []}, "losses": [], '
    '"winner": null}'
)


def play(game: Game, driver: random.Random, steps: int = 10_000) -> list:
    """Random legal decisions to the end; return every event."""
    events: list = []
    for _ in range(steps):
        if game.over:
            break
        pid = driver.choice(game.awaiting().players)
        events += game.apply(pid, driver.choice(game.legal_decisions(pid)))
    assert game.over
    return events


def test_a_schema_1_record_loads_as_a_base_game() -> None:
    game = game_from_dict(SCHEMA_1)
    assert game.variant is Variant.BASE and game.reserve == 0
    assert all(p.allegiance is None for p in game.players)
    assert game.awaiting() == (DecisionKind.RESPONSE, (22,), Window.ACTION)
    assert game.legal_decisions(22) == [Challenge(), Pass()]
    check_invariants(game)
    data = game_to_dict(game)
    assert data["schema"] == SCHEMA_VERSION == 2 and data["variant"] == "base"
    assert game_to_dict(game_from_dict(data)) == data
    play(game, random.Random(3))
    check_invariants(game)


def test_an_unknown_schema_is_refused() -> None:
    with pytest.raises(IllegalDecision) as err:
        game_from_dict({**SCHEMA_1, "schema": 99})
    assert err.value.reason is Reason.BAD_SETUP


@pytest.mark.parametrize("variant", list(Variant))
def test_the_variant_reserve_allegiances_and_examined_card_round_trip(variant: Variant) -> None:
    game, _ = Game.new([1, 2, 3, 4], seed=8, variant=variant)
    driver = random.Random(8)
    for _ in range(40):
        if game.over:
            break
        data = game_to_dict(game)
        restored = game_from_dict(json.loads(json.dumps(data)))
        assert game_to_dict(restored) == data and restored.variant is variant
        assert restored.awaiting() == game.awaiting()
        pid = driver.choice(game.awaiting().players)
        game.apply(pid, driver.choice(game.legal_decisions(pid)))


def test_scenario_02_base_rejects_the_new_actions() -> None:
    game = stacked_game([(D, A), (CP, CT), (A, CT)], coins={1: 5})
    assert all(p.allegiance is None for p in game.players)
    assert view_of(game).reserve == 0 and view_of(game).variant is Variant.BASE
    offered = {d.action for d in game.legal_decisions(1) if isinstance(d, TakeAction)}
    assert not offered & {Action.CONVERT, Action.EMBEZZLE, Action.EXAMINE}
    for decision in (
        TakeAction(Action.CONVERT, 1),
        TakeAction(Action.EMBEZZLE),
        TakeAction(Action.EXAMINE, 2),
    ):
        with pytest.raises(IllegalDecision) as err:
            game.apply(1, decision)
        assert err.value.reason is Reason.NOT_IN_VARIANT
    game.apply(1, TakeAction(Action.STEAL, 2))
    with pytest.raises(IllegalDecision) as err:
        game.apply(2, Block(IQ))
    assert err.value.reason is Reason.NOT_IN_VARIANT


@pytest.mark.parametrize("variant", list(Variant))
def test_scenario_05_same_seed_variant_and_decisions_give_the_same_game(
    variant: Variant,
) -> None:
    for seed in range(20):
        runs = []
        for _ in range(2):
            game, events = Game.new([1, 2, 3, 4, 5], seed, variant=variant)
            events += play(game, random.Random(seed))
            runs.append((game_to_dict(game), [e.to_dict() for e in events]))
        assert runs[0] == runs[1]
        assert [p[5:] for p in runs[0][0]["players"]] == [p[5:] for p in runs[1][0]["players"]]


def test_the_variant_changes_the_game_for_the_same_seed() -> None:
    base, _ = Game.new([1, 2, 3], seed=4)
    inq, _ = Game.new([1, 2, 3], seed=4, variant=Variant.INQUISITOR)
    assert [p.id for p in base.players] == [p.id for p in inq.players]
    assert IQ in inq.deck + [c for p in inq.players for c in p.hidden]
