"""GET /app/api/view: what each user may know, in their language, signed by Telegram."""

from __future__ import annotations

import random
from typing import Any

import pytest

from tests.bot.play import open_and_start, players
from tests.resilience.test_no_leaks import CATALOGS, GROUP
from tests.telegram_sim.harness import TgUser, running_bot
from tgbot.engine import Game, Variant, game_to_dict, view_of
from tgbot.rendering.history import claims_text
from tgbot.service import archive
from tgbot.service.app import page_of
from tgbot.service.records import PLAYING, GameRecord, Seat, Timing

from .client import Page, base_url, init_data


async def test_a_player_sees_their_cards_and_the_table(any_redis_url: str) -> None:
    async with running_bot(any_redis_url) as h:
        users = players(3)
        game_id = await open_and_start(h, users)
        # The turn's deadline runs from the delivery of its prompt and of the group's turn
        # message (the later one moves it): wait until every message is out.
        await h.delivered(game_id)
        record = await h.record(game_id)
        assert record is not None and record.delivered == record.context
        game = record.game()
        actor = game.awaiting().players[0]
        for u in users:
            shown = await Page(h, u).shown()  # their current game
            assert shown["game"] == game_id and shown["revision"] == record.rev
            assert shown["lang"] == "ka" and shown["phase"] == "turn"
            mine = view_of(game, u.id)
            assert [c["character"] for c in shown["me"]["cards"]] == [
                c.value for c in mine.my_cards
            ]
            assert shown["me"]["seated"] and not shown["me"]["out"]
            assert shown["me"]["coins"] == 2
            names = {p.id: p.first_name for p in users}
            seats = [p.id for p in game.players]  # in seat order
            assert [s["name"] for s in shown["seats"]] == [names[p] for p in seats]
            assert [s["face_down"] for s in shown["seats"]] == [2, 2, 2]
            assert [s["turn"] for s in shown["seats"]] == [p == actor for p in seats]
            assert [s["me"] for s in shown["seats"]] == [p == u.id for p in seats]
            assert shown["deadline_ms"] == record.deadline_ms
            # The actor's decisions are the turn prompt's, with the chat's labels.
            codes = [d["code"] for d in shown["decisions"]]
            if u.id == actor:
                assert "i" in codes and "x" in codes
                income = next(d for d in shown["decisions"] if d["code"] == "i")
                assert income["label"] == h.tr("💰 Income")
            else:
                assert codes == []
            assert shown["texts"]["your_cards"] == h.tr("🂠 Your cards")
            actor_name = next(p.first_name for p in users if p.id == actor)
            if u.id == actor:
                # Their own turn is said to them, never "waiting for <them>".
                assert shown["header"] == {"text": h.tr("▶️ Your turn"), "mine": True}
                assert shown["waiting_for"] == []
                assert shown["question"] == h.tr("Choose an action:")
            else:
                assert shown["header"]["mine"] is False
                assert actor_name in shown["header"]["text"]
                assert shown["waiting_for"] == [actor_name]
                assert shown["question"] is None and shown["choices"] == []


async def test_a_spectator_sees_the_public_view_in_english(any_redis_url: str) -> None:
    async with running_bot(any_redis_url) as h:
        users = players(2)
        game_id = await open_and_start(h, users)
        watcher = TgUser(555, "Watcher", "en")
        page = Page(h, watcher)
        assert (await page.view()).status_code == 404  # no game of their own
        assert (await page.view()).json() == {"error": "no game"}
        shown = await page.shown(game_id)
        assert shown["lang"] == "en"
        assert shown["me"] == {
            "id": 555,
            "seated": False,
            "out": False,
            "coins": None,
            "side": None,
            "side_label": None,
            "cards": [],
        }
        assert shown["decisions"] == []
        assert shown["texts"]["spectator"] == h.tr(
            "👀 You are watching: you see what everyone sees.", "en"
        )
        assert all(s["face_up"] == [] and s["face_down"] == 2 for s in shown["seats"])


async def test_forged_tampered_or_expired_calls_are_refused(any_redis_url: str) -> None:
    async with running_bot(any_redis_url) as h:
        users = players(2)
        game_id = await open_and_start(h, users)
        url = base_url(h) + "/app/api/view"
        signed = init_data(h, users[0])
        cases = {
            "": "no init data",
            init_data(h, users[0], token="999:OTHER-bot"): "bad signature",
            signed.replace("Player0", "Player1"): "bad signature",
            init_data(h, users[0], age_s=2 * 86400): "expired",
        }
        for data, reason in cases.items():
            response = await h.http.get(
                url, params={"game": game_id}, headers={"Authorization": f"tma {data}".strip()}
            )
            assert response.status_code == 401, data
            assert response.json() == {"error": reason}
        headers = {"Authorization": f"tma {signed}"}
        ok = await h.http.get(url, params={"game": game_id}, headers=headers)
        assert ok.status_code == 200


