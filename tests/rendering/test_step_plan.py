"""A step is decided by the service without text (`advance`, pure) and written by
rendering from that outcome alone; the record keeps the turn's events, not its lines, and
a record written when it kept lines still loads and plays on."""

from __future__ import annotations

import copy
import json
import random
import re

from tgbot.config import DEFAULT_LOCALES
from tgbot.contract.plan import Plan
from tgbot.contract.steps import END_REF
from tgbot.engine import Game, Variant, game_to_dict
from tgbot.rendering.i18n import Catalogs
from tgbot.rendering.step_plan import StepPlanner
from tgbot.service.advance import advance, settle
from tgbot.service.records import GameRecord, Seat, Timing
from tgbot.service.step_messages import StepMessages

CATALOGS = Catalogs(DEFAULT_LOCALES)


def test_advance_decides_without_changing_the_record_and_rendering_reads_only_it() -> None:
    planner = StepPlanner(CATALOGS, "coup_test_bot")
    steps = 0
    for seed, variant in enumerate([Variant.BASE, *Variant] * 2):
        ids = list(range(1, 3 + seed % 4))
        record = GameRecord(
            f"g{seed}",
            -100,
            None,
            "ka",
            ids[0],
            Timing(60, 30, 30, 30, 60, 2),
            players=[Seat(pid, f"N{pid}", ("ka", "en")[pid % 2]) for pid in ids],
            answers=("table", "private")[seed % 2],
        )
        driver = random.Random(seed)
        game, events = Game.new(ids, seed, variant=variant)
        now = 0
        while True:
            before = record.to_dict()
            outcome = advance(record, game, events, now)
            assert record.to_dict() == before  # deciding changes nothing
            assert advance(record, game, events, now) == outcome  # and is pure
            kept = copy.deepcopy(outcome)
            planner.render(outcome, game, events)
            assert outcome == kept and record.to_dict() == before  # rendering only reads
            settle(record, outcome, None)
            assert record.context == outcome.context and record.prompts == outcome.prompts
            steps += 1
            if game.over:
                break
            waiting = game.awaiting()
            pid = driver.choice(waiting.players)
            events = game.apply(pid, driver.choice(game.legal_decisions(pid)))
            now += 1000
    assert steps > 100


def _old_form(record: GameRecord, story: list[str]) -> GameRecord:
    """The record as the code before kept it: the turn's lines, rendered, and no events."""
    data = json.loads(json.dumps(record.to_dict()))
    del data["turn_events"], data["bluffs"]
    data["story"] = story
    return GameRecord.from_dict(data)


SEAT_LINE = re.compile(r"^\d+\. ")


def _without_seat_lines(plan: Plan) -> list[tuple[object, ...]]:
    """The plan's messages less the seat lines of a closed turn: a turn kept as lines has
    no events to tell which seats it changed, so it closes without them."""
    shown = []
    for op in plan.ops:
        text = op.text
        if op.moment is not None:
            text = text[: op.moment.offset] + "<moment>" + text[op.moment.offset :]
        lines = [line for line in text.split("\n") if not SEAT_LINE.match(line)]
        shown.append((type(op), op.chat, op.ref, "\n".join(lines).replace("\n\n▶️", "\n▶️")))
        shown.append((op.kb, op.deadline))
    return shown


def test_a_record_that_kept_rendered_lines_loads_and_plays_on_with_the_same_messages() -> None:
    builder = StepMessages(CATALOGS, "coup_test_bot")
    checked = 0
    for seed in range(12):
        ids = list(range(1, 3 + seed % 4))
        new = GameRecord(
            f"g{seed}",
            -100,
            None,
            ("ka", "en")[seed % 2],
            ids[0],
            Timing(60, 30, 30, 30, 60, 2),
            players=[Seat(pid, f"N{pid}", "ka") for pid in ids],
        )
        driver = random.Random(seed)
        game, events = Game.new(ids, seed, variant=list(Variant)[seed % len(Variant)])
        old: GameRecord | None = None
        step = 0
        while True:
            plan = builder.build(new, game, events, step * 1000)
            if old is not None:
                again = builder.build(old, game, events, step * 1000)
                assert _without_seat_lines(again) == _without_seat_lines(plan)
                checked += 1
            elif new.turn_events and not game.over and step >= 3:
                old = _old_form(new, builder.turn_story(new))  # from here on, an old record
            if game.over:
                break
            pid = driver.choice(game.awaiting().players)
            events = game.apply(pid, driver.choice(game.legal_decisions(pid)))
            step += 1
        assert old is not None
        new.engine = old.engine = game_to_dict(game)  # what the service keeps with the step
        assert builder.final_message(old) == builder.final_message(new)
        # A finished game kept by the code before: its final message, which Play again edits.
        end = next(op.text for op in plan.ops if op.chat == -100 and op.ref == END_REF)
        assert builder.final_message(_old_form(new, [end])) == end
        # The end is a message of its own (the last turn's story above it when that turn
        # had no message yet); Play again edits it into the same text.
        assert builder.final_message(new) == end
    assert checked > 100
