"""Kill -9 the bot again and again mid-game (at random, and right after the webhook answered
a press): every game still ends as if nothing happened, and no line is lost. A message
with buttons sent again after a kill leaves a copy with live-looking buttons; one press
on the copy closes it."""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import re
import signal
import subprocess
import sys
import time
import uuid
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

from tests.store_probe import deadline_of
from tests.telegram_sim.harness import SECRET, WEBHOOK_PATH, Harness, TgUser, free_port, serve
from tests.telegram_sim.server import SimMessage, TelegramSim, build_sim_app
from tgbot.config import DEFAULT_LOCALES, Config
from tgbot.contract import callbacks as buttons
from tgbot.engine import Action, Decision, DecisionKind, Game, Pass, TakeAction, game_to_dict
from tgbot.engine.events import ResponsePassed
from tgbot.rendering.i18n import Catalogs
from tgbot.rendering.texts import describe
from tgbot.service.archive import replay as replay_record
from tgbot.service.core import DEADLINE_LEASE_MS
from tgbot.storage.history_store import HistoryStore, group_scope

ROOT = Path(__file__).resolve().parents[2]
KILLS_WANTED = 20
CATALOGS = Catalogs(DEFAULT_LOCALES)


# After this many engine versions the policy stops varying its choices and plays for an
# end: a handful of seeds (about 1 game in 60) otherwise fall into a cycle, two players
# exchanging cards turn after turn forever, and the game never ends (see test_policy_ends).
VARIED_VERSIONS = 150


def policy(game: Game, player: int) -> Decision:
    """A deterministic choice among the legal decisions, the same in the replay.

    Varied for the first VARIED_VERSIONS versions; then Coup when it can, else Income, let
    everything pass, and the first choice otherwise, so every game ends soon.
    """
    legal = game.legal_decisions(player)
    if game.version < VARIED_VERSIONS:
        return legal[(game.version * 7 + player) % len(legal)]
    for action in (Action.COUP, Action.INCOME):
        for decision in legal:
            if isinstance(decision, TakeAction) and decision.action is action:
                return decision
    return next((d for d in legal if isinstance(d, Pass)), legal[0])


def error_lines(log: Path) -> list[str]:
    """The lines of a bot process's log at ERROR or above, and every traceback's first."""
    lines = log.read_text(encoding="utf-8", errors="replace").splitlines()
    return [
        line
        for line in lines
        if " ERROR " in line or " CRITICAL " in line or line.startswith("Traceback")
    ]


class BotProcess:
    """The bot as a child process that can be killed and started again.

    A spare process, its imports done, waits beside the running one: a start after a kill
    tells it to serve (the bot's own start, from what Redis holds, is the same either way)
    and makes the next spare."""

    def __init__(self, port: int, env: dict[str, str], log: Path) -> None:
        self.port = port
        self.env = env
        self.log = log.open("ab")
        self.process: subprocess.Popen[bytes] | None = None
        self.spare: subprocess.Popen[bytes] | None = None
        self.kills = 0

    def _spawn(self) -> subprocess.Popen[bytes]:
        return subprocess.Popen(
            [sys.executable, "-m", "tests.resilience.bot_process", str(self.port), "--when-told"],
            cwd=ROOT,
            env=self.env,
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=self.log,
        )

    def start(self) -> None:
        spare, self.spare = self.spare, None
        if spare is None or spare.poll() is not None:
            spare = self._spawn()
        assert spare.stdin is not None
        spare.stdin.write(b"serve\n")
        spare.stdin.close()
        self.process = spare
        self.spare = self._spawn()

    def close(self) -> None:
        """Kill the serving process and the spare, if they still run."""
        for process in (self.process, self.spare):
            if process is not None and process.poll() is None:
                os.kill(process.pid, signal.SIGKILL)
                process.wait()
        self.log.close()

    def kill9(self) -> None:
        assert self.process is not None
        os.kill(self.process.pid, signal.SIGKILL)
        self.process.wait()
        self.kills += 1

    async def ready(self, http: httpx.AsyncClient) -> None:
        for _ in range(1800):
            if self.process is not None and self.process.poll() is not None:
                self.start()  # it died while starting (say, the port was not free yet): again
            with contextlib.suppress(httpx.HTTPError):
                if (await http.get(f"http://127.0.0.1:{self.port}/healthz")).status_code == 200:
                    return
            await asyncio.sleep(0.05)
        raise AssertionError("the bot did not come up")


