"""No Mini App view shows a user a card they may not know: over many random games of
every variant, the page's JSON for each player and for a spectator, at every step, holds
no other player's private line (the chat's no-leak check) and only the reader's own hand."""

from __future__ import annotations

import json
import random

import pytest

from tests.resilience.test_no_leaks import CATALOGS, GROUP
from tgbot.engine import Game, Variant, game_to_dict
from tgbot.rendering.texts import describe
from tgbot.service import archive
from tgbot.service.app import page_of
from tgbot.service.records import PLAYING, GameRecord, Seat, Timing

SPECTATOR = 999


@pytest.mark.parametrize("variant", list(Variant))
def test_views_show_no_card_the_reader_may_not_know(variant: Variant) -> None:
    timing = Timing(60, 30, 30, 30, 60, 2)
    checked = own_lines = 0
    for seed in range(12 if variant is Variant.BASE else 6):
        ids = list(range(1, 3 + seed % 4))
        record = GameRecord(
            "w" + str(seed),
            GROUP,
            None,
            "ka",
            ids[0],
            timing,
            status=PLAYING,
            players=[Seat(pid, f"N{pid}", "ka") for pid in ids],
            seed=seed,
            variant=variant.value,
        )
        driver = random.Random(seed)
        game, events = Game.new(ids, seed, variant=variant, afk_limit=timing.afk_limit)
        secrets: dict[int, set[str]] = {pid: set() for pid in ids}
        while True:
            for e in events:
                if e.recipient is not None:
                    for lang in ("ka", "en"):
                        line = describe(e, CATALOGS.get(lang), record.names(), e.recipient)
                        if line:
                            secrets[e.recipient].add(line)
            record.engine = game_to_dict(game)
            record.rev += 1
            for reader in [*ids, SPECTATOR]:
                lang = ("ka", "en")[(reader + seed) % 2]
                page = page_of(CATALOGS.get(lang), record, reader, 0)
                text = json.dumps(page, ensure_ascii=False)
                plays_on = reader in ids and (bool(game.player(reader).hidden) or game.over)
                own = [c["character"] for c in page["me"]["cards"]]
                assert own == ([c.value for c in game.player(reader).hidden] if plays_on else [])
                for seat in page["seats"]:
                    assert seat["face_down"] == len(game.player(seat["id"]).hidden)
                mine = secrets.get(reader, set()) if plays_on else set()
                own_lines += sum(line in text for line in mine)  # their log tells them
                for owner in ids:
                    for line in secrets[owner] - mine:
                        assert line not in text, (reader, owner, line)
                        checked += 1
            if game.over:
                break
            player = driver.choice(game.awaiting().players)
            decision = driver.choice(game.legal_decisions(player))
            archive.note_move(record, 0, player, decision)
            events = game.apply(player, decision)
    assert checked > 1000 and own_lines > 100
