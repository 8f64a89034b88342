"""The Mini App's live targets (issues 29 and 39): a step reaching 200 open pages across
two bot processes, `GET /app/api/view` at a steady rate, what idle pages cost Redis, and
the webhook beside 1,000 abusive event streams.

Processes: a private redis-server, the simulated Bot API (bench/sim_server.py), two bots
(tests/resilience/bot_process.py: the real webhook app under uvicorn, one key prefix) and
this load generator (httpx, one event loop). `--games` games of 3 players are opened and
started through the webhook as Telegram would post the updates.

(a) Fan-out: `--pages` pages open the event stream (`GET /app/api/events`), spread evenly
over the games and alternately over the two processes (per game: its 3 players and
spectators). For `--seconds` s, a step is sent `--steps-per-second` times a second through
`POST /app/api/decide` (the awaited player's decision, by the policy of bench/webhook.py),
alternately to either process, each game at most one step at a time. For every step and
every page of its game: the delay from the decide's answer (200) to the page's event of
that revision, and from the decide's request to it (the event may come before the answer:
the commit publishes it). An event not seen `GRACE_S` after the phase counts as missed.
Target: p99 <= 1 s.

(b) Views: `GET /app/api/view?game=<id>` for a random page's user (players see `view_of`,
spectators the public view) at `--view-rate` a second for `--view-seconds` s, open loop
(each latency counts from its scheduled time, so the generator's own lag counts against
the bot), to one process (`--view-processes 2`: alternately to both). Target: p99 <= 50 ms
at 100/s.

(c) Idle pages (issue 39), before (a)'s steps: the bots' Redis commands (INFO
commandstats, less this generator's) over `--idle-seconds` s with no page open, then as
long with the `--pages` pages open and no step: the difference per page and second.
Target: about 0 (2 before issue 39, when the listener failed twice a second on Redis 7).

(d) Streams abused (issue 39, `--abuse-streams N`, off by default), after (b): to one
process, webhook updates (bench/webhook.py's tables: lobbies, then each game's next
press) at `--webhook-rate` a second for `--abuse-seconds` s, open loop, alone; then the
same again while N event streams are attempted by `--abuse-accounts` accounts (a ticket,
then the stream, held until the bot ends it), spread over `--abuse-spread` s (0: all at
once). The updates' latency, the attempts' outcomes, the process's RSS and file
descriptors (sampled every 0.2 s) and its log's Traceback/ERROR/WARNING lines. Target:
updates p99 <= 100 ms, no traceback, RSS bounded. The bots run tests/resilience/
bot_process.py, whose throttle is off unless `--throttle N` (the bot's default: 30 a
person in 10 s): without it every attempt reaches the stream limits. The attackers run in
a process of their own (in this one their connections would hold the loop that times the
updates). `--split`: the first bot serves only the updates (`SERVE=webhook`), the second
only the Mini App (`SERVE=app`), and the streams go to the second, as docker-compose.yml
deploys it.

The Redis server is `--redis-server`, else REDIS_URL, else the tests' (`/usr/bin/
redis-server`, Debian's Redis 7, when it is there); its version is printed.

Run: `python bench/webapp.py [--pages 200 --games 20 --seconds 30 --view-rate 100]
[--abuse-streams 1000]`. The ports are `--base-port` (the sim) and the next two (the bots).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import multiprocessing
import os
import platform
import random
import socket
import statistics
import sys
import tempfile
import time
import uuid
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import httpx
from redis.asyncio import Redis

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.webhook import (  # noqa: E402
    HEADERS,
    CountingRedis,
    Table,
    bot_commands,
    command,
    load_average,
    percentile,
    policy,
    press,
    rss_mb,
    spawn,
    stop,
    wait_up,
)
from tests.redis_server import binary_for_tests, redis_url  # noqa: E402
from tests.telegram_sim.harness import SECRET  # noqa: E402
from tgbot.config import DEFAULT_PERSON_UPDATES_PER_10S  # noqa: E402
from tgbot.contract import callbacks  # noqa: E402
from tgbot.service.records import GameRecord  # noqa: E402
from tgbot.storage.clients import connect  # noqa: E402
from tgbot.storage.keys import Keys  # noqa: E402
from tgbot.storage.store import Store  # noqa: E402
from tgbot.webapp.auth import sign  # noqa: E402

TOKEN = "123456:TEST-token"  # bot_process's
GRACE_S = 3.0  # after the fan-out phase, how long a late event may still come
SETTLE_S = 120.0  # at most this long, before (b), for the bots' deliveries to drain
PLAYERS = 3
IDLE_SETTLE_S = 2.0  # (c): after the pages listen, before the window (their first notes)
ABUSE_ACCOUNTS_FROM = 800_000  # (d)'s accounts' user ids
ABUSE_TABLES_FROM = 50  # (d)'s webhook tables (bench/webhook.py's Table numbers)
VIEW_CLIENTS, VIEW_CONNECTIONS = 25, 8  # (b)'s HTTP clients, and connections each


def init_data(user_id: int) -> str:
    """What Telegram would give the page of `user_id`, signed with the bot's token."""
    user = json.dumps({"id": user_id, "first_name": f"U{user_id}", "language_code": "ka"})
    return sign({"user": user, "auth_date": str(int(time.time()))}, TOKEN)