def test_a_player_who_is_out_sees_the_public_view() -> None:
    ids = [1, 2, 3]
    timing = Timing(60, 30, 30, 30, 60, 2)
    record = GameRecord(
        "out1",
        GROUP,
        None,
        "ka",
        1,
        timing,
        status=PLAYING,
        players=[Seat(pid, f"N{pid}", "ka") for pid in ids],
        seed=7,
    )
    game, _ = Game.new(ids, 7, afk_limit=timing.afk_limit)
    driver = random.Random(7)
    while all(game.player(p).hidden for p in ids):
        player = driver.choice(game.awaiting().players)
        decision = driver.choice(game.legal_decisions(player))
        archive.note_move(record, 0, player, decision)
        game.apply(player, decision)
    out = next(p for p in ids if not game.player(p).hidden)
    record.engine = game_to_dict(game)
    page = page_of(CATALOGS.get("en"), record, out, 0)
    assert page["me"]["seated"] and page["me"]["out"] and page["me"]["cards"] == []
    assert page["decisions"] == []
    assert next(s for s in page["seats"] if s["id"] == out)["out"] is True
    public = page_of(CATALOGS.get("en"), record, 999, 0)
    assert page["log"] == public["log"]  # no private line of theirs any more
    assert page["texts"]["out"] == CATALOGS.get("en").gettext(
        "💀 You are out of this game: you see what everyone sees."
    )


def test_the_claims_list_has_no_heading_of_its_own() -> None:
    """The page titles the list ("🗣 Claims"): the JSON holds its lines only, while the
    chat's /claims keeps its heading."""
    t = CATALOGS.get("en")
    record = GameRecord(
        "claims1",
        GROUP,
        None,
        "en",
        1,
        Timing(60, 30, 30, 30, 60, 2),
        status=PLAYING,
        players=[Seat(pid, f"N{pid}", "en") for pid in (1, 2)],
        seed=7,
    )
    record.engine = game_to_dict(Game.new([1, 2], 7)[0])
    assert page_of(t, record, 999, 0)["claims"] == [
        t.gettext("🗣 Nobody has claimed a character in this game yet.")
    ]
    record.claims = {"1": {"duke": 2, "captain": 1}}
    assert page_of(t, record, 999, 0)["claims"] == ["N1: Duke ×2, Captain"]
    heading = t.gettext("🗣 Claimed in this game:")
    assert claims_text(t, record.claims, record.names()).split("\n") == [
        heading,
        "N1: Duke ×2, Captain",
    ]


@pytest.mark.parametrize("variant", list(Variant))
def test_the_header_says_what_each_reader_must_decide_at_every_step(variant: Variant) -> None:
    """Random games of every variant: at each step each seated reader's header is theirs
    (and from the catalogue) exactly when they must decide, never "waiting for <them>"; a
    question stands over every choice but an answer's; the choices are the decisions, an
    action with targets once, its targets with their coins and face-down cards."""
    t = CATALOGS.get("en")
    ids = [1, 2, 3, 4]
    names = {pid: f"Name{pid}" for pid in ids}
    kinds_seen: set[str] = set()
    for seed in range(6):
        timing = Timing(60, 30, 30, 30, 60, 2)
        record = GameRecord(
            f"hdr{seed}",
            GROUP,
            None,
            "en",
            1,
            timing,
            status=PLAYING,
            players=[Seat(pid, names[pid], "en") for pid in ids],
            seed=seed,
            variant=variant.value,
        )
        game, _ = Game.new(ids, seed, variant=variant)
        driver = random.Random(seed)
        while not game.over:
            record.engine = game_to_dict(game)
            awaited = set(game.awaiting().players)
            for reader in ids:
                page = page_of(t, record, reader, 0)
                view = view_of(game, reader)
                mine = reader in awaited and view.seat(reader).alive
                assert page["header"]["mine"] is mine
                if not mine:
                    assert page["choices"] == [] and page["question"] is None
                    continue
                kind = page["phase"]
                kinds_seen.add(kind)
                assert page["header"]["text"] in own_headers(t, view, names), kind
                assert names[reader] not in page["waiting_for"]
                assert (page["question"] is None) == (kind == "response")
                flat = [
                    target["code"]
                    for choice in page["choices"]
                    for target in choice.get("targets", [choice])
                ]
                assert sorted(flat) == sorted(d["code"] for d in page["decisions"])
                seats = {s["name"]: s for s in page["seats"]}
                for choice in page["choices"]:
                    for target in choice.get("targets", []):
                        seat = seats.get(target["name"].removesuffix(" (2)"), page["me"])
                        assert target["coins"] == seat["coins"]
                        if seat is not page["me"]:
                            assert target["face_down"] == seat["face_down"] > 0
            player = driver.choice(sorted(awaited))
            decision = driver.choice(game.legal_decisions(player))
            archive.note_move(record, 0, player, decision)
            game.apply(player, decision)
    assert {"turn", "response", "lose_card"} <= kinds_seen
    if variant.inquisitor:
        assert {"show_card", "examine"} & kinds_seen


def own_headers(t: Any, view: Any, names: dict[int, str]) -> set[str]:
    """Every header a reader's own decision of this kind may have (from the catalogue)."""
    kind = view.awaiting.kind.value
    actor = names.get(view.actor or 0, "")
    target = names.get(view.target or 0, "")
    return {
        "turn": {t.gettext("▶️ Your turn")},
        "response": {
            t.gettext("❓ You are asked: challenge the block?"),
            t.gettext("❓ You are asked: challenge, block or pass?"),
            t.gettext("❓ You are asked: challenge?"),
            t.gettext("❓ You are asked: block?"),
        },
        "lose_card": {t.gettext("🔻 Choose a card to lose")},
        "exchange": {
            t.ngettext("🔄 Keep {n} card", "🔄 Keep {n} cards", n).format(n=n) for n in (1, 2)
        },
        "show_card": {t.gettext("👁 {actor} examines you: show a card").format(actor=actor)},
        "examine": {
            t.gettext("🔍 {target}'s card: keep it or make them swap?").format(target=target)
        },
    }[kind]
