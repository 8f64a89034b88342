"""Issue 37's crash target: two webhook processes, a kill -9 every 0.7-3 s, nothing lost.

Starts the simulated Bot API, a private redis-server (REDIS_URL when given; `--cluster`: a
private 3-master Redis Cluster, or REDIS_CLUSTER_URL) and TWO bot processes on two ports;
the players' updates go round robin to both (an update a dead process refused goes to the
next, as Telegram retries). `--rounds` times, 3 groups of 6 players play a whole game each
at once, pressing at a quick human pace (`--pace LOW HIGH` s before each press), while a
killer kill -9s one process (the two in turn) every uniform(0.7, 3) s and starts it again
(it first waits until the other one answers, so one always serves or is about to).

Once every game is over and delivered it counts, without asserting: kills, games finished,
games equal to an uninterrupted replay of their decisions, group lines lost and duplicated
(against that replay, as check_against_replay compares), turns whose group message never
showed its final state (no group message holds all of that turn's lines), messages showing
live buttons of a finished game (Play again aside), messages sent twice (and those copies
still showing buttons), and ERROR lines and tracebacks in both bots' logs. For each
message sent twice it prints the calls to its chat with the kills between them.
`--late SHARE SECONDS` answers that share of Bot API calls late (Telegram slow now and
then): a kill then falls more often between Telegram taking a send and the bot learning it.
Run: `python bench/kill9.py [--seed 1] [--rounds 1] [--cluster] [--pace 0.3 1.2]
[--logs DIR] [--no-kill] [--late 0.1 1.0]`.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import platform
import random
import sys
import tempfile
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("PTB_TIMEDELTA", "1")

from tests.redis_server import redis_cluster_url, redis_url
from tests.resilience.test_kill9 import (
    CATALOGS,
    BotProcess,
    error_lines,
    game_buttons,
    play_one,
    policy,
)
from tests.telegram_sim.harness import SECRET, WEBHOOK_PATH, Harness, TgUser, free_port, serve
from tests.telegram_sim.server import SimMessage, TelegramSim, build_sim_app
from tgbot.config import Config
from tgbot.engine import Game, game_to_dict
from tgbot.engine.events import Event, GameEnded, ResponsePassed, TurnStarted
from tgbot.rendering.texts import describe

KILL_EVERY = (0.7, 3.0)
GROUPS = 3
PLAYERS = 6


def replay_events(ids: list[int], seed: int) -> tuple[Game, list[Event]]:
    """An uninterrupted run of the policy's decisions: the game and its events."""
    replay, events = Game.new(ids, seed)
    while not replay.over:
        player = replay.awaiting().players[0]
        events += replay.apply(player, policy(replay, player))
    return replay, events


def turns_of(events: list[Event], names: dict[int, str]) -> list[list[str]]:
    """The group lines of each turn (a TurnStarted begins one; the game's end is a message
    of its own), as check_against_replay renders them."""
    t = CATALOGS.get("ka")
    turns: list[list[str]] = [[]]
    for e in events:
        if isinstance(e, TurnStarted | GameEnded):
            turns.append([])
        if e.recipient is None and not isinstance(e, ResponsePassed):
            line = describe(e, t, names)
            if line:
                turns[-1].append(line)
    return [lines for lines in turns if lines]


class Figures:
    """What one run counts."""

    def __init__(self) -> None:
        self.finished = 0
        self.equal = 0
        self.lost: Counter[str] = Counter()
        self.duplicated: Counter[str] = Counter()
        self.turns = 0
        self.unfinished_turns: list[tuple[int, int, list[str], list[str]]] = []


def count_game(
    figures: Figures, sim: TelegramSim, engine: dict, seed: int, users: list[TgUser], group: int
) -> None:
    """Compare one finished game with its replay: equal or not, lines lost and duplicated,
    turns whose message never showed all their lines."""
    figures.finished += 1
    names = {u.id: u.first_name for u in users}
    replay, events = replay_events([u.id for u in users], seed)
    figures.equal += game_to_dict(replay) == engine
    turns = turns_of(events, names)
    expected = Counter(line for lines in turns for line in lines)
    shown = sim.messages(group)
    delivered = Counter(line for m in shown for line in m.text.split("\n") if line)
    figures.lost += expected - delivered
    figures.duplicated += Counter(
        {line: n - expected[line] for line, n in delivered.items() if n > expected[line] > 0}
    )
    texts = [Counter(line for line in m.text.split("\n") if line) for m in shown]
    for no, lines in enumerate(turns, 1):
        figures.turns += 1
        wanted = Counter(lines)
        if not any(not (wanted - text) for text in texts):
            holders = [
                f"{m.message_id}: {sum((wanted & text).values())}/{len(lines)}"
                for m, text in zip(shown, texts, strict=True)
                if wanted & text
            ]
            figures.unfinished_turns.append((group, no, lines, holders))