@dataclass
class Page:
    """One open page: its game, user, process, and when each revision first reached it."""

    game: str
    user: int
    base: str
    seen: dict[int, float] = field(default_factory=dict)
    listening: asyncio.Event = field(default_factory=asyncio.Event)
    failed: str = ""

    def first_at_least(self, revision: int) -> float | None:
        """When the page first heard of `revision` or a later one."""
        times = [at for rev, at in self.seen.items() if rev >= revision]
        return min(times) if times else None

    async def listen(self, http: httpx.AsyncClient, after: int) -> None:
        """Read the event stream until cancelled, noting each revision's arrival."""
        try:
            # A single-use ticket first (the stream's URL carries no initData). Tried
            # twice: a pooled connection idle past uvicorn's keep-alive (5 s, as after
            # (c)'s first window) may be closed by the bot just as it is reused.
            for tries_left in (1, 0):
                try:
                    got = await http.post(
                        f"{self.base}/app/api/ticket",
                        params={"game": self.game},
                        headers={"Authorization": "tma " + init_data(self.user)},
                    )
                    break
                except httpx.RemoteProtocolError:
                    if not tries_left:
                        raise
            if got.status_code != 200:
                self.failed = f"ticket status {got.status_code}"
                self.listening.set()
                return
            params = {"ticket": got.json()["ticket"], "after": str(after)}
            async with http.stream(
                "GET", f"{self.base}/app/api/events", params=params, timeout=None
            ) as stream:
                if stream.status_code != 200:
                    self.failed = f"status {stream.status_code}"
                    self.listening.set()
                    return
                async for line in stream.aiter_lines():
                    if line == ": listening":
                        self.listening.set()
                    elif line.startswith("data: "):
                        at = time.perf_counter()
                        revision = int(json.loads(line[6:])["revision"])
                        self.seen.setdefault(revision, at)
        except httpx.HTTPError as err:
            self.failed = type(err).__name__
            self.listening.set()


@dataclass
class Step:
    """One decision sent: its game, the revision it made, when it was sent and answered."""

    game: str
    revision: int
    sent_at: float
    answered_at: float


async def record_of(redis: Redis, keys: Keys, game_id: str) -> GameRecord | None:
    """A game's record, straight from Redis."""
    raw = await redis.get(keys.game(game_id))
    return None if raw is None else GameRecord.from_dict(json.loads(raw))


async def open_games(
    http: httpx.AsyncClient, bots: list[str], redis: Redis, keys: Keys, n: int
) -> dict[str, list[int]]:
    """Open and start `n` games of PLAYERS people through the webhook; their players."""
    games: dict[str, list[int]] = {}
    for g in range(n):
        url = bots[g % len(bots)] + "/telegram"
        group = -(3_000_000 + g)
        ids = [400_000 + g * 10 + i for i in range(PLAYERS)]

        async def post(update: dict[str, Any], url: str = url) -> None:
            response = await http.post(url, json=update, headers=HEADERS)
            assert response.status_code == 200, response.text

        for uid in ids:
            await post(command(uid, uid, "/start"))
        await post(command(ids[0], group, "/newgame"))
        game_id = (await redis.get(keys.chat_game(group))).decode()
        for uid in ids[1:]:
            await post(press(uid, group, f"{game_id}.0.J"))
        await post(press(ids[0], group, f"{game_id}.0.S"))
        record = await record_of(redis, keys, game_id)
        assert record is not None and record.status == "playing", "a game did not start"
        games[game_id] = ids
    return games


