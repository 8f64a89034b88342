"""Game records: every decision coded, rebuilt by the engine to the same game, or refused."""

from __future__ import annotations

import copy
import json
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.engine.test_properties import VARIANTS, play_random
from tgbot.engine import RULES_VERSION, Game, Variant, codes, game_to_dict
from tgbot.engine.cards import Action
from tgbot.engine.decisions import Block, KeepCards, ShowCard, TakeAction
from tgbot.rendering.history import MAX_TEXT, split_messages
from tgbot.service.archive import (
    LEAVE,
    DoesNotReplay,
    archive_of,
    encode_archive,
    note_move,
    replay,
)
from tgbot.service.records import GameRecord, Seat, Timing


def recorded(players: int, seed: int, driver_seed: int, variant: Variant) -> tuple:
    """A random game (timeouts and leaves included), noted move by move on a record."""
    game, log, events = play_random(players, seed, driver_seed, check=False, variant=variant)
    record = GameRecord(
        id="abcdefgh12",
        chat_id=-1001,
        thread_id=None,
        lang="ka",
        creator=100,
        timing=Timing(90, 30, 45, 60, 120, game.afk_limit),
        players=[Seat(100 + i, f"P{i}", "ka") for i in range(players)],
        seed=seed,
    )
    for i, step in enumerate(log):
        if step[0] == "timeout":
            note_move(record, i * 1000, None, None)
        elif step[0] == "leave":
            note_move(record, i * 1000, step[1], LEAVE)
        else:
            note_move(record, i * 1000, step[1], step[2])
    return game, events, archive_of(record, game, len(log) * 1000)


@settings(max_examples=80, deadline=None)
@given(
    variant=st.sampled_from(VARIANTS),
    players=st.integers(min_value=2, max_value=6),
    seed=st.integers(min_value=0, max_value=2**64 - 1),
    driver_seed=st.integers(min_value=0, max_value=2**32),
)
def test_a_record_rebuilds_the_same_game_and_events(
    variant: Variant, players: int, seed: int, driver_seed: int
) -> None:
    game, events, archive = recorded(players, seed, driver_seed, variant)
    again = replay(archive)
    assert [e for step in again.steps for e in step] == events
    assert game_to_dict(again.game) == game_to_dict(game)
    ranking = again.ranking()
    assert ranking[0] == game.winner and sorted(ranking) == sorted(p.id for p in game.players)


@settings(max_examples=40, deadline=None)
@given(
    players=st.integers(min_value=2, max_value=6),
    seed=st.integers(min_value=0, max_value=2**64 - 1),
    driver_seed=st.integers(min_value=0, max_value=2**32),
    cut=st.integers(min_value=1, max_value=5),
)
def test_a_damaged_record_is_refused_never_shown_wrong(
    players: int, seed: int, driver_seed: int, cut: int
) -> None:
    _, _, archive = recorded(players, seed, driver_seed, Variant.BASE)
    moves = archive["moves"].split()
    shorter = copy.deepcopy(archive)
    shorter["moves"] = " ".join(moves[: max(0, len(moves) - cut)])
    garbled = copy.deepcopy(archive)
    garbled["moves"] = " ".join(["9Z", *moves])
    other_seed = copy.deepcopy(archive)
    other_seed["seed"] = archive["seed"] ^ 1
    for bad in (shorter, garbled, other_seed):
        try:
            replay(bad)
        except DoesNotReplay:
            continue
        raise AssertionError("a damaged record replayed")