async def post_until_accepted(h: Harness, update: dict) -> None:
    """Deliver an update the way Telegram does: again and again until it gets a 200."""
    for _ in range(1200):
        try:
            response = await h.post(update)
            if response.status_code == 200:
                return
        except httpx.HTTPError:
            pass
        await asyncio.sleep(0.05)
    raise AssertionError("the update was never accepted")


async def wait_for_prompt(h: Harness, user: int, prefix: str) -> int:
    """The id of the message (in `user`'s private chat, or the group's turn message when
    `user` is the group) that carries this decision's buttons."""
    for _ in range(1200):
        for message in reversed(h.sim.messages(user)):
            if any(b.get("callback_data", "").startswith(prefix) for b in message.buttons()):
                return message.message_id
        await asyncio.sleep(0.05)
    raise AssertionError(f"prompt {prefix} never reached {user}")


async def open_and_fill(h: Harness, group: int, users: list[TgUser]) -> str:
    """Everyone starts the bot, the first opens a lobby in the group and the rest join
    it, each update sent until accepted; return the lobby's game id."""
    for u in users:
        await post_until_accepted(h, h.message_update(u, u.id, "/start"))
    await post_until_accepted(h, h.message_update(users[0], group, "/newgame"))
    for _ in range(1200):
        record = await h.record_of_chat(group)
        if record is not None:
            break
        await asyncio.sleep(0.05)
    assert record is not None
    for u in users[1:]:
        await post_until_accepted(h, h.press_update(u, group, 0, f"{record.id}.0.J"))
    return record.id


async def play_one(
    h: Harness,
    group: int,
    users: list[TgUser],
    pace: tuple[float, float] | None = None,
    answered: asyncio.Event | None = None,
    decide: Callable[[Game, int], Decision] = policy,
) -> str:
    """Open, fill and start a lobby, then decide by `decide` (`policy` unless told) until
    the game is over (with `pace`, waiting a random number of seconds in that range before
    each press; with `answered`, setting it each time the webhook answered a press)."""
    rng = random.Random(group)
    game_id = await open_and_fill(h, group, users)
    await post_until_accepted(h, h.press_update(users[0], group, 0, f"{game_id}.0.S"))
    for _ in range(3000):
        record = await h.record(game_id)
        assert record is not None
        if record.status == "over":
            return game_id
        if record.status != "playing":
            await asyncio.sleep(0.05)
            continue
        game = record.game()
        player = game.awaiting().players[0]
        decision = decide(game, player)
        seats = [p.id for p in game.players]
        prefix = f"{game_id}.{record.context}."
        # Answers to a claim are pressed on the group's turn message, the rest privately.
        at_table = game.awaiting().kind is DecisionKind.RESPONSE and record.answers == "table"
        chat = group if at_table else player
        message_id = await wait_for_prompt(h, chat, prefix)
        data = buttons.pack(game_id, record.context, buttons.encode_decision(decision, seats))
        user = next(u for u in users if u.id == player)
        if pace is not None:
            await asyncio.sleep(rng.uniform(*pace))
        await post_until_accepted(h, h.press_update(user, chat, message_id, data))
        if answered is not None:
            answered.set()
    record = await h.record(game_id)
    version = record.game().version if record is not None and record.engine else None
    raise AssertionError(f"the game {game_id} did not end (engine version {version})")


def check_against_replay(
    h: Harness, record_engine: dict, seed: int, ids: list[int], names: dict[int, str], group: int
) -> None:
    replay, events = Game.new(ids, seed)
    while not replay.over:
        player = replay.awaiting().players[0]
        events += replay.apply(player, policy(replay, player))
    assert game_to_dict(replay) == record_engine, "the game differs from an uninterrupted run"
    t = CATALOGS.get("ka")
    expected = Counter(
        line
        for e in events
        if e.recipient is None
        and not isinstance(e, ResponsePassed)
        and (line := describe(e, t, names))
    )
    delivered = Counter(line for m in h.sim.messages(group) for line in m.text.split("\n") if line)
    missing = expected - delivered
    assert not missing, f"group lines never delivered: {missing}"