async def step_once(
    http: httpx.AsyncClient, base: str, redis: Redis, keys: Keys, game_id: str
) -> Step | str:
    """Send the awaited player's decision through the Mini App; the step, or why not."""
    record = await record_of(redis, keys, game_id)
    if record is None or record.status != "playing":
        return "over"
    game = record.game()
    player = game.awaiting().players[0]
    code = callbacks.encode_decision(policy(game, player), [p.id for p in game.players])
    body = {
        "game": game_id,
        "revision": record.rev,
        "decision": code,
        "request_id": uuid.uuid4().hex,
    }
    headers = {"Authorization": "tma " + init_data(player)}
    sent_at = time.perf_counter()
    response = await http.post(f"{base}/app/api/decide", json=body, headers=headers)
    answered_at = time.perf_counter()
    if response.status_code != 200:
        return f"{response.status_code} {response.json().get('error', '')}"[:60]
    return Step(game_id, int(response.json()["revision"]), sent_at, answered_at)


def summary(name: str, seconds: list[float]) -> None:
    """Print p50/p99/max (ms) of some delays."""
    if not seconds:
        print(f"  {name:34s} none")
        return
    ordered = sorted(seconds)
    print(
        f"  {name:34s} p50 {statistics.median(ordered) * 1000:7.1f} ms  "
        f"p99 {percentile(ordered, 0.99) * 1000:7.1f} ms  max {ordered[-1] * 1000:7.1f} ms  "
        f"min {ordered[0] * 1000:7.1f} ms  ({len(ordered)})"
    )


async def idle_commands(redis: CountingRedis, seconds: float) -> Counter[str]:
    """The bots' Redis commands, by name, over `seconds` s in which this generator sends
    nothing but the two INFOs (left out)."""
    before = await bot_commands(redis)
    await asyncio.sleep(seconds)
    ran = await bot_commands(redis)
    ran.subtract(before)
    ran.pop("info", None)
    return +ran


