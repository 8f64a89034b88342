"""Soak: many tables playing at human pace for a long while on a Redis Cluster (3 masters,
3 replicas) across two bot processes, with one master failover and one bot kill -9 in
the middle. The bots' REDIS_URL names every node; the killed bot starts again with the
killed master (still down) named first.

The cluster comes from tests/redis_server.py (`failover_cluster`, its own redis-servers),
the bots are tests/resilience/bot_process.py (the webhook app, each its own process, one
key prefix, Telegram's limits: 20 messages a minute per group, 30 a second for the bot),
the simulated Bot API runs in this process (tests/telegram_sim, answering 429 past 20 a
minute per group as Telegram does). Each of `--games` tables is a group of 3 to 6 players
who play game after game: every player presses their decision (tests/resilience/
test_kill9.py's policy, so each game can be replayed) a random `--pace` seconds after
its prompt shows, and an update is posted as Telegram does, again until it gets a 200
(through the other bot when one does not answer). At 40% of `--minutes` the master that
holds a live game's record is killed with SIGKILL and its replica takes over; at 60% one
bot is killed with SIGKILL and started again. After `--minutes` no new game starts and
the games in progress play to their end (`--grace` minutes at most).

It prints a line a minute (games finished, presses, their p99 in that minute, the
masters' used_memory, each bot's RSS), then: games finished (and equal to an
uninterrupted replay of their decisions), group lines lost (events of a finished game
never shown in its group), prompts with live buttons shown twice, press latency (first
post to the 200) p50/p99 before the failover, from it to 30 s after the bot's restart,
and after that, Redis memory and bot RSS at start and end.

Run: `python bench/soak.py [--minutes 30] [--games 100] [--pace 2,8]`.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import random
import statistics
import sys
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import redis

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("PTB_TIMEDELTA", "1")

from tests.redis_server import FailoverCluster, failover_cluster  # noqa: E402
from tests.resilience.test_kill9 import BotProcess, policy  # noqa: E402
from tests.telegram_sim.harness import (  # noqa: E402
    SECRET,
    WEBHOOK_PATH,
    Harness,
    TgUser,
    free_port,
    serve,
)
from tests.telegram_sim.server import TelegramSim, build_sim_app  # noqa: E402
from tgbot.config import DEFAULT_LOCALES, Config  # noqa: E402
from tgbot.contract import callbacks  # noqa: E402
from tgbot.engine import DecisionKind, Game, game_to_dict  # noqa: E402
from tgbot.engine.events import ResponsePassed  # noqa: E402
from tgbot.rendering.i18n import Catalogs  # noqa: E402
from tgbot.rendering.texts import describe  # noqa: E402
from tgbot.service.records import GameRecord  # noqa: E402

CATALOGS = Catalogs(DEFAULT_LOCALES)
GROUP_PER_MINUTE = 20  # Telegram's limit for a group, edits counted
BOT_PER_SECOND = 30
PROMPT_WAIT_S = 600.0  # a table waiting longer than this for its prompt is counted stuck
SETTLE_S = 30.0  # after the bot's restart, latencies count as "after" from this much later


@dataclass
class Figures:
    """What the tables saw."""

    presses: list[tuple[float, float]] = field(default_factory=list)  # (sent at, latency s)
    statuses: Counter[str] = field(default_factory=Counter)
    finished: int = 0
    equal: int = 0
    lost_lines: int = 0
    lost_samples: list[str] = field(default_factory=list)
    stuck: int = 0
    undelivered: int = 0  # finished games whose outbox was not empty PROMPT_WAIT_S later
    events: dict[str, float] = field(default_factory=dict)


class Soak:
    """The two bots, the sim, the cluster, and the tables' shared bookkeeping."""

    def __init__(
        self,
        h: Harness,
        urls: list[str],
        bots: list[BotProcess],
        cluster: FailoverCluster,
        pace: tuple[float, float],
    ) -> None:
        self.h, self.urls, self.bots, self.cluster, self.pace = h, urls, bots, cluster, pace
        self.figures = Figures()
        self.started = time.monotonic()
        self.stop_new_games = False
        self.live: set[str] = set()  # games in progress
        self.killed_master: int | None = None

    async def post(self, update: dict[str, object], first: int) -> float:
        """Post an update until a bot answers 200, as Telegram does (the other bot when
        one is down); return the seconds from the first post to the 200."""
        sent = time.monotonic()
        for attempt in range(100_000):
            url = self.urls[(first + attempt) % len(self.urls)]
            try:
                response = await self.h.post(update, url=url)  # type: ignore[arg-type]
                self.figures.statuses[str(response.status_code)] += 1
                if response.status_code == 200:
                    return time.monotonic() - sent
            except httpx.HTTPError as err:
                self.figures.statuses[type(err).__name__] += 1
            await asyncio.sleep(min(2.0, 0.05 * 2 ** min(attempt, 6)))
        raise RuntimeError("an update was never accepted")

    async def prompt(self, chat: int, prefix: str) -> int | None:
        """The message carrying a decision's buttons, once it shows (None: never did)."""
        deadline = time.monotonic() + PROMPT_WAIT_S
        while time.monotonic() < deadline:
            for message in reversed(self.h.sim.messages(chat)):
                if any(b.get("callback_data", "").startswith(prefix) for b in message.buttons()):
                    return message.message_id
            await asyncio.sleep(0.1)
        return None

    async def table(self, n: int) -> None:
        """One group playing game after game until the soak says stop."""
        h, rng = self.h, random.Random(n)
        users = [TgUser(700_000 + n * 10 + j, f"S{n}{j}") for j in range(3 + n % 4)]
        group = -(7_000_000 + n)
        for u in users:
            await self.post(h.message_update(u, u.id, "/start"), n)
        last_game = None
        while not self.stop_new_games:
            await asyncio.sleep(rng.uniform(*self.pace))
            shown_from = len(h.sim.messages(group))  # the lobby's message is the game's
            await self.post(h.message_update(users[0], group, "/newgame"), n)
            record = None
            for _ in range(600):
                record = await h.record_of_chat(group)
                if record is not None and record.id != last_game and record.status == "lobby":
                    break
                await asyncio.sleep(0.1)
            else:
                self.figures.stuck += 1
                return
            assert record is not None
            game_id = last_game = record.id
            self.live.add(game_id)
            for u in users[1:]:
                await asyncio.sleep(rng.uniform(*self.pace) / 4)
                await self.post(h.press_update(u, group, 0, f"{game_id}.0.J"), n)
            await self.post(h.press_update(users[0], group, 0, f"{game_id}.0.S"), n)
            if not await self.play(n, game_id, group, users, rng):
                self.figures.stuck += 1
                return
            self.live.discard(game_id)
            try:  # the players read the end of the game before another starts
                await h.delivered(game_id, timeout=PROMPT_WAIT_S)
            except AssertionError:
                self.figures.undelivered += 1
            self.check(game_id, await h.record(game_id), group, users, shown_from)

    async def play(
        self, n: int, game_id: str, group: int, users: list[TgUser], rng: random.Random
    ) -> bool:
        """Press by the policy, at human pace, until the game is over (False: stuck)."""
        h = self.h
        while True:
            record = await h.record(game_id)
            if record is None:
                return False
            if record.status == "over":
                return True
            if record.status != "playing":
                await asyncio.sleep(0.2)
                continue
            game = record.game()
            player = game.awaiting().players[0]
            seats = [p.id for p in game.players]
            at_table = game.awaiting().kind is DecisionKind.RESPONSE and record.answers == "table"
            chat = group if at_table else player
            message_id = await self.prompt(chat, f"{game_id}.{record.context}.")
            if message_id is None:
                return False
            await asyncio.sleep(rng.uniform(*self.pace))
            now = await h.record(game_id)
            if now is None or now.rev != record.rev:  # a deadline moved it meanwhile
                continue
            code = callbacks.encode_decision(policy(game, player), seats)
            data = callbacks.pack(game_id, record.context, code)
            user = next(u for u in users if u.id == player)
            sent = time.monotonic()
            latency = await self.post(h.press_update(user, chat, message_id, data), n)
            self.figures.presses.append((sent - self.started, latency))

    def check(
        self,
        game_id: str,
        record: GameRecord | None,
        group: int,
        users: list[TgUser],
        shown_from: int,
    ) -> None:
        """Count a finished game, whether it equals an uninterrupted run of its decisions,
        and the group lines of that run its group never showed."""
        self.figures.finished += 1
        if record is None or record.seed is None or record.engine is None:
            return
        replay, events = Game.new([u.id for u in users], record.seed)
        while not replay.over:
            player = replay.awaiting().players[0]
            events += replay.apply(player, policy(replay, player))
        if game_to_dict(replay) == record.engine:
            self.figures.equal += 1
        t = CATALOGS.get("ka")
        names = {u.id: u.first_name for u in users}
        expected = Counter(
            line
            for e in events
            if e.recipient is None
            and not isinstance(e, ResponsePassed)
            and (line := describe(e, t, names))
        )
        shown = self.h.sim.messages(group)[shown_from:]
        delivered = Counter(line for m in shown for line in m.text.split("\n") if line)
        missing = expected - delivered
        self.figures.lost_lines += sum(missing.values())
        self.figures.lost_samples += list(missing)[: 5 - len(self.figures.lost_samples)]

    async def failover(self) -> None:
        """SIGKILL the master holding a live game's record; wait for its replica."""
        keys = self.h.store.keys
        port = self.cluster.master_of(keys.game(min(self.live) if self.live else "none"))
        self.figures.events["failover"] = time.monotonic() - self.started
        self.cluster.kill9(port)
        self.killed_master = port
        await asyncio.to_thread(self.cluster.wait_failed_over, port)
        took = time.monotonic() - self.started - self.figures.events["failover"]
        print(f"  master on port {port} killed; its replica took over in {took:.1f} s")

    async def bot_kill(self) -> None:
        """SIGKILL the second bot and start it again, its REDIS_URL naming the killed master
        first (that node is still down: the bot learns the cluster from the next one)."""
        self.figures.events["bot kill"] = time.monotonic() - self.started
        self.bots[1].kill9()
        if self.killed_master is not None:
            dead = f"redis://127.0.0.1:{self.killed_master}"
            others = [n for n in self.cluster.seeds.split(",") if n != dead]
            self.bots[1].env = {**self.bots[1].env, "REDIS_URL": ",".join([dead, *others])}
        self.bots[1].start()
        await self.bots[1].ready(self.h.http)
        self.figures.events["bot back"] = time.monotonic() - self.started
        print(f"  bot 2 killed and back after {self.bot_back - self.bot_killed:.1f} s")

    @property
    def bot_killed(self) -> float:
        return self.figures.events["bot kill"]

    @property
    def bot_back(self) -> float:
        return self.figures.events["bot back"]