STALE_TEXTS = {
    CATALOGS.get("ka").gettext(msgid)
    for msgid in (
        "This game is over.",
        "This button is out of date.",
        "Already decided.",
        "This game has already started.",
    )
}


def game_buttons(message: SimMessage) -> set[str]:
    """The games whose buttons (Play again aside) a message still shows."""
    games = set()
    for b in message.buttons():
        data = str(b.get("callback_data", ""))
        if buttons.GAME_PATTERN.match(data) and not data.endswith(f".{buttons.AGAIN}"):
            games.add(buttons.unpack(data).game_id)
    return games


def left_messages(h: Harness, over: set[str]) -> list[SimMessage]:
    """Messages that still show a finished game's buttons (Play again aside)."""
    return [m for chat in h.sim.chats for m in h.sim.messages(chat) if game_buttons(m) & over]


def trace_live(h: Harness, recorded: set[tuple[int, int]], messages: list[SimMessage]) -> list[str]:
    """For a failure's message: each live message, whether the bot holds its id, and the
    calls to its chat (when, what, which message, the answer)."""
    lines = []
    for m in {id(x): x for x in messages}.values():
        chat, mid = m.chat_id, m.message_id
        lines.append(f"message {mid} in {chat}: recorded={(chat, mid) in recorded}")
        for c in h.sim.calls_to(chat):
            lines.append(
                f"  {c.at:.3f} {c.method} {c.status} id={c.params.get('message_id')}"
                f" kb={'reply_markup' in c.params} {str(c.params.get('text', ''))[:40]!r}"
            )
    return lines


UNCONFIRMED = re.compile(r"a message to chat (-?\d+) may have reached Telegram unanswered")


def unconfirmed_sends(log: Path) -> Counter[int]:
    """How many sends the bot made again, by chat, saying the first may have reached
    Telegram (killed between Telegram taking it and its id's record): each may have left a
    message with buttons that nothing can edit (its id is unknown) until it is pressed."""
    text = log.read_text(encoding="utf-8", errors="replace")
    return Counter(int(chat) for chat in UNCONFIRMED.findall(text))


async def close_copies(
    h: Harness, finished: list[tuple[str, int, list[TgUser]]], unconfirmed: Counter[int]
) -> tuple[int, int]:
    """Press a button on every message a kill left with a finished game's buttons, as one
    who may press it: a copy of a message that the bot sent again, or a message the bot
    said may have reached Telegram unanswered (at most as many in a chat as it said so):
    each press is refused as stale (the games are over), changes nothing, and takes its
    buttons off. Return how many copies were sent, and how many messages were pressed.
    Play again stays current until it is used: a copy of the final message opens a new
    lobby at its first press, and its second is the stale one."""
    players = {u.id: u for _, _, users in finished for u in users}
    tables = {group: users for _, group, users in finished}
    recorded: set[tuple[int, int]] = set()
    for game_id, group, _ in finished:
        for ref, mid in (await h.store.redis.hgetall(h.store.keys.messages(game_id))).items():
            name = str(ref)  # "turn@<group>", or "prompt:<user>" in a private chat
            chat = int(name.split(":")[1]) if name.startswith("prompt:") else group
            recorded.add((chat, int(mid)))
    over = {game_id for game_id, _, _ in finished}
    copies = [m for group in h.sim.copies() for m in group]
    orphans = {  # the messages left with a finished game's buttons that are no copy
        (m.chat_id, m.message_id): m for m in left_messages(h, over) if m not in copies
    }
    for chat in {chat for chat, _ in orphans}:
        found = [m for (c, _), m in orphans.items() if c == chat]
        assert len(found) <= unconfirmed[chat], [
            f"{len(found)} live in chat {chat}, {unconfirmed[chat]} said unconfirmed",
            *trace_live(h, recorded, found),
        ]
    pressed = 0
    for message in copies + list(orphans.values()):
        if (message.chat_id, message.message_id) in recorded or not message.keyboard:
            continue
        pressed += 1
        user = players[message.chat_id] if message.chat_id > 0 else tables[message.chat_id][0]
        data = next(
            str(b["callback_data"])
            for b in message.buttons()
            if buttons.GAME_PATTERN.match(str(b.get("callback_data", "")))
        )
        game_id = buttons.unpack(data).game_id
        before = await h.store.redis.get(h.store.keys.game(game_id))
        answer = await h.press(user, message.chat_id, message.message_id, data)
        if data.endswith(f".{buttons.AGAIN}") and answer.get("text") not in STALE_TEXTS:
            await h.delivered(game_id)
            before = await h.store.redis.get(h.store.keys.game(game_id))
            answer = await h.press(user, message.chat_id, message.message_id, data)
        assert answer.get("text") in STALE_TEXTS, (message.chat_id, message.text[:60], answer)
        await h.delivered(game_id)
        assert await h.store.redis.get(h.store.keys.game(game_id)) == before
        assert not message.keyboard, (message.chat_id, message.text[:60])
    # No two copies of a message show buttons any more, and no message shows a finished
    # game's buttons (Play again aside): every keyboard the game knows of was closed.
    live = [[m.message_id for m in g if m.keyboard] for g in h.sim.copies()]
    assert all(len(ids) <= 1 for ids in live), live
    left = left_messages(h, over)
    assert not left, [
        [(m.chat_id, m.text[:60]) for m in left],
        *trace_live(h, recorded, left),
    ]
    return sum(len(g) - 1 for g in h.sim.copies()), pressed