def test_claims_know_whether_the_claimer_held_the_card() -> None:
    _, _, archive = recorded(4, 11, 5, Variant.BASE)
    again = replay(archive)
    assert again.claims, "a random 4-player game has claims"
    # Check each claim against the state just before the claiming move, independently.
    seats = [int(p[0]) for p in archive["players"]]
    check, _ = Game.new(seats, archive["seed"], afk_limit=archive["afk"])
    truths = []
    for code in archive["moves"].split():
        if code == "T":
            check.apply_timeout()
            continue
        player = seats[int(code[0])]
        if code[1:] == LEAVE:
            check.leave(player)
            continue
        decision = codes.decode(code[1:], seats)
        claimed = None
        if isinstance(decision, Block):
            claimed = decision.character
        elif isinstance(decision, TakeAction):
            claimed = check.action_spec(decision.action).claim
        if claimed is not None:
            held = claimed in check.player(player).hidden
            embezzling = isinstance(decision, TakeAction) and decision.action is Action.EMBEZZLE
            truths.append((player, claimed, held != embezzling))
        check.apply(player, decision)
    assert [(c.player, c.character, c.true) for c in again.claims] == truths


# Records as stored (encode_archive) at e20ae7b, before the one decision codec: one base
# game and one Reformation + Inquisitor game, with every kind of decision, timeouts and a
# player who left.
OLD_RECORDS = Path(__file__).parent / "fixtures" / "records_e20ae7b.jsonl"


def test_records_stored_before_the_one_codec_replay() -> None:
    stored = OLD_RECORDS.read_text(encoding="utf-8").splitlines()
    kinds: set[type] = set()
    for line in stored:
        archive = json.loads(line)
        again = replay(archive)  # refused unless it rebuilds to the stored winner and digest
        moves = archive["moves"].split()
        assert len(again.steps) == 1 + len(moves)
        assert again.game.winner == archive["winner"]
        seats = [int(p[0]) for p in archive["players"]]
        for move in moves:
            if move != "T" and move[1:] != LEAVE:
                kinds.add(type(codes.decode(move[1:], seats)))
                assert codes.encode(codes.decode(move[1:], seats), seats) == move[1:]
    assert len(kinds) == 9, kinds  # every kind of decision, ShowCard ("S...") among them
    assert ShowCard in kinds and KeepCards in kinds


def test_records_kept_before_rules_2_rebuild_under_the_rules_they_were_played_under() -> None:
    base, other = (json.loads(line) for line in OLD_RECORDS.read_text("utf-8").splitlines())
    assert "rules" not in base and base["variant"] == "base"
    # The base game asked a question that rules 2 no longer asks (a card to lose of two
    # alike, or an exchange with one keep): under rules 2 its moves do not fit.
    try:
        replay({**base, "rules": RULES_VERSION})
    except DoesNotReplay:
        pass
    else:
        raise AssertionError("the old base record rebuilt under rules 2 too")
    assert replay(base).game.winner == base["winner"]
    # The other variants followed the clarifications already: the same rules either way.
    assert replay({**other, "rules": RULES_VERSION}).game.winner == other["winner"]


def test_a_record_names_the_rules_it_was_played_under() -> None:
    _, _, archive = recorded(3, 5, 5, Variant.BASE)
    assert archive["rules"] == RULES_VERSION
    for rules in (0, 3, "2", None):
        try:
            replay({**archive, "rules": rules})
        except DoesNotReplay:
            continue
        raise AssertionError(f"a record of rules {rules!r} replayed")


def test_a_record_of_an_unknown_schema_is_refused() -> None:
    archive = json.loads(OLD_RECORDS.read_text(encoding="utf-8").splitlines()[0])
    for schema in (None, 2, "1"):
        changed = {**archive, "v": schema}
        try:
            replay(changed)
        except DoesNotReplay:
            continue
        raise AssertionError(f"a record of schema {schema!r} replayed")


def test_a_record_is_small() -> None:
    sizes = [len(encode_archive(recorded(6, s, s, Variant.BASE)[2]).encode()) for s in range(20)]
    assert max(sizes) < 4000, sizes


def test_replay_text_is_split_at_lines_within_telegram_limits() -> None:
    lines = [f"line {i} " + "ა" * (i % 50) for i in range(600)]
    messages = split_messages(lines)
    assert len(messages) > 1 and all(len(m) <= MAX_TEXT for m in messages)
    assert "\n".join(messages).split("\n") == lines
    assert split_messages(["x" * 5000]) == ["x" * MAX_TEXT, "x" * 904]
