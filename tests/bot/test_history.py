"""Ratings, stats with bluffs, the claim tracker, records and replays, through the real stack."""

from __future__ import annotations

import asyncio
import json
import random
import time
from typing import Any

import pytest

from tests.store_probe import deadline_of
from tests.telegram_sim.harness import Harness, TgUser, running_bot
from tgbot.config import load_config
from tgbot.engine import Character, game_to_dict
from tgbot.rendering.forms import ordinal
from tgbot.rendering.history import conservative, does_not_replay_text
from tgbot.service.archive import replay
from tgbot.service.history import History, ai_member
from tgbot.storage.history_store import GLOBAL_SCOPE, HistoryStore, group_scope

from .play import GROUP, open_and_start, open_lobby, play_to_end, players


def records(h: Harness) -> HistoryStore:
    return HistoryStore(h.store.redis, h.store.keys.prefix)


async def settled(h: Harness, game_id: str, timeout: float = 10.0) -> dict[str, Any]:
    """Wait until the finished game is kept and counted (its deadline is disarmed)."""
    deadline = time.monotonic() + timeout
    store = records(h)
    while True:
        archive = await store.archive(game_id)
        armed = await deadline_of(h.store, game_id)
        if archive is not None and armed is None:
            await h.delivered(game_id)
            return archive
        assert time.monotonic() < deadline, "the finished game was not counted"
        await asyncio.sleep(0.02)


def texts_after(h: Harness, chat_id: int, count: int) -> list[str]:
    return [m.text for m in h.sim.messages(chat_id)[count:]]


async def play_and_settle(
    h: Harness, users: list[TgUser], ai: int = 0, seed: int = 1
) -> dict[str, Any]:
    game_id = await open_lobby(h, users)
    for _ in range(ai):
        await h.press_text(users[0], GROUP, h.tr("🤖 Add AI"))
    await h.press_text(users[0], GROUP, h.tr("▶️ Start"))
    await play_to_end(h, users, random.Random(seed), only_humans=not ai)
    return await settled(h, game_id)


async def test_ratings_count_people_and_ai_players_apart(redis_server_url: str) -> None:
    async with running_bot(redis_server_url) as h:
        a, b = players(2)
        archive = await play_and_settle(h, [a, b], ai=1, seed=4)
        store = records(h)
        winner = archive["winner"]
        member = {a.id: str(a.id), b.id: str(b.id), -1: ai_member(-1)}
        for scope in (group_scope(GROUP), GLOBAL_SCOPE):
            people = await store.board(scope, False, 10)
            bots = await store.board(scope, True, 10)
            assert sorted(r.member for r in people) == sorted([str(a.id), str(b.id)])
            assert [r.member for r in bots] == [ai_member(-1)]
            everyone = people + bots
            assert all(r.games == 1 for r in everyone)
            assert [r.member for r in everyone if r.wins] == [member[winner]]
            best = max(everyone, key=lambda r: conservative(r.mu, r.sigma))
            assert best.member == member[winner]
            # Each board is ranked by the conservative rating, best first.
            scores = [conservative(r.mu, r.sigma) for r in people]
            assert scores == sorted(scores, reverse=True)
        for user in (a, b):
            stats = await store.person_stats(user.id)
            assert stats["played"] == 1 and stats["won"] == int(user.id == winner)
        await h.say(a, GROUP, "/top")
        top = h.sim.last(GROUP).text
        assert top.startswith(h.tr("🏆 Best players of this group (rating, games):"))
        people_part, ai_part = top.split(h.tr("🤖 AI players:"))
        assert a.first_name in people_part and b.first_name in people_part
        assert "🤖" not in people_part and "🤖" in ai_part
        assert a.first_name not in ai_part
        await h.say(b, b.id, "/top")  # in private: the board of all groups
        everywhere = h.sim.last(b.id).text
        assert everywhere.startswith(h.tr("🏆 Best players of all groups (rating, games):"))
        assert a.first_name in everywhere.split(h.tr("🤖 AI players:"))[0]
        await h.say(a, a.id, "/stats")
        mine = h.sim.last(a.id).text
        assert mine.startswith(h.tr("⭐ Rating {rating} (estimate {mu} ± {sigma})").split("{")[0])
        assert (
            h.catalogs.get("ka")
            .ngettext("📊 {n} game played", "📊 {n} games played", 1)
            .format(n=1)
            in mine
        )