async def fan_out(
    args: argparse.Namespace,
    http: httpx.AsyncClient,
    bots: list[str],
    redis: CountingRedis,
    keys: Keys,
    games: dict[str, list[int]],
    idle_base: Counter[str] | None,
) -> None:
    """Phase (a): pages listen, steps are sent, each page's delay is measured; with
    `idle_base` (the bots' commands in an idle window with no page open), phase (c)
    first: the same window with the pages open, before any step."""
    game_ids = list(games)
    pages = []
    for i in range(args.pages):
        game_id = game_ids[i % len(game_ids)]
        seat = i // len(game_ids)  # each game's first pages are its players', then spectators
        user = games[game_id][seat] if seat < PLAYERS else 900_000 + i
        pages.append(Page(game_id, user, bots[i % len(bots)]))
    revisions = {g: (await record_of(redis, keys, g)).rev for g in game_ids}  # type: ignore[union-attr]
    tasks = [asyncio.create_task(p.listen(http, revisions[p.game])) for p in pages]
    opened = time.perf_counter()
    await asyncio.gather(*(p.listening.wait() for p in pages))
    failed = [p.failed for p in pages if p.failed]
    print(
        f"(a) {len(pages)} pages listening on {len(game_ids)} games, "
        f"{sum(1 for p in pages if p.base == bots[0])} / "
        f"{sum(1 for p in pages if p.base == bots[1])} on the two processes, "
        f"in {time.perf_counter() - opened:.1f} s; failed {len(failed)} {failed[:3]}"
    )
    if idle_base is not None:
        await asyncio.sleep(IDLE_SETTLE_S)
        with_pages = await idle_commands(redis, args.idle_seconds)
        per_s = [sum(c.values()) / args.idle_seconds for c in (idle_base, with_pages)]
        per_page = (per_s[1] - per_s[0]) / len(pages)
        extra = with_pages.copy()
        extra.subtract(idle_base)
        print(
            f"(c) idle, no step, {args.idle_seconds:.0f} s each: the bots' Redis commands "
            f"{per_s[0]:.2f}/s with no page open, {per_s[1]:.2f}/s with {len(pages)} open: "
            f"{per_page:.3f} commands per idle page per second"
        )
        print(f"    by command, with pages: {dict(with_pages.most_common())}")
        print(f"    by command, less no page: {dict((+extra).most_common())}")
    steps: list[Step] = []
    refused: dict[str, int] = {}
    busy: set[str] = set()
    over: set[str] = set()

    async def one(game_id: str, base: str) -> None:
        try:
            got = await step_once(http, base, redis, keys, game_id)
        finally:
            busy.discard(game_id)
        if isinstance(got, Step):
            steps.append(got)
        elif got == "over":
            over.add(game_id)
        else:
            refused[got] = refused.get(got, 0) + 1

    started = time.perf_counter()
    interval = 1 / args.steps_per_second
    running: list[asyncio.Task[None]] = []
    turn = 0
    for k in range(int(args.seconds * args.steps_per_second)):
        await asyncio.sleep(max(0.0, started + k * interval - time.perf_counter()))
        idle = [g for g in game_ids if g not in busy and g not in over]
        if not idle:
            continue
        game_id = idle[turn % len(idle)]
        turn += 1
        busy.add(game_id)
        running.append(asyncio.create_task(one(game_id, bots[k % len(bots)])))
    await asyncio.gather(*running)
    await asyncio.sleep(GRACE_S)
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    by_game: dict[str, list[Page]] = {}
    for p in pages:
        by_game.setdefault(p.game, []).append(p)
    from_answer, from_request, missed, before_answer = [], [], 0, 0
    for s in steps:
        for p in by_game[s.game]:
            at = p.first_at_least(s.revision)
            if at is None:
                missed += 1
                continue
            from_answer.append(max(0.0, at - s.answered_at))
            from_request.append(at - s.sent_at)
            before_answer += at < s.answered_at
    span = time.perf_counter() - started - GRACE_S
    print(
        f"    steps applied {len(steps)} in {span:.1f} s ({len(steps) / span:.1f}/s), "
        f"refused {refused or 0}, games over {len(over)}; page events expected "
        f"{len(from_answer) + missed}, missed {missed}, "
        f"came before the decide's answer {before_answer} (counted as 0)"
    )
    summary("decide answer -> page event", from_answer)
    summary("decide request -> page event", from_request)
    summary("decide request -> answer", [s.answered_at - s.sent_at for s in steps])


def cpu_seconds(pid: int) -> float:
    """A process's CPU time so far (user + system), from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def views(
    args: argparse.Namespace, bots: list[str], pids: list[int], games: dict[str, list[int]]
) -> None:
    """Phase (b): GET view at a steady rate, latency from each request's scheduled time."""
    rng = random.Random(7)
    readers = [(g, uid) for g, ids in games.items() for uid in ids]
    readers += [(g, 900_000 + i) for i, g in enumerate(games)]  # a spectator per game
    auth = {uid: {"Authorization": "tma " + init_data(uid)} for _, uid in readers}
    targets = bots[: args.view_processes]
    latencies: list[float] = []
    late: list[float] = []
    statuses: dict[int, int] = {}

    # Many small clients, not one: httpx's connection pool costs grow with the requests
    # it holds, and in one pool a moment of queueing became seconds of the generator's own
    # lag (measured: "sent late" p50 6.6 s at 100/s with one client).
    clients = [
        httpx.AsyncClient(timeout=30, limits=httpx.Limits(max_connections=VIEW_CONNECTIONS))
        for _ in range(VIEW_CLIENTS)
    ]

    async def one(k: int, due: float) -> None:
        game_id, uid = rng.choice(readers)
        late.append(time.perf_counter() - due)
        try:
            response = await clients[k % len(clients)].get(
                f"{targets[k % len(targets)]}/app/api/view",
                params={"game": game_id},
                headers=auth[uid],
            )
            status = response.status_code
        except httpx.HTTPError:
            status = 0
        statuses[status] = statuses.get(status, 0) + 1
        if status == 200:
            latencies.append(time.perf_counter() - due)

    started, cpu = time.perf_counter(), time.process_time()
    bot_cpu = [cpu_seconds(pid) for pid in pids]
    interval = 1 / args.view_rate
    running = []
    for k in range(int(args.view_seconds * args.view_rate)):
        due = started + k * interval
        await asyncio.sleep(max(0.0, due - time.perf_counter()))
        running.append(asyncio.create_task(one(k, due)))
    await asyncio.gather(*running)
    span, cpu = time.perf_counter() - started, time.process_time() - cpu
    bot_cpu = [cpu_seconds(pid) - before for pid, before in zip(pids, bot_cpu, strict=True)]
    for client in clients:
        await client.aclose()
    print(
        f"(b) GET view at {args.view_rate:.0f}/s for {args.view_seconds:.0f} s to "
        f"{len(targets)} process(es): answered {len(latencies)} in {span:.1f} s, "
        f"statuses {statuses}; CPU: the generator {cpu:.1f} s, the bots "
        f"{' + '.join(f'{c:.1f}' for c in bot_cpu)} s "
        f"({sum(bot_cpu[: len(targets)]) / max(1, len(latencies)) * 1000:.1f} ms a view)"
    )
    summary("scheduled -> view answered", latencies)
    summary("(generator: sent late)", late)