def trace_copies(
    sim: TelegramSim, copies: list[SimMessage], killed_at: list[tuple[float, int]], began: float
) -> None:
    """Print the calls to a chat holding copies of one message, with the kills between
    them: where in a send a kill fell."""
    chat = copies[0].chat_id
    print(f"  copies in chat {chat}: messages {[m.message_id for m in copies]}")
    calls = sim.calls_to(chat)
    first = min(
        (c.at for c in calls if c.method == "sendMessage" and c.status == 200), default=began
    )
    last = max((c.at for c in calls), default=began)
    events: list[tuple[float, str]] = [(t, f"KILL bot{b}") for t, b in killed_at]
    for c in calls:
        text = str(c.params.get("text", ""))[:50].replace("\n", " / ")
        kb = "kb" if c.params.get("reply_markup") not in (None, "", "null") else "--"
        mid = c.params.get("message_id", "")
        events.append((c.at, f"{c.method} {c.status} {kb} id={mid} {text!r}"))
    wall = time.time() - time.monotonic()
    for t, what in sorted(events):
        if first - 5 <= t <= last + 1:
            clock = time.strftime("%H:%M:%S", time.gmtime(t + wall)) + f".{(t + wall) % 1:.3f}"[2:]
            print(f"    {t - began:8.3f} {clock} {what}")


@contextlib.contextmanager
def server(cluster: bool) -> Iterator[str]:
    """The Redis to use: a private server (or REDIS_URL), or a private cluster."""
    with redis_cluster_url() if cluster else redis_url() as url:
        yield url