async def test_a_game_with_one_person_is_kept_but_not_counted(redis_server_url: str) -> None:
    async with running_bot(redis_server_url) as h:
        (a,) = players(1)
        archive = await play_and_settle(h, [a], ai=1, seed=2)
        store = records(h)
        for scope in (group_scope(GROUP), GLOBAL_SCOPE):
            assert await store.board(scope, False, 10) == []
            assert await store.board(scope, True, 10) == []
        assert await store.person_stats(a.id) == {}
        await h.say(a, GROUP, "/top")
        assert h.sim.last(GROUP).text == h.tr(
            "🏆 No rated games in this group yet (a game counts with 2+ people)."
        )
        # In private /top is the board of all groups: its empty text says so, not "this group".
        await h.say(a, a.id, "/top")
        assert h.sim.last(a.id).text == h.tr(
            "🏆 No rated games in any group yet (a game counts with 2+ people)."
        )
        # It is still kept, and its player may replay it.
        before = len(h.sim.messages(a.id))
        await h.say(a, a.id, "/replay")
        replayed = texts_after(h, a.id, before)
        assert replayed[0].startswith(h.tr("📜 Replay of game {game} ({date}), public log:")[:5])
        assert archive["id"] in replayed[0]


async def test_the_finishing_step_counts_once_after_a_retry_or_a_crash(
    redis_server_url: str,
) -> None:
    async with running_bot(redis_server_url) as h:
        a, b = players(2)
        game_id = await open_lobby(h, [a, b])
        await h.press_text(a, GROUP, h.tr("▶️ Start"))
        await h.until(lambda: any(h.sim.with_buttons(u.id) for u in (a, b)))
        # b leaves; the update that ends the game is delivered twice.
        update = h.message_update(b, GROUP, "/leave")
        assert (await h.post(update)).status_code == 200
        assert (await h.post(update)).status_code == 200
        archive = await settled(h, game_id)
        store = records(h)
        counted = {
            "a": await store.person_stats(a.id),
            "b": await store.person_stats(b.id),
            "group": await store.board(group_scope(GROUP), False, 10),
            "all": await store.board(GLOBAL_SCOPE, False, 10),
        }
        assert counted["a"]["played"] == 1 and counted["a"]["won"] == 1
        assert counted["b"]["played"] == 1 and counted["b"]["won"] == 0
        assert all(r.games == 1 for r in counted["group"] + counted["all"])
        # A process died after counting, before disarming the deadline: it fires again.
        await h.store.redis.zadd(h.store.keys.deadlines(h.store.keys.bucket(game_id)), {game_id: 0})
        await settled(h, game_id)
        # And one that died half-way: the record is counted again from the start.
        await History(h.store, h.catalogs, _nothing).settle(archive)
        assert counted == {
            "a": await store.person_stats(a.id),
            "b": await store.person_stats(b.id),
            "group": await store.board(group_scope(GROUP), False, 10),
            "all": await store.board(GLOBAL_SCOPE, False, 10),
        }
        # The summary was sent once.
        summaries = [m for m in h.sim.messages(GROUP) if "🎭" in m.text]
        assert len(summaries) == 1


async def _nothing(_: str) -> None:
    return None


async def test_a_crash_between_scopes_counts_each_scope_once(redis_server_url: str) -> None:
    async with running_bot(redis_server_url) as h:
        a, b = players(2)
        archive = await play_and_settle(h, [a, b], seed=7)
        store = records(h)
        # A second game with the same record (another id), whose counting a process began:
        # it listed the game on the group's board, then died before rating it there.
        second = dict(archive, id="zz" + archive["id"][2:])
        async with store.rating_round(group_scope(GROUP), second["id"], second["end"], 10**9, []):
            pass
        history = History(h.store, h.catalogs, _nothing)
        await history.settle(second)  # the retry
        await history.settle(second)  # and one more
        group = await store.board(group_scope(GROUP), False, 10)
        assert [r.games for r in group] == [1, 1]  # the group had counted it already
        assert [r.games for r in await store.board(GLOBAL_SCOPE, False, 10)] == [2, 2]
        for user in (a, b):
            assert (await store.person_stats(user.id))["played"] == 2


