"""A step is decided by the service without text (`advance`, pure) and written by
rendering from that outcome alone: the decision leaves the record as it was, and the
messages are the same whichever language the group reads them in."""

from __future__ import annotations

import copy
import random

from tgbot.config import DEFAULT_LOCALES
from tgbot.engine import Game, Variant
from tgbot.rendering.i18n import Catalogs
from tgbot.rendering.step_plan import StepPlanner
from tgbot.service.advance import advance, settle
from tgbot.service.records import GameRecord, Seat, Timing

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
            step = planner.render(outcome, game, events)
            assert outcome == kept and record.to_dict() == before  # rendering only reads
            settle(record, outcome, step.story)
            assert record.context == outcome.context and record.prompts == outcome.prompts
            steps += 1
            if game.over:
                break
            waiting = game.awaiting()
            pid = driver.choice(waiting.players)
            events = game.apply(pid, driver.choice(game.legal_decisions(pid)))
            now += 1000
    assert steps > 100