def log_lines(path: Path) -> Counter[str]:
    """Tracebacks, ERROR and WARNING lines in a bot's log so far."""
    text = path.read_text(errors="replace") if path.exists() else ""
    return Counter(
        word
        for line in text.splitlines()
        for word in ("Traceback", "ERROR", "WARNING")
        if word in line
    )


def open_fds(pid: int) -> int:
    """How many file descriptors a process holds (its sockets among them)."""
    return len(os.listdir(f"/proc/{pid}/fd"))


@dataclass
class Webhook:
    """(d)'s webhook load: tables (bench/webhook.py's) posting their next update at a
    steady rate to one process, open loop, latency from each update's scheduled time."""

    http: httpx.AsyncClient
    url: str
    tables: list[Table]
    latencies: list[float] = field(default_factory=list)
    statuses: Counter[int] = field(default_factory=Counter)
    skipped: int = 0

    def __post_init__(self) -> None:
        self._updates = [t.updates() for t in self.tables]
        self._busy: set[int] = set()
        self._turn = 0

    async def _one(self, i: int, due: float) -> None:
        try:
            _, _, update = await self._updates[i].__anext__()
            try:
                response = await self.http.post(self.url, json=update, headers=HEADERS)
                status = response.status_code
            except httpx.HTTPError:
                status = 0
            self.statuses[status] += 1
            if status == 200:
                self.latencies.append(time.perf_counter() - due)
        finally:
            self._busy.discard(i)

    async def run(self, rate: float, seconds: float) -> None:
        """Post updates at `rate` a second for `seconds` s (a slot with every table still
        waiting for its answer is skipped, and counted)."""
        self.latencies, self.statuses, self.skipped = [], Counter(), 0
        started, running = time.perf_counter(), []
        for k in range(int(rate * seconds)):
            due = started + k / rate
            await asyncio.sleep(max(0.0, due - time.perf_counter()))
            idle = [i for i in range(len(self.tables)) if i not in self._busy]
            if not idle:
                self.skipped += 1
                continue
            i = idle[self._turn % len(idle)]
            self._turn += 1
            self._busy.add(i)
            running.append(asyncio.create_task(self._one(i, due)))
        await asyncio.gather(*running)


@dataclass(frozen=True)
class Attack:
    """(d)'s attackers: `streams` event streams to `target` by `accounts`, over `spread` s,
    each held until the bot ends it or `seconds` s have passed."""

    target: str
    accounts: list[int]
    game_ids: list[str]
    streams: int
    spread: float
    seconds: float


def run_attack(attack: Attack) -> tuple[Counter[str], dict[str, int]]:
    """Run `attack` in this (child) process: the attempts' outcomes, and the streams held
    at once at most, at the end and ended by the bot."""
    return asyncio.run(_attack(attack))