async def test_claims_are_public_and_bluffs_are_counted_from_the_cards(
    redis_server_url: str,
) -> None:
    async with running_bot(redis_server_url) as h:
        await h.store.prefs.set_chat_settings(
            GROUP, answers="private"
        )  # the answer in a private chat
        users = players(2)
        game_id = await open_and_start(h, users)
        record = await h.record(game_id)
        assert record is not None
        game = record.game()
        actor = next(u for u in users if u.id == game.awaiting().players[0])
        other = next(u for u in users if u is not actor)
        had_duke = Character.DUKE in game.player(actor.id).hidden
        prompt = h.sim.with_buttons(actor.id)[-1]
        tax = next(b for b in prompt.buttons() if b.get("callback_data", "").endswith(".x"))
        await h.press(actor, actor.id, prompt.message_id, tax["callback_data"])
        await h.delivered(game_id)
        duke = h.tr("Duke")
        # /claims shows the claim made out loud, and nothing else (no face-down card).
        await h.say(other, GROUP, "/claims")
        assert h.sim.last(GROUP).text == "\n".join(
            [h.tr("🗣 Claimed in this game:"), f"{actor.first_name}: {duke}"]
        )
        await h.say(other, other.id, "/claims")
        assert h.sim.last(other.id).text.endswith(f"{actor.first_name}: {duke}")
        # Nothing is counted, nor any bluff told, while the game runs.
        assert await records(h).person_stats(actor.id) == {}
        assert not any("🎭" in m.text for m in h.sim.messages(GROUP))
        await h.until(lambda: bool(h.sim.with_buttons(other.id)))
        response = h.sim.with_buttons(other.id)[-1]
        passing = next(b for b in response.buttons() if b.get("callback_data", "").endswith(".P"))
        await h.press(other, other.id, response.message_id, passing["callback_data"])
        await h.delivered(game_id)
        # The whole table carries the tracker's line: /board's (and every fifth turn's).
        line = h.tr("🗣 Claimed so far — {list}").format(list=f"{actor.first_name}: {duke}")
        await h.say(other, GROUP, "/board")
        await h.until(lambda: line in h.sim.text_of(GROUP))
        await h.say(other, GROUP, "/leave")
        await settled(h, game_id)
        stats = await records(h).person_stats(actor.id)
        assert stats["claim:duke"] == 1
        assert stats.get("bluff:duke", 0) == (0 if had_duke else 1)
        assert "claim:duke" not in await records(h).person_stats(other.id)
        summary = next(m for m in h.sim.messages(GROUP) if "🎭" in m.text)
        assert "🏆" in summary.text  # the final message reveals the bluffs
        mark = "✅" if had_duke else "❌"
        assert summary.text[summary.text.index("🎭") :] == "\n".join(
            [
                h.tr("🎭 Claims revealed (✅ true, ❌ bluff):"),
                f"{actor.first_name}: "
                + h.tr("{mark} {character} (turn {turn})").format(
                    mark=mark, character=duke, turn=ordinal(h.catalogs.get("ka"), 1)
                ),
            ]
        )
        await h.say(actor, actor.id, "/stats")
        once = (
            "{character}: claimed once, not a bluff"
            if had_duke
            else "{character}: claimed once, a bluff"
        )
        expected = h.tr(once).format(character=duke)
        assert expected in h.sim.last(actor.id).text.split("\n")


def _is_subsequence(needles: list[str], haystack: list[str]) -> bool:
    it = iter(haystack)
    return all(any(line == hay for hay in it) for line in needles)


