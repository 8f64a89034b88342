"""No message to the group or to another player reveals a face-down card."""

from __future__ import annotations

import random

import pytest

from tests.bot.play import GROUP, open_and_start, play_to_end, players
from tests.telegram_sim.harness import running_bot
from tgbot.config import DEFAULT_LOCALES
from tgbot.engine import Game, Variant, view_of
from tgbot.rendering import prompting
from tgbot.rendering.i18n import Catalogs
from tgbot.rendering.texts import describe
from tgbot.service.records import GameRecord, Seat, Timing
from tgbot.service.step_messages import StepMessages

CATALOGS = Catalogs(DEFAULT_LOCALES)


@pytest.mark.parametrize("variant", list(Variant))
def test_step_messages_never_address_private_lines_to_anyone_else(variant: Variant) -> None:
    builder = StepMessages(CATALOGS, "coup_test_bot")
    timing = Timing(60, 30, 30, 30, 60, 2)
    checked = 0
    seeds = 150 if variant is Variant.BASE else 60  # issue 18: Examine's card above all
    for seed in range(seeds):
        ids = list(range(1, 3 + seed % 4))
        langs = {pid: ("ka", "en")[(pid + seed) % 2] for pid in ids}
        record = GameRecord(
            "g" + str(seed),
            GROUP,
            None,
            "ka",
            ids[0],
            timing,
            players=[Seat(pid, f"N{pid}", langs[pid]) for pid in ids],
        )
        driver = random.Random(seed)
        game, events = Game.new(ids, seed, variant=variant)
        names = record.names()
        while True:
            plan = builder.build(record, game, events, now_ms=0)
            secrets_of = {
                pid: [
                    describe(e, CATALOGS.get(lang), names, e.recipient)
                    for e in events
                    if e.recipient == pid
                    for lang in ("ka", "en")
                ]
                for pid in ids
            }
            hands = {
                pid: [
                    prompting.hand_text(CATALOGS.get(lang), view_of(game, pid))
                    for lang in ("ka", "en")
                ]
                for pid in ids
                if game.player(pid).hidden
            }
            for op in plan.ops:
                # Lines the recipient may see anyway (their own hand can read the same).
                own = set(secrets_of.get(op.chat, []) + hands.get(op.chat, []))
                for owner in ids:
                    if op.chat == owner:
                        continue
                    for line in secrets_of[owner] + hands.get(owner, []):
                        if line and line not in own:
                            assert line not in op.text, (op.chat, owner, line)
                            checked += 1
            if game.over:
                break
            player = driver.choice(game.awaiting().players)
            events = game.apply(player, driver.choice(game.legal_decisions(player)))
    assert checked > (10_000 if variant is Variant.BASE else 3_000)


async def test_games_through_telegram_show_the_group_no_hidden_card(redis_server_url: str) -> None:
    async with running_bot(redis_server_url) as h:
        for round_no in range(2):
            group = GROUP - round_no
            users = players(4, first_id=3000 + round_no * 10)
            await open_and_start(h, users, group)
            await play_to_end(h, users, random.Random(round_no), group)
            group_text = h.sim.text_of(group)
            for phrase in (
                "🂠 Your card",
                "🂠 შენი ბარათ",
                "🔁",
                "You drew",
                "დეკიდან აიღე",
                "You keep",
                "გრჩება",
            ):
                assert phrase not in group_text
            for u in users:
                for other in users:
                    if other == u:
                        continue
                    # Nobody else's private chat ever showed u's hand.
                    for m in h.sim.messages(other.id):
                        assert f"{u.first_name}:" not in m.text or "🃏" in m.text