def used_memory(cluster: FailoverCluster) -> int:
    """Bytes used by the live masters (the data once, not its replicas' copies)."""
    total = 0
    for port in cluster.alive():
        node = redis.Redis(port=port)
        if node.info("replication").get("role") == "master":
            total += int(node.info("memory")["used_memory"])
    return total


def rss(bot: BotProcess) -> int:
    """A bot process's resident memory in bytes (Linux)."""
    assert bot.process is not None
    for line in Path(f"/proc/{bot.process.pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    return 0


def quantiles(latencies: list[float]) -> str:
    """p50 / p99 / max in ms, and how many."""
    if len(latencies) < 2:
        return f"{len(latencies)} presses"
    ordered = sorted(latencies)
    p99 = ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]
    return (
        f"p50 {1000 * statistics.median(ordered):.0f} ms, p99 {1000 * p99:.0f} ms, "
        f"max {1000 * ordered[-1]:.0f} ms ({len(ordered)} presses)"
    )


def mb(n: int) -> str:
    return f"{n / 1e6:.1f} MB"


async def run(args: argparse.Namespace) -> None:
    """Set everything up, play, disrupt, report."""
    pace = tuple(float(x) for x in args.pace.split(","))
    with failover_cluster() as cluster:
        sim = TelegramSim(group_flood_per_minute=GROUP_PER_MINUTE)
        sim_port, ports = free_port(), [free_port(), free_port()]
        prefix = f"soak{uuid.uuid4().hex[:6]}"
        env = {
            **os.environ,
            "REDIS_URL": cluster.seeds,
            "WEBHOOK_SECRET": SECRET,
            "TELEGRAM_API_URL": f"http://127.0.0.1:{sim_port}/bot",
            "REDIS_KEY_PREFIX": prefix,
            "GROUP_MESSAGES_PER_MINUTE": str(GROUP_PER_MINUTE),
            "MESSAGES_PER_SECOND": str(BOT_PER_SECOND),
            "BOT_LOG_LEVEL": "WARNING",
        }
        logs = Path(args.logs)
        logs.mkdir(parents=True, exist_ok=True)
        async with serve(build_sim_app(sim), sim_port), httpx.AsyncClient(timeout=60) as http:
            bots = [BotProcess(p, env, logs / f"bot{i + 1}.log") for i, p in enumerate(ports)]
            try:
                for bot in bots:
                    bot.start()
                for bot in bots:
                    await bot.ready(http)
                urls = [f"http://127.0.0.1:{p}{WEBHOOK_PATH}" for p in ports]
                config = Config(
                    bot_token="123456:TEST-token", redis_url=cluster.seeds, key_prefix=prefix
                )
                h = Harness(sim, urls[0], http, config)
                soak = Soak(h, urls, bots, cluster, (pace[0], pace[1]))
                tables = [asyncio.create_task(soak.table(n)) for n in range(args.games)]
                await asyncio.sleep(min(30.0, args.minutes * 6))
                memory_start, rss_start = used_memory(cluster), [rss(b) for b in bots]
                print(
                    f"start: Redis {mb(memory_start)}, bots {', '.join(mb(r) for r in rss_start)}"
                )
                end = soak.started + args.minutes * 60
                disruptions = [
                    (soak.started + args.minutes * 60 * 0.4, soak.failover),
                    (soak.started + args.minutes * 60 * 0.6, soak.bot_kill),
                ]
                next_line = soak.started + 60
                while time.monotonic() < end or not all(t.done() for t in tables):
                    if time.monotonic() >= end:
                        soak.stop_new_games = True
                    if time.monotonic() > end + args.grace * 60:
                        break
                    if disruptions and time.monotonic() >= disruptions[0][0]:
                        await disruptions.pop(0)[1]()
                    if time.monotonic() >= next_line:
                        next_line += 60
                        since = next_line - 120 - soak.started
                        minute = [lat for at, lat in soak.figures.presses if at > since]
                        print(
                            f"{(time.monotonic() - soak.started) / 60:4.1f} min: "
                            f"{soak.figures.finished} games finished, "
                            f"{len(soak.figures.presses)} presses, "
                            f"last minute {quantiles(minute)}; "
                            f"Redis {mb(used_memory(cluster))}, "
                            f"bots {', '.join(mb(rss(b)) for b in bots)}",
                            flush=True,
                        )
                    await asyncio.sleep(0.5)
                unfinished = sum(not t.done() for t in tables)
                failures = [t.exception() for t in tables if t.done()]
                for t in tables:
                    t.cancel()
                await asyncio.gather(*tables, return_exceptions=True)
                await asyncio.sleep(5)  # the last deliveries
                memory_end, rss_end = used_memory(cluster), [rss(b) for b in bots]
                report(soak, sim, memory_start, memory_end, rss_start, rss_end, unfinished)
                for err in [f for f in failures if f is not None][:3]:
                    print(f"a table failed: {type(err).__name__}: {err}")
                await h.store.redis.aclose()
            finally:  # a soak that fails leaves no bot behind
                for bot in bots:
                    if bot.process is not None and bot.process.poll() is None:
                        bot.kill9()