async def test_a_replay_is_the_game_everyone_saw_rebuilt_by_the_engine(
    redis_server_url: str,
) -> None:
    async with running_bot(redis_server_url) as h:
        users = [TgUser(1000, "Player0", "ka"), TgUser(1001, "Player1", "en")]
        users += players(1, "ka", 1002)
        archive = await play_and_settle(h, users, seed=3)
        group_lines = [line for m in h.sim.messages(GROUP) for line in m.text.split("\n")]
        # The record rebuilds exactly the state the bot stored when the game ended.
        stored = await h.record(archive["id"])
        assert stored is not None and stored.status == "over"
        assert game_to_dict(replay(archive).game) == stored.engine
        ka_user, en_user = users[0], users[1]
        before = len(h.sim.messages(ka_user.id))
        seen_privately = [  # every text sent or edited into the chat, in order
            line
            for call in h.sim.calls_to(ka_user.id)
            if "text" in call.params
            for line in str(call.params["text"]).split("\n")
        ]
        await h.say(ka_user, ka_user.id, "/replay")
        got = texts_after(h, ka_user.id, before)
        assert all(len(text) <= 4096 for text in got)
        lines = [line for line in "\n".join(got).split("\n") if line]  # "" between merged
        private_at = lines.index(h.tr("🔒 Your private view:"))
        public, private = lines[1 : private_at - 1], lines[private_at + 1 :]
        assert archive["id"] in lines[0]
        # The public log ends with how to check the shuffle: the seed and the commitment.
        check = lines[private_at - 1]
        assert f"{archive['id']}:{archive['seed']}" in check and archive["commit"] in check
        # The public log is what the group read, line for line, in order.
        assert len(public) > 5 and _is_subsequence(public, group_lines)
        # The private view is what this player read privately (their cards first). The
        # first player read their dealt cards in their first prompt's hand line instead
        # (the same cards, with the coins: the prompt does not say them twice).
        assert private
        deal = private[0]
        assert deal.startswith(
            h.catalogs.get("ka")
            .ngettext("🂠 Your card: {cards}", "🂠 Your cards: {cards}", 2)
            .split("{")[0]
        )
        assert deal in seen_privately or any(
            line.startswith(deal.rstrip(".") + " · ") for line in seen_privately
        )
        assert _is_subsequence(private[1:], seen_privately)
        # In English for the player who speaks English.
        before = len(h.sim.messages(en_user.id))
        await h.say(en_user, en_user.id, "/replay " + archive["id"])
        english = "\n".join(texts_after(h, en_user.id, before))
        assert english.startswith("📜 Replay of game") and "🔒 Your private view:" in english
        # A group gets the public log only.
        before = len(h.sim.messages(GROUP))
        await h.say(ka_user, GROUP, "/replay")
        in_group = [line for line in "\n".join(texts_after(h, GROUP, before)).split("\n") if line]
        assert in_group[1:] == [*public, check]
        assert h.tr("🔒 Your private view:") not in in_group
        # The Replay button under the final message sends it to a player privately only.
        summary = next(m for m in h.sim.messages(GROUP) if "🎭" in m.text)
        data = summary.button(h.tr("📜 Replay"))["callback_data"]
        before = len(h.sim.messages(users[2].id))
        answer = await h.press(users[2], GROUP, summary.message_id, data)
        assert answer["text"] == h.tr("📬 I sent you the replay in private.")
        await h.replied(users[2].id)
        assert texts_after(h, users[2].id, before)[0].split("\n")[0] == lines[0]
        stranger = TgUser(4242, "Stranger", "ka")
        answer = await h.press(stranger, GROUP, summary.message_id, data)
        assert answer["text"] == h.tr("Only the players of a game can ask for its replay.")
        assert h.sim.messages(stranger.id) == []


@pytest.mark.expect_log(r"replay of game \w+ refused: game \w+ rebuilds to another result")
async def test_a_record_that_does_not_replay_is_reported_not_shown(redis_server_url: str) -> None:
    async with running_bot(redis_server_url) as h:
        a, b = players(2)
        archive = await play_and_settle(h, [a, b], seed=5)
        key = records(h).keys.archive(archive["id"])
        damaged = dict(archive, moves=" ".join(archive["moves"].split()[:-1]))
        with_ttl = await h.store.redis.ttl(key)
        await h.store.redis.set(key, json.dumps(damaged), ex=with_ttl)
        with_error = replay_error(damaged)
        assert with_error
        before = len(h.sim.messages(a.id))
        await h.say(a, a.id, "/replay")
        assert texts_after(h, a.id, before) == [does_not_replay_text(h.catalogs.get("ka"))]
        before = len(h.sim.messages(GROUP))
        await h.say(a, GROUP, "/replay")
        assert texts_after(h, GROUP, before) == [does_not_replay_text(h.catalogs.get("ka"))]


def replay_error(archive: dict[str, Any]) -> bool:
    try:
        replay(archive)
    except Exception:
        return True
    return False