# Seeds and tables on which the policy used to cycle forever (taken from failed runs' replays).
CYCLING = [
    (12171602478298376788, [50310, 50311, 50312, 50313]),
    (17358635430343912712, [50210, 50211, 50212, 50213]),
    (8316622915818741159, [50120, 50121, 50122, 50123, 50124]),
]


def play_by_policy(ids: list[int], seed: int, steps: int) -> Game:
    game, _ = Game.new(ids, seed)
    for _ in range(steps):
        if game.over:
            break
        player = game.awaiting().players[0]
        game.apply(player, policy(game, player))
    return game


@pytest.mark.parametrize(("seed", "ids"), CYCLING)
def test_policy_ends_a_game_that_used_to_cycle(seed: int, ids: list[int]) -> None:
    """play_one presses at most 3000 times: the policy must end every game well before."""
    assert play_by_policy(ids, seed, 1000).over


def test_policy_ends_every_game() -> None:
    rng = random.Random(18)
    for n in range(2, 7):
        for _ in range(60):
            ids = [50000 + n * 10 + j for j in range(n)]
            seed = rng.getrandbits(64)
            assert play_by_policy(ids, seed, 1000).over, f"seed {seed} with {n} players"


@pytest.mark.timeout(480)
async def test_kill_9_at_many_points_loses_and_repeats_nothing(
    any_redis_url: str, tmp_path: Path
) -> None:
    redis_server_url = any_redis_url  # one server, then a 3-master Redis Cluster
    sim = TelegramSim()
    sim_port, bot_port = free_port(), free_port()
    prefix = f"k{uuid.uuid4().hex[:8]}"
    env = {
        **os.environ,
        "REDIS_URL": redis_server_url,
        "WEBHOOK_SECRET": SECRET,
        "TELEGRAM_API_URL": f"http://127.0.0.1:{sim_port}/bot",
        "REDIS_KEY_PREFIX": prefix,
    }
    config = Config(bot_token="123456:TEST-token", redis_url=redis_server_url, key_prefix=prefix)
    rng = random.Random(20)
    async with serve(build_sim_app(sim), sim_port), httpx.AsyncClient(timeout=10) as http:
        bot = BotProcess(bot_port, env, tmp_path / "bot.log")
        bot.start()
        await bot.ready(http)
        h = Harness(sim, f"http://127.0.0.1:{bot_port}{WEBHOOK_PATH}", http, config)
        stop = asyncio.Event()
        answered = asyncio.Event()

        async def killer() -> None:
            # Enough kills, then leave the bot up so the games in flight finish quickly.
            # Every other kill comes right after the webhook answered a press: its step is
            # committed and its messages are on their way to Telegram.
            while not stop.is_set() and bot.kills < KILLS_WANTED:
                if bot.kills % 2:
                    answered.clear()
                    with contextlib.suppress(TimeoutError):
                        async with asyncio.timeout(5):
                            await answered.wait()
                    await asyncio.sleep(rng.uniform(0, 0.02))
                else:
                    await asyncio.sleep(rng.uniform(0.1, 0.8))
                if stop.is_set():
                    break
                bot.kill9()
                bot.start()
                await bot.ready(http)

        killing = asyncio.create_task(killer())
        finished: list[tuple[str, int, list[TgUser]]] = []
        try:
            round_no = 0
            budget_ends = time.monotonic() + 240
            while (bot.kills < KILLS_WANTED or not finished) and round_no < 4:
                if finished and time.monotonic() > budget_ends:
                    break
                groups = [-(900000 + round_no * 10 + i) for i in range(3)]
                tables = [
                    [
                        TgUser(50000 + round_no * 100 + i * 10 + j, f"R{round_no}P{i}{j}")
                        for j in range(3 + i)
                    ]
                    for i in range(3)
                ]
                ids = await asyncio.gather(
                    *(
                        play_one(h, g, u, answered=answered)
                        for g, u in zip(groups, tables, strict=True)
                    )
                )
                finished += list(zip(ids, groups, tables, strict=True))  # type: ignore[arg-type]
                round_no += 1
                print(f"round {round_no}: {len(finished)} games done, {bot.kills} kills")
        except BaseException:
            stop.set()
            with contextlib.suppress(BaseException):
                await killing
            bot.close()
            raise
        finally:
            stop.set()
            await killing
        # Let the last deliveries land, then compare every game with an uninterrupted run.
        await asyncio.sleep(1.5)
        for game_id, group, users in finished:  # type: ignore[misc]
            record = await h.record(game_id)
            assert record is not None and record.seed is not None and record.engine is not None
            names = {u.id: u.first_name for u in users}
            try:
                check_against_replay(
                    h, record.engine, record.seed, [u.id for u in users], names, group
                )
            except AssertionError as err:
                moves = list(zip(record.moves, record.move_s, strict=False))
                raise AssertionError(f"{err}\nmoves (code, s): {moves}") from None
        # Issue 19: every finished game is kept, replays, and counted exactly once.
        history = HistoryStore(h.store.redis, prefix)
        for game_id, group, users in finished:  # type: ignore[misc]
            # A kill while a process held the finished game's deadline (claimed, to count
            # it) leaves it to fire again after the claim's lease: wait that long too.
            waited_until = time.monotonic() + DEADLINE_LEASE_MS / 1000 + 20
            while time.monotonic() < waited_until:
                armed = await deadline_of(h.store, game_id)
                if armed is None and await history.archive(game_id) is not None:
                    break
                await asyncio.sleep(0.02)
            archive = await history.archive(game_id)
            assert archive is not None, f"game {game_id} was not kept"
            assert replay_record(archive).game.winner == archive["winner"]
            for u in users:
                assert (await history.person_stats(u.id))["played"] == 1, u
            board = await history.board(group_scope(group), False, 10)
            assert sorted(r.member for r in board) == sorted(str(u.id) for u in users)
            assert all(r.games == 1 for r in board)
        assert bot.kills >= KILLS_WANTED
        # Killed at any point, the bot logs no ERROR line and no traceback when it starts
        # again and finishes what the killed one left.
        assert not error_lines(tmp_path / "bot.log"), error_lines(tmp_path / "bot.log")[:5]
        # What a game still has queued goes out (an answered prompt's close waits for a
        # second with room to spare, and the sweeper retries it), then no keyboard is left.
        for game_id, _, _ in finished:  # type: ignore[misc]
            await h.delivered(game_id, timeout=30)
        unconfirmed = unconfirmed_sends(tmp_path / "bot.log")
        copies, pressed = await close_copies(h, finished, unconfirmed)  # type: ignore[arg-type]
        print(
            f"\nkill -9: {bot.kills} kills over {len(finished)} games, all equal to their"
            f" replay; {sum(unconfirmed.values())} sends said unconfirmed, {copies} copies"
            f" of a message with buttons sent again, {pressed} with buttons left, each closed"
            " by one press"
        )
        bot.close()
        await h.store.redis.aclose()