def duplicates_with_live_buttons(sim: TelegramSim) -> int:
    """Messages showing the same live buttons as another message of their chat."""
    extra = 0
    for chat in list(sim.chats):
        seen: Counter[frozenset[str]] = Counter()
        for message in sim.with_buttons(chat):
            data = frozenset(b.get("callback_data", "") for b in message.buttons())
            seen[data] += 1
        extra += sum(n - 1 for n in seen.values())
    return extra


def report(
    soak: Soak,
    sim: TelegramSim,
    memory_start: int,
    memory_end: int,
    rss_start: list[int],
    rss_end: list[int],
    unfinished: int,
) -> None:
    """The soak's figures."""
    f = soak.figures
    failover = f.events.get("failover", float("inf"))
    settled = f.events.get("bot back", failover) + SETTLE_S
    before = [lat for at, lat in f.presses if at < failover]
    during = [lat for at, lat in f.presses if failover <= at < settled]
    after = [lat for at, lat in f.presses if at >= settled]
    print(
        f"games finished: {f.finished} ({f.equal} equal to their replay); "
        f"unfinished at the end: {unfinished}; tables stuck: {f.stuck}; "
        f"finished games with messages still queued {PROMPT_WAIT_S:.0f} s later: {f.undelivered}"
    )
    print(
        f"group lines lost: {f.lost_lines}; duplicates with live buttons: "
        f"{duplicates_with_live_buttons(sim)}"
    )
    for line in f.lost_samples:
        print(f"  a line lost: {line}")
    print(f"webhook answers: {dict(f.statuses)}")
    print(f"press latency before the failover: {quantiles(before)}")
    print(
        f"press latency from the failover to {SETTLE_S:.0f} s after the bot's restart: "
        f"{quantiles(during)}"
    )
    print(f"press latency after: {quantiles(after)}")
    print(f"Redis used_memory (masters): start {mb(memory_start)}, end {mb(memory_end)}")
    print(
        "bot RSS: "
        + "; ".join(
            f"bot {i + 1} start {mb(a)}, end {mb(b)}" + (" (restarted)" if i == 1 else "")
            for i, (a, b) in enumerate(zip(rss_start, rss_end, strict=True))
        )
    )
    print("events (s from start): " + ", ".join(f"{k} {v:.0f}" for k, v in f.events.items()))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--minutes", type=float, default=30.0)
    parser.add_argument("--games", type=int, default=100, help="tables playing at once")
    parser.add_argument("--pace", default="2,8", help="seconds a player takes, from,to")
    parser.add_argument("--grace", type=float, default=10.0, help="minutes for the last games")
    parser.add_argument("--logs", default=".soak", help="folder for the bots' stderr")
    args = parser.parse_args()
    print(
        f"machine: {platform.machine()} cpus={os.cpu_count()} python "
        f"{platform.python_version()}, load {os.getloadavg()[0]:.2f}; {args.games} tables, "
        f"{args.minutes} min, pace {args.pace} s"
    )
    asyncio.run(run(args))


if __name__ == "__main__":
    main()