async def test_records_are_kept_for_the_configured_time(redis_server_url: str) -> None:
    async with running_bot(redis_server_url, record_days=2) as h:
        a, b = players(2)
        archive = await play_and_settle(h, [a, b], seed=6)
        ttl = await h.store.redis.ttl(records(h).keys.archive(archive["id"]))
        assert 2 * 86400 - 60 < ttl <= 2 * 86400
        assert archive["seed"] is not None and archive["moves"]
        assert [p[0] for p in archive["players"]] == [a.id, b.id]
    env = {"BOT_TOKEN": "1:x", "RECORD_DAYS": "7"}
    assert load_config(env).record_days == 7
    assert load_config({"BOT_TOKEN": "1:x"}).record_days == 30
    try:
        load_config({"BOT_TOKEN": "1:x", "RECORD_DAYS": "0"})
    except Exception as err:
        assert "RECORD_DAYS" in str(err)
    else:
        raise AssertionError("RECORD_DAYS=0 accepted")


async def test_bad_replay_requests_get_a_clear_answer_and_change_nothing(
    redis_server_url: str,
) -> None:
    async with running_bot(redis_server_url) as h:
        (a,) = players(1)
        await h.say(a, a.id, "/start")
        await h.say(a, a.id, "/replay ../../etc")
        assert h.sim.last(a.id).text == h.tr("There is no game with that id.")
        await h.say(a, a.id, "/replay abcdefgh12")
        none_kept = h.catalogs.get("ka").ngettext(
            "No finished game of yours is kept (records are kept for {days} day).",
            "No finished game of yours is kept (records are kept for {days} days).",
            30,
        )
        assert h.sim.last(a.id).text == none_kept.format(days=30)
        await h.say(a, GROUP, "/replay")
        assert h.sim.last(GROUP).text == none_kept.format(days=30)
        await h.say(a, GROUP, "/claims")
        assert h.sim.last(GROUP).text == h.tr("No game here. Start one with /newgame.")
        # In private, /newgame (a group's command) is no advice: they are in no game.
        await h.say(a, a.id, "/claims")
        assert h.sim.last(a.id).text == h.tr("You are not in a game.")
        for data in ("rp.", "rp." + "x" * 60, "rp.abcdefgh12"):
            update = h.press_update(a, GROUP, 1, data)
            response = await h.post(update)
            assert response.status_code == 200
            answer = h.sim.callback_answers[update["callback_query"]["id"]]
            assert answer.get("show_alert") and answer.get("text")
        assert await h.store.redis.keys(f"{h.store.keys.prefix}:{{r:*") == []


async def test_the_command_menus_offer_replay_claims_and_top(redis_server_url: str) -> None:
    async with running_bot(redis_server_url) as h:
        menus = [c.params for c in h.sim.calls if c.method == "setMyCommands"]
        ka = [
            m
            for m in menus
            if m.get("language_code") == "ka"
            or (m.get("language_code") is None and "language_code" not in m)
        ]
        assert ka, menus

        def names(scope: str) -> dict[str, str]:
            for m in ka:
                raw = m["scope"]
                kind = (json.loads(raw) if isinstance(raw, str) else raw)["type"]
                if kind == scope:
                    listed = m["commands"]
                    listed = json.loads(listed) if isinstance(listed, str) else listed
                    return {c["command"]: c["description"] for c in listed}
            raise AssertionError(f"no menu for {scope}")

        group, private = names("all_group_chats"), names("all_private_chats")
        assert group["claims"] == h.tr("who claimed which character")
        assert group["replay"] == h.tr("replay the last game")
        assert private["replay"] == h.tr("replay your last game")
        assert private["top"] == h.tr("the best players of all groups")
        await h.say(TgUser(5, "P", "ka"), 5, "/help")
        assert "/replay" in h.sim.last(5).text and "/claims" in h.sim.last(5).text


async def test_claims_in_a_lobby_say_nobody_has_claimed_yet(redis_server_url: str) -> None:
    """A lobby is a game: /claims, in the group or in a player's private chat, says no one
    has claimed a character yet, not "no game here, open one with /newgame"."""
    async with running_bot(redis_server_url) as h:
        a, b = players(2)
        await open_lobby(h, [a, b])
        nobody = h.tr("🗣 Nobody has claimed a character in this game yet.")
        await h.say(a, GROUP, "/claims")
        assert h.sim.last(GROUP).text == nobody
        await h.say(b, b.id, "/claims")
        assert h.sim.last(b.id).text == nobody
