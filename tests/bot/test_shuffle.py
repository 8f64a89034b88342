"""A shuffle anyone can check: the commitment at the start, the seed at the end, `verify`."""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path
from typing import Any

from tests.deploy.cli import bot_env, run_cli
from tests.telegram_sim.harness import Harness, running_bot
from tgbot.config import DEFAULT_LOCALES
from tgbot.engine import Variant
from tgbot.rendering import guide
from tgbot.rendering.i18n import Catalogs
from tgbot.service.fairness import verify
from tgbot.storage.history_store import HistoryStore

from .play import GROUP, open_and_start, play_to_end, players
from .test_history import settled


def shown_texts(h: Harness) -> list[tuple[int, str]]:
    """Every text the bot sent or edited in, in order, with its chat."""
    return [
        (int(c.params["chat_id"]), str(c.params["text"]))
        for c in h.sim.calls
        if c.method in ("sendMessage", "editMessageText") and "text" in c.params
    ]


async def finished_game(h: Harness, seed: int = 3) -> dict[str, Any]:
    """A 3-player game played to its end and kept; its archive."""
    users = players(3)
    game_id = await open_and_start(h, users)
    await play_to_end(h, users, random.Random(seed))
    return await settled(h, game_id)


async def test_the_seed_shown_at_the_end_opens_the_commitment_shown_at_the_start(
    redis_server_url: str,
) -> None:
    async with running_bot(redis_server_url) as h:
        archive = await finished_game(h)
        game_id, seed = archive["id"], archive["seed"]
        texts = shown_texts(h)
        # The documented text: the game id, a colon, the seed in decimal, in UTF-8.
        code = hashlib.sha256(f"{game_id}:{seed}".encode()).hexdigest()
        sealed = h.tr("🔐 Shuffle sealed: {code}").format(code=code)
        first_shown = next(i for i, (chat, text) in enumerate(texts) if sealed in text)
        assert texts[first_shown][0] == GROUP
        # The group read the commitment before any card was played: in the first message
        # that names who moves.
        assert archive["commit"] == code
        # The seed: never in any message, group or private, before the final message.
        revealed = h.tr("🔑 Shuffle seed: {seed} (game {game}; /replay shows how to check it)")
        revealed = revealed.format(seed=seed, game=game_id)
        first_seed = next(i for i, (_, text) in enumerate(texts) if str(seed) in text)
        assert first_seed > first_shown
        chat, final = texts[first_seed]
        assert chat == GROUP and revealed in final
        assert h.tr("🃏 Everyone's cards:") in final  # it is the game's final message
        assert all(str(seed) not in text for _, text in texts[:first_seed])


async def test_verify_passes_on_a_real_game_and_fails_on_a_tampered_seed(
    redis_server_url: str, tmp_path: Path
) -> None:
    async with running_bot(redis_server_url) as h:
        archive = await finished_game(h, seed=5)
        game_id = archive["id"]
        assert verify(archive).ok
        env = bot_env(
            BOT_TOKEN="123456:TEST-token",
            REDIS_URL=redis_server_url,
            REDIS_KEY_PREFIX=h.store.keys.prefix,
        )
        result = await run_cli(env, tmp_path, "verify", game_id)
        assert result.returncode == 0, result.stdout + result.stderr
        assert result.stdout.splitlines()[-1] == "OK"
        assert "ok commitment" in result.stdout and "ok deal" in result.stdout

        # Another seed: it neither opens the commitment nor deals the hands dealt.
        tampered = dict(archive, seed=archive["seed"] ^ 1)
        verdict = verify(tampered)
        assert not verdict.ok
        assert verdict.commitment_ok is False and verdict.deal_ok is False
        records = HistoryStore(h.store.redis, h.store.keys.prefix)
        await h.store.redis.set(records.keys.archive(game_id), json.dumps(tampered))
        result = await run_cli(env, tmp_path, "verify", game_id)
        assert result.returncode == 1
        assert result.stdout.splitlines()[-1] == "MISMATCH"
        assert "MISMATCH commitment" in result.stdout and "MISMATCH deal" in result.stdout

        # A record whose noted hands were changed (the seed untouched) fails on the deal.
        noted = [[pid, list(reversed(cards))] for pid, cards in archive["deal"]]
        noted[0][1] = ["duke", "duke"] if noted[0][1] != ["duke", "duke"] else ["captain"] * 2
        swapped = tmp_path / "swapped.json"
        swapped.write_text(json.dumps(dict(archive, deal=noted)))
        result = await run_cli(env, tmp_path, "verify", game_id, "--file", str(swapped))
        assert result.returncode == 1 and "MISMATCH deal" in result.stdout
        assert "ok commitment" in result.stdout


async def test_replay_shows_the_seed_and_how_to_check_it(redis_server_url: str) -> None:
    async with running_bot(redis_server_url) as h:
        archive = await finished_game(h, seed=7)
        game_id, seed, code = archive["id"], archive["seed"], archive["commit"]
        person = players(3)[0]
        before = len(h.sim.messages(person.id))
        await h.say(person, person.id, "/replay")
        await h.until(lambda: code in h.sim.text_of(person.id))
        got = "\n".join(m.text for m in h.sim.messages(person.id)[before:])
        assert f"echo -n '{game_id}:{seed}' | sha256sum" in got
        assert code in got and str(seed) in got


def test_rules_point_to_help_which_says_how_to_check_in_one_message_each() -> None:
    catalogs = Catalogs(DEFAULT_LOCALES)
    for lang in ("ka", "en"):
        t = catalogs.get(lang)
        pointer = t.gettext("🔐 How to check the shuffle: /help")
        for variant in Variant:
            rules = guide.rules_for(t, variant)
            assert rules.endswith("\n" + pointer), (lang, variant)
            for message in guide.rules_messages(t, variant):
                assert len(message.encode("utf-16-le")) // 2 <= 4096, (lang, variant)
        assert guide.shuffle_help(t) in guide.help_text(t, [], [])
        assert "SHA-256" in guide.shuffle_help(t) and "/replay" in guide.shuffle_help(t)


def test_a_game_kept_before_the_commitment_is_checked_by_its_replay_alone() -> None:
    fixtures = Path(__file__).resolve().parents[1] / "history" / "fixtures"
    for line in (fixtures / "records_e20ae7b.jsonl").read_text().splitlines():
        archive = json.loads(line)
        verdict = verify(archive)
        assert verdict.ok and verdict.commitment_ok is None and verdict.deal_ok is None
        assert not verify(dict(archive, seed=archive["seed"] + 1)).ok  # another game