async def _attack(attack: Attack) -> tuple[Counter[str], dict[str, int]]:
    auth = {a: {"Authorization": "tma " + init_data(a)} for a in attack.accounts}
    attempts: Counter[str] = Counter()
    held = {"now": 0, "most": 0, "ended by the bot": 0}
    no_pool = httpx.Limits(max_connections=attack.streams + 10, max_keepalive_connections=50)
    client = httpx.AsyncClient(timeout=30, limits=no_pool)

    async def attempt(k: int, due: float) -> None:
        await asyncio.sleep(max(0.0, due - time.perf_counter()))
        account = attack.accounts[k % len(attack.accounts)]
        try:
            got = await client.post(
                f"{attack.target}/app/api/ticket",
                params={"game": attack.game_ids[k % len(attack.game_ids)]},
                headers=auth[account],
            )
            if got.status_code != 200:
                attempts[f"ticket {got.status_code}"] += 1
                return
            params = {"ticket": got.json()["ticket"], "after": "-1"}
            url = f"{attack.target}/app/api/events"
            async with client.stream("GET", url, params=params, timeout=None) as stream:
                attempts[f"stream {stream.status_code}"] += 1
                if stream.status_code != 200:
                    return
                held["now"] += 1
                held["most"] = max(held["most"], held["now"])
                try:
                    async for _ in stream.aiter_lines():
                        pass
                    held["ended by the bot"] += 1
                finally:
                    held["now"] -= 1
        except httpx.HTTPError as err:
            attempts[type(err).__name__] += 1

    started = time.perf_counter()
    tasks = [
        asyncio.create_task(attempt(k, started + attack.spread * k / attack.streams))
        for k in range(attack.streams)
    ]
    await asyncio.sleep(attack.seconds)
    held["at the end"] = held["now"]
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    await client.aclose()
    return attempts, held


async def abuse(
    args: argparse.Namespace,
    bots: list[str],
    pids: list[int],
    redis: Redis,
    keys: Keys,
    games: dict[str, list[int]],
    logs: Path,
) -> None:
    """Phase (d): `--abuse-streams` event streams attempted by `--abuse-accounts` accounts
    (a ticket, then the stream, held until the bot ends it) against one process, while
    webhook updates come to the same process at `--webhook-rate`; first the same updates
    alone, for comparison. The process's RSS and file descriptors are sampled."""
    target, pid, log = bots[0], pids[0], logs / "bot0.log"
    accounts = [ABUSE_ACCOUNTS_FROM + i for i in range(args.abuse_accounts)]
    if args.split:  # the streams to the Mini App's own process, the updates to the other
        target, pid = bots[1], pids[0]
        hook, log = bots[0], logs / "bot0.log"
    else:
        hook = target
    game_ids = list(games)
    samples: list[tuple[float, float, int]] = []  # (RSS MB, fds) over time

    async def sample() -> None:
        while True:
            samples.append((time.perf_counter(), rss_mb(pid), open_fds(pid)))
            await asyncio.sleep(0.2)

    http = httpx.AsyncClient(timeout=30, limits=httpx.Limits(max_connections=100))

    tables = [Table(redis, keys, ABUSE_TABLES_FROM + n) for n in range(args.webhook_tables)]
    webhook = Webhook(http, f"{hook}/telegram", tables)
    sampler = asyncio.create_task(sample())
    lines_before = log_lines(log)
    try:
        await webhook.run(args.webhook_rate, 3)  # warm-up: the tables' lobbies
        rss_before = rss_mb(pid)
        await webhook.run(args.webhook_rate, args.abuse_seconds)
        print(
            f"(d) webhook updates alone, {args.webhook_rate:.0f}/s for "
            f"{args.abuse_seconds:.0f} s to one process: statuses {dict(webhook.statuses)}, "
            f"slots skipped {webhook.skipped}; RSS {rss_before:.1f} MB, fds {open_fds(pid)}"
        )
        summary("scheduled -> webhook answered", webhook.latencies)
        started = time.perf_counter()
        spread = args.abuse_spread
        # The attackers in a process of their own: in this one, their 1,000 connections
        # would hold the event loop that times the webhook's updates.
        attack = Attack(target, accounts, game_ids, args.abuse_streams, spread, args.abuse_seconds)
        with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
            attacked = asyncio.get_running_loop().run_in_executor(pool, run_attack, attack)
            await webhook.run(args.webhook_rate, args.abuse_seconds)
            during = [s for s in samples if s[0] >= started]
            rss_end, fds_end = rss_mb(pid), open_fds(pid)
            attempts, held = await attacked
        still = held["at the end"]
        await asyncio.sleep(3)
        new_lines = log_lines(log)
        new_lines.subtract(lines_before)
        where = "the Mini App's own process" if args.split else "the same process"
        print(
            f"(d) with {args.abuse_streams} streams attempted by {len(accounts)} accounts "
            f"(over {spread:.0f} s, to {where}): attempts {dict(attempts)}; "
            f"streams held at once at most {held['most']}, at the end {still}, ended by "
            f"the bot {held['ended by the bot']}"
        )
        print(
            f"    webhook updates: statuses {dict(webhook.statuses)}, slots skipped "
            f"{webhook.skipped}; the bot's log: {dict(+new_lines) or 'nothing new'}"
        )
        summary("scheduled -> webhook answered", webhook.latencies)
        print(
            f"    RSS {rss_before:.1f} MB before, {max(s[1] for s in during):.1f} MB at most, "
            f"{rss_end:.1f} MB at the end, {rss_mb(pid):.1f} MB 3 s after the attackers left; "
            f"fds at most {max(s[2] for s in during)}, {fds_end} at the end, "
            f"{open_fds(pid)} after"
        )
        if args.split:
            print(
                f"    (RSS and fds above: the webhook's process; the Mini App's process now "
                f"{rss_mb(pids[1]):.1f} MB, {open_fds(pids[1])} fds; its log: "
                f"{dict(log_lines(logs / 'bot1.log')) or 'nothing logged'})"
            )
    finally:
        sampler.cancel()
        await http.aclose()