async def run(
    seed: int,
    rounds: int,
    cluster: bool,
    pace: tuple[float, float],
    logs: Path,
    kill: bool,
    late: tuple[float, float] = (0.0, 0.0),
) -> None:
    rng = random.Random(seed)
    sim = TelegramSim()
    if late[0]:
        sim.slow_share(late[0], late[1], seed=seed)
    with server(cluster) as url:
        prefix = f"k9{uuid.uuid4().hex[:8]}"
        sim_port, ports = free_port(), [free_port(), free_port()]
        env = {
            **os.environ,
            "REDIS_URL": url,
            "WEBHOOK_SECRET": SECRET,
            "TELEGRAM_API_URL": f"http://127.0.0.1:{sim_port}/bot",
            "REDIS_KEY_PREFIX": prefix,
        }
        config = Config(bot_token="123456:TEST-token", redis_url=url, key_prefix=prefix)
        async with serve(build_sim_app(sim), sim_port), httpx.AsyncClient(timeout=10) as http:
            bots = [BotProcess(p, env, logs / f"bot{i + 1}.log") for i, p in enumerate(ports)]
            for bot in bots:
                bot.start()
            for bot in bots:
                await bot.ready(http)
            h = Harness(sim, f"http://127.0.0.1:{ports[0]}{WEBHOOK_PATH}", http, config)
            h.urls = [f"http://127.0.0.1:{p}{WEBHOOK_PATH}" for p in ports]
            h.spread = True
            stop = asyncio.Event()
            killed_at: list[tuple[float, int]] = []

            async def killer() -> None:
                turn = 0
                while kill and not stop.is_set():
                    with contextlib.suppress(TimeoutError):
                        async with asyncio.timeout(rng.uniform(*KILL_EVERY)):
                            await stop.wait()
                    if stop.is_set():
                        break
                    victim, other = bots[turn % 2], bots[1 - turn % 2]
                    await other.ready(http)
                    victim.kill9()
                    killed_at.append((time.monotonic(), bots.index(victim) + 1))
                    victim.start()
                    turn += 1

            began = time.monotonic()
            killing = asyncio.create_task(killer())
            played: list[tuple[str, int, list[TgUser]]] = []
            try:
                for r in range(rounds):
                    chats = [-(970_000 + seed * 100 + r * 10 + g) for g in range(GROUPS)]
                    tables = [
                        [
                            TgUser(600_000 + seed * 1000 + r * 100 + g * 10 + i, f"R{r}G{g}P{i}")
                            for i in range(PLAYERS)
                        ]
                        for g in range(GROUPS)
                    ]
                    ids = await asyncio.gather(
                        *(
                            play_one(h, chat, users, pace=pace)
                            for chat, users in zip(chats, tables, strict=True)
                        )
                    )
                    played += list(zip(ids, chats, tables, strict=True))
                    kills = sum(b.kills for b in bots)
                    print(f"round {r + 1}: {len(played)} games over, {kills} kills so far")
            finally:
                stop.set()
                await killing
            elapsed = time.monotonic() - began
            for bot in bots:
                await bot.ready(http)
            for game_id, _, _ in played:
                await h.delivered(game_id, 120)
            await asyncio.sleep(2)  # the last answers land
            figures = Figures()
            recorded: set[tuple[int, int]] = set()
            for game_id, group, users in played:
                record = await h.record(game_id)
                if record is None or record.seed is None or record.engine is None:
                    continue
                count_game(figures, sim, record.engine, record.seed, users, group)
                refs = await h.store.redis.hgetall(h.store.keys.messages(game_id))
                for ref, mid in refs.items():
                    name = str(ref)
                    where = int(name.split(":")[1]) if name.startswith("prompt:") else group
                    recorded.add((where, int(mid)))
            over = {game_id for game_id, _, _ in played}
            live = [m for chat in sim.chats for m in sim.messages(chat) if game_buttons(m) & over]
            copies = sim.copies()
            sent_twice = sum(len(g) - 1 for g in copies)
            live_copies = sum(
                1
                for g in copies
                for m in g
                if m.keyboard and (m.chat_id, m.message_id) not in recorded
            )
            for group_of_copies in copies:
                trace_copies(sim, group_of_copies, killed_at, began)
            copied = {(m.chat_id, m.message_id) for g in copies for m in g}
            for m in live:
                if (m.chat_id, m.message_id) not in copied:
                    print(f"  live, no copy: chat {m.chat_id} message {m.message_id}")
                    trace_copies(sim, [m], killed_at, began)
            errors = [line for i in (1, 2) for line in error_lines(logs / f"bot{i}.log")]
            unconfirmed = sum(
                (logs / f"bot{i}.log")
                .read_text(errors="replace")
                .count("may have reached Telegram unanswered")
                for i in (1, 2)
            )
            kills = sum(b.kills for b in bots)
            where = "a 3-master Redis Cluster" if cluster else "one redis-server"
            print(
                f"seed {seed}: {rounds} round(s) of {GROUPS} groups x {PLAYERS} players, two"
                f" webhook processes on {where}, pace {pace[0]}-{pace[1]} s, {elapsed:.0f} s"
            )
            if late[0]:
                print(f"answers late: {late[0]:.0%} of calls, {late[1]} s ({sim.slow_calls})")
            print(f"kills: {kills} ({bots[0].kills} + {bots[1].kills})")
            print(f"games finished: {figures.finished} of {len(played)}")
            print(f"games equal to their replay: {figures.equal}")
            print(f"group lines lost: {sum(figures.lost.values())}")
            for line, n in list(figures.lost.items())[:5]:
                print(f"  {n} x {line[:70]!r}")
            print(f"group lines duplicated: {sum(figures.duplicated.values())}")
            for line, n in list(figures.duplicated.items())[:5]:
                print(f"  {n} x {line[:70]!r}")
            print(
                f"turns whose message never showed its final state: "
                f"{len(figures.unfinished_turns)} of {figures.turns}"
            )
            for group, no, lines, holders in figures.unfinished_turns[:8]:
                print(f"  group {group} turn {no} ({len(lines)} lines), shown by {holders}")
            print(f"messages with live buttons on finished games: {len(live)}")
            print(f"  sends the bots said may have reached Telegram unanswered: {unconfirmed}")
            for m in live[:5]:
                print(f"  chat {m.chat_id} message {m.message_id}: {m.text[:60]!r}")
            print(
                f"messages sent twice: {sent_twice} (copies still showing buttons: {live_copies})"
            )
            print(f"copies found by id and deleted: {len(sim.deleted)}")
            print(f"ERROR lines and tracebacks in the bots' logs: {len(errors)} (logs in {logs})")
            for line in errors[:5]:
                print(f"  {line[:160]}")
            for bot in bots:
                bot.close()
            await h.store.redis.aclose()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=1, help="the killer's timing")
    parser.add_argument("--rounds", type=int, default=1, help="games per group, one after another")
    parser.add_argument("--cluster", action="store_true", help="a 3-master Redis Cluster")
    parser.add_argument("--pace", type=float, nargs=2, default=(0.3, 1.2), help="s before a press")
    parser.add_argument("--logs", type=Path, default=None, help="keep the bots' logs here")
    parser.add_argument("--no-kill", action="store_true", help="a baseline: nothing killed")
    parser.add_argument(
        "--late",
        type=float,
        nargs=2,
        default=(0.0, 0.0),
        metavar=("SHARE", "SECONDS"),
        help="answer this share of Bot API calls this late (taken at once): a wider window"
        " between Telegram taking a send and the bot learning its id",
    )
    args = parser.parse_args()
    print(f"machine: {platform.machine()} cpus={os.cpu_count()} python {platform.python_version()}")
    if args.logs is not None:
        args.logs.mkdir(parents=True, exist_ok=True)
        asyncio.run(
            run(
                args.seed,
                args.rounds,
                args.cluster,
                tuple(args.pace),
                args.logs,
                not args.no_kill,
                tuple(args.late),
            )
        )
        return
    with tempfile.TemporaryDirectory(prefix="kill9-") as folder:
        asyncio.run(
            run(
                args.seed,
                args.rounds,
                args.cluster,
                tuple(args.pace),
                Path(folder),
                not args.no_kill,
                tuple(args.late),
            )
        )


if __name__ == "__main__":
    main()