async def settle(url: str, keys: Keys) -> None:
    """Wait until the bots have delivered every message the steps queued (Telegram's 30
    a second): (b) measures views, not views beside a backlog of deliveries."""
    store = Store(connect(url), keys)
    started = time.perf_counter()
    try:
        while time.perf_counter() - started < SETTLE_S:
            waiting, _ = await store.outboxes.outbox_gauges(16)
            if not waiting:
                break
            await asyncio.sleep(0.5)
        took = time.perf_counter() - started
        print(f"    deliveries drained in {took:.1f} s (outboxes still waiting {waiting})")
    finally:
        await store.redis.aclose()


async def main() -> None:
    """Start everything, run both phases, print the figures."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--pages", type=int, default=200)
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=30, help="(a): s of steps")
    parser.add_argument("--steps-per-second", type=float, default=10)
    parser.add_argument("--view-rate", type=float, default=100, help="(b): views a second")
    parser.add_argument("--view-seconds", type=float, default=30)
    parser.add_argument("--view-processes", type=int, default=1, choices=(1, 2))
    parser.add_argument("--base-port", type=int, default=27100)
    parser.add_argument("--skip-fan-out", action="store_true")
    parser.add_argument("--skip-views", action="store_true")
    parser.add_argument(
        "--idle-seconds", type=float, default=30, help="(c): each idle window; 0: no (c)"
    )
    parser.add_argument("--abuse-streams", type=int, default=0, help="(d): 0: no (d)")
    parser.add_argument("--abuse-accounts", type=int, default=10)
    parser.add_argument(
        "--abuse-spread", type=float, default=10, help="(d): s the attempts are spread over"
    )
    parser.add_argument("--abuse-seconds", type=float, default=20, help="(d): each phase")
    parser.add_argument("--webhook-rate", type=float, default=20, help="(d): updates a second")
    parser.add_argument("--webhook-tables", type=int, default=20)
    parser.add_argument(
        "--throttle",
        type=int,
        default=0,
        help="the bots' updates a person may send in 10 s (default: none, every call "
        f"counts; the bot's own default is {DEFAULT_PERSON_UPDATES_PER_10S})",
    )
    parser.add_argument(
        "--redis-server",
        help="the redis-server to start (default: the tests', /usr/bin/redis-server when "
        "there; REDIS_URL, if set, is used instead unless this is given)",
    )
    parser.add_argument("--hold", type=float, default=0, help="keep it all up S s at the end")
    parser.add_argument(
        "--split",
        action="store_true",
        help="the first bot SERVE=webhook, the second SERVE=app; (d)'s streams go to the "
        "second, its updates to the first (needs --skip-fan-out --skip-views)",
    )
    args = parser.parse_args()
    if args.split and not (args.skip_fan_out and args.skip_views):
        parser.error("--split needs --skip-fan-out and --skip-views")
    print(
        f"machine: {platform.machine()} cpus={os.cpu_count()} python {platform.python_version()}"
        f"  load {load_average()}"
    )
    sim_port = args.base_port
    bot_ports = [args.base_port + 1, args.base_port + 2]
    for port in (sim_port, *bot_ports):  # an earlier run still up would answer for ours
        with socket.socket() as sock:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn binds
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                raise SystemExit(f"port {port} is in use: stop what listens there") from None
    prefix = f"a{uuid.uuid4().hex[:6]}"
    keys = Keys(prefix)
    sim_url = f"http://127.0.0.1:{sim_port}"
    bots = [f"http://127.0.0.1:{port}" for port in bot_ports]
    logs = Path(tempfile.mkdtemp(prefix="webapp-bench-"))
    with redis_url(args.redis_server) as url:
        env = {
            **os.environ,
            "REDIS_URL": url,
            "WEBHOOK_SECRET": SECRET,
            "TELEGRAM_API_URL": f"{sim_url}/bot",
            "REDIS_KEY_PREFIX": prefix,
            "PTB_TIMEDELTA": "1",
            "BOT_LOG_LEVEL": "WARNING",
        }
        if args.throttle:
            env["PERSON_UPDATES_PER_10S"] = str(args.throttle)
        processes = [spawn(["bench/sim_server.py", str(sim_port)], env)]
        for i, port in enumerate(bot_ports):
            args_ = ["-m", "tests.resilience.bot_process", str(port)]
            serve = ("webhook", "app")[i] if args.split else "all"
            processes.append(spawn(args_, {**env, "SERVE": serve}, str(logs / f"bot{i}.log")))
        redis = cast(CountingRedis, CountingRedis.from_url(url))
        version = (await redis.info("server"))["redis_version"]
        server = args.redis_server or os.environ.get("REDIS_URL") or binary_for_tests()
        print(f"Redis {version} ({server})")
        connections = args.pages + 2 * int(args.view_rate) + 50
        limits = httpx.Limits(max_connections=connections, max_keepalive_connections=connections)
        try:
            async with httpx.AsyncClient(timeout=30, limits=limits) as http:
                await wait_up(http, f"{sim_url}/botx/getMe")
                for base in bots:
                    await wait_up(http, f"{base}/healthz")
                hooks = bots[:1] if args.split else bots
                games = await open_games(http, hooks, redis, keys, args.games)
                print(f"{len(games)} games started; bots' logs in {logs}")
                idle_base = None
                if args.idle_seconds and not args.skip_fan_out:
                    await settle(url, keys)
                    idle_base = await idle_commands(redis, args.idle_seconds)
                if not args.skip_fan_out:
                    await fan_out(args, http, bots, redis, keys, games, idle_base)
                if not args.skip_views:
                    await settle(url, keys)
                    await views(args, bots, [p.pid for p in processes[1:]], games)
                if args.abuse_streams:
                    pids = [p.pid for p in processes[1:]]
                    await abuse(args, bots, pids, redis, keys, games, logs)
                if args.hold:
                    print("holding:", bots, {g: ids[0] for g, ids in list(games.items())[:1]})
                    await asyncio.sleep(args.hold)
        finally:
            await redis.aclose()
            for process in reversed(processes):
                with contextlib.suppress(Exception):
                    stop(process)
    for i in range(len(bot_ports)):
        print(f"bot{i}'s log: {dict(log_lines(logs / f'bot{i}.log')) or 'nothing logged'}")
    print(f"load after: {load_average()}")


if __name__ == "__main__":
    asyncio.run(main())
