"""Webhook latency and throughput: our bot beside a bare python-telegram-bot handler.

Four processes: the bot (the real webhook app with a real Redis), the simulated Bot API
(bench/sim_server.py), a bare handler that only answers the callback
(bench/bare_handler.py), and this load generator. Many tables play at once: a table reads
its game's state from Redis, picks the next player's decision and posts the button press
that player would send (or a command).

Two ways to load it:

* `--rate N` (open loop): updates are posted at a steady N a second, at scheduled times,
  whatever the answers do; each update's latency counts from its scheduled time, so a
  queue in the bot (or in this generator) shows in the figures instead of slowing the
  load down (no coordinated omission). A slot goes to a table that is not waiting for an
  answer (use enough tables, `--games`, that one usually is: a slot taken more than 1 ms
  late is counted, and its wait is in its latency, so the generator's own lag counts
  against the bot). The first `--warmup` s (the lobbies) are not counted. A share of the slots
  (`--full-share`) posts commands (/help, /rules, /board, /claims) into groups whose
  20-a-minute window is already used up (the rate limiter's window in Redis pre-filled
  for the phase): their post -> 200 is reported apart, and afterwards, once the windows
  free, the sim is asked whether each reply reached its group exactly once. The tables'
  own /board commands are reported apart too, split by whether their group's window was
  full when posted. Then the bot is stopped and the bare handler gets the same rate.
  With `--capacity S` both are also driven closed-loop for S seconds (each table waits
  for its own answers, as many tables as `--games`): the updates per second each takes,
  whose ratio is the "at least 0.5 x a bare handler" target.
* without `--rate` (closed loop, the earlier bench): each table waits for its own answers;
  the rate is whatever the bot takes, and the ratio to the bare handler is that of rates.

The open loop also prints the bot's Redis commands per update answered in the measured
phase (INFO commandstats, less what this generator sent) and its RSS before the load,
after the warm-up and at the end; `--skip-bare` leaves out the bare handler's phases.
`--profile FILE` samples the bot with py-spy during the measured open-loop phase (100 Hz,
collapsed stacks in FILE; `python bench/webhook.py --summarize FILE` ranks them).
Run: `python bench/webhook.py --rate 100 --seconds 20 --capacity 10`.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import json
import os
import platform
import signal
import statistics
import subprocess
import sys
import time
import uuid
from collections import Counter
from collections.abc import AsyncIterator, Callable, Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from redis.asyncio import Redis

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.redis_server import redis_url  # noqa: E402
from tests.telegram_sim.harness import SECRET, free_port  # noqa: E402
from tgbot.contract import callbacks  # noqa: E402
from tgbot.engine import Game  # noqa: E402
from tgbot.service.records import GameRecord  # noqa: E402
from tgbot.storage.keys import Keys  # noqa: E402
from tgbot.telegram.rate_limit import GROUP_WINDOW_MS, safe_group_limit  # noqa: E402

HEADERS = {"X-Telegram-Bot-Api-Secret-Token": SECRET}
FULL_GROUP_COMMANDS = ("/help", "/rules", "/board", "/claims")
STARVED_AFTER_S = 0.001  # a slot taken later than this by a table is counted starved
BOARD_EVERY = 10  # a table posts /board in its group every this many updates
update_ids = itertools.count(1)


def user(uid: int) -> dict[str, Any]:
    """A Telegram user as an update carries it."""
    return {"id": uid, "is_bot": False, "first_name": f"U{uid}", "language_code": "ka"}


def command(uid: int, chat: int, text: str) -> dict[str, Any]:
    """A command message update."""
    return {
        "update_id": next(update_ids),
        "message": {
            "message_id": 1,
            "date": 0,
            "from": user(uid),
            "text": text,
            "chat": {"id": chat, "type": "private" if chat > 0 else "supergroup"},
            "entities": [{"type": "bot_command", "offset": 0, "length": len(text.split()[0])}],
        },
    }


def press(uid: int, chat: int, data: str) -> dict[str, Any]:
    """A button press update."""
    n = next(update_ids)
    return {
        "update_id": n,
        "callback_query": {
            "id": f"cb{n}",
            "from": user(uid),
            "chat_instance": "c",
            "data": data,
            "message": {
                "message_id": 1,
                "date": 0,
                "text": "?",
                "chat": {"id": chat, "type": "private" if chat > 0 else "supergroup"},
            },
        },
    }


def policy(game: Game, player: int) -> Any:
    """A deterministic choice among the player's legal decisions."""
    legal = game.legal_decisions(player)
    return legal[(game.version * 7 + player) % len(legal)]


@dataclass
class Timings:
    """Latencies by kind (s), and what went wrong."""

    by_kind: dict[str, list[float]] = field(default_factory=dict)
    sent_late: list[float] = field(default_factory=list)  # generator: scheduled -> posted
    statuses: Counter[int] = field(default_factory=Counter)
    starved: int = 0
    dropped: int = 0  # slots still waiting for a table when the schedule ended
    first_at: float = 0.0
    last_at: float = 0.0

    samples: list[tuple[float, float]] = field(default_factory=list)  # (answered at, latency)

    def add(self, kind: str, latency: float) -> None:
        """Keep one answered update's latency."""
        self.by_kind.setdefault(kind, []).append(latency)
        self.samples.append((time.perf_counter(), latency))

    def timeline(self, step: float = 1.0) -> None:
        """Print p50/p99/max per `step` s of the phase (where the slow answers cluster)."""
        buckets: dict[int, list[float]] = {}
        for at, latency in self.samples:
            buckets.setdefault(int((at - self.first_at) / step), []).append(latency)
        for b, values in sorted(buckets.items()):
            values.sort()
            print(
                f"    {b * step:5.1f} s  n {len(values):4d}  "
                f"p50 {statistics.median(values) * 1000:6.1f}  "
                f"p99 {percentile(values, 0.99) * 1000:6.1f}  max {values[-1] * 1000:6.1f} ms"
            )

    def count(self) -> int:
        """Updates answered 200."""
        return sum(len(v) for v in self.by_kind.values())


async def post(
    http: httpx.AsyncClient, url: str, update: dict[str, Any], since: float, t: Timings
) -> float | None:
    """Post one update; its latency from `since` (its scheduled time in open loop) if it
    was answered 200."""
    t.sent_late.append(time.perf_counter() - since)
    try:
        response = await http.post(url, json=update, headers=HEADERS)
    except httpx.HTTPError:
        t.statuses[0] += 1
        return None
    t.statuses[response.status_code] += 1
    t.last_at = time.perf_counter()
    return t.last_at - since if response.status_code == 200 else None


async def timed(
    http: httpx.AsyncClient, url: str, update: dict[str, Any], kind: str, since: float, t: Timings
) -> None:
    """Post one update and keep its latency under `kind`."""
    latency = await post(http, url, update, since, t)
    if latency is not None:
        t.add(kind, latency)


# ---- what the tables post ---------------------------------------------------------------


class Table:
    """One group playing game after game: yields (kind, chat, update) one at a time; the
    next is made only after the previous one was answered."""

    def __init__(self, redis: Redis, keys: Keys, n: int, board_every: int = 0) -> None:
        self.redis, self.keys, self.n, self.board_every = redis, keys, n, board_every
        self.made = 0

    async def updates(self) -> AsyncIterator[tuple[str, int, dict[str, Any]]]:
        """The table's updates, forever."""
        n = self.n
        for round_no in itertools.count():
            group = -(1_000_000 + n * 1000 + round_no)
            ids = [100_000 + n * 10_000 + round_no * 10 + i for i in range(4)]
            for uid in ids:
                yield "command", uid, command(uid, uid, "/start")
            yield "command", group, command(ids[0], group, "/newgame")
            opened = await self.redis.get(self.keys.chat_game(group))
            if not isinstance(opened, bytes):  # /newgame was not applied: the next group
                continue
            game_id = opened.decode()
            for uid in ids[1:]:
                yield "button", group, press(uid, group, f"{game_id}.0.J")
            yield "button", group, press(ids[0], group, f"{game_id}.0.S")
            while True:
                raw = await self.redis.get(self.keys.game(game_id))
                if not isinstance(raw, bytes):
                    break
                record = GameRecord.from_dict(json.loads(raw))
                if record.status != "playing":
                    break
                self.made += 1
                if self.board_every and self.made % self.board_every == 0:
                    yield "board", group, command(ids[0], group, "/board")
                game = record.game()
                player = game.awaiting().players[0]
                code = callbacks.encode_decision(policy(game, player), [p.id for p in game.players])
                # Answers to a claim are pressed on the group's turn message, the rest
                # privately.
                at_table = callbacks.is_answer(code) and record.answers == "table"
                chat = group if at_table else player
                yield (
                    "button",
                    chat,
                    press(player, chat, callbacks.pack(game_id, record.context, code)),
                )


async def closed_table(
    http: httpx.AsyncClient, url: str, table: Table, stop_at: float, t: Timings
) -> None:
    """Post a table's updates one after the other until the time is up."""
    async for kind, _, update in table.updates():
        if time.monotonic() > stop_at:
            return
        await timed(http, url, update, kind, time.perf_counter(), t)


async def bare_updates(n: int) -> AsyncIterator[tuple[str, int, dict[str, Any]]]:
    """What the bare handler gets: presses, forever."""
    while True:
        yield "button", 200_000 + n, press(200_000 + n, 200_000 + n, "bare.0.P")


# ---- open loop --------------------------------------------------------------------------


@dataclass
class Ready:
    """An update about to be posted (`classify` may rename its kind)."""

    kind: str
    chat: int
    update: dict[str, Any]


async def open_loop(
    http: httpx.AsyncClient,
    url: str,
    rate: float,
    seconds: float,
    sources: list[AsyncIterator[tuple[str, int, dict[str, Any]]]],
    extra: Callable[[int], tuple[str, dict[str, Any]] | None] = lambda _: None,
    classify: Callable[[Ready], Coroutine[Any, Any, str]] | None = None,
    warmup: float = 0.0,
    at_measure: Callable[[], Coroutine[Any, Any, Any]] | None = None,
) -> Timings:
    """Post `rate` updates a second for `warmup` + `seconds`, each timed from its
    scheduled time; what was scheduled in the first `warmup` s is not counted.

    The schedule hands out slots (their times) through a queue; each source (a table) has
    its next update made and takes the next slot, posts, and only then makes its next
    update. A slot no source took at once waits in the queue and is counted starved (its
    wait is in its latency). Slot i posts `extra(i)` instead when that gives an update
    (commands into the full groups). `at_measure` runs (beside the schedule) when the
    measured part begins.
    """
    slots: asyncio.Queue[float | None] = asyncio.Queue()
    t = Timings()
    posts: set[asyncio.Task[None]] = set()

    async def run(source: AsyncIterator[tuple[str, int, dict[str, Any]]]) -> None:
        try:
            async for kind, chat, update in source:
                at = await slots.get()
                if at is None:
                    return
                if at < measured_from:
                    await post(http, url, update, at, Timings())
                    continue
                if time.perf_counter() - at > STARVED_AFTER_S:
                    t.starved += 1
                item = Ready(kind, chat, update)
                # Classified beside the post (a Redis read), so that it adds nothing to it.
                named = asyncio.create_task(classify(item)) if classify is not None else None
                latency = await post(http, url, update, at, t)
                name = await named if named is not None else kind
                if latency is not None:
                    t.add(name, latency)
        except Exception as err:  # a broken table must say so, not starve the load quietly
            print(f"a table stopped: {type(err).__name__}: {err}", file=sys.stderr)

    measured_from = float("inf")
    runners = [asyncio.create_task(run(s)) for s in sources]
    await asyncio.sleep(0.2)  # let the sources make their first update
    start = time.perf_counter()
    measured_from = t.first_at = start + warmup
    for i in range(int(rate * (warmup + seconds))):
        at = start + i / rate
        pause = at - time.perf_counter()
        if pause > 0:
            await asyncio.sleep(pause)
        if at >= measured_from and at_measure is not None:
            posts.add(marked := asyncio.create_task(at_measure()))
            marked.add_done_callback(posts.discard)
            at_measure = None
        given = extra(i) if at >= measured_from else None
        if given is not None:
            kind, update = given
            task = asyncio.create_task(timed(http, url, update, kind, at, t))
            posts.add(task)
            task.add_done_callback(posts.discard)
        else:
            slots.put_nowait(at)
    t.dropped = slots.qsize()  # still waiting for a table once the schedule is over
    for _ in runners:
        slots.put_nowait(None)
    await asyncio.gather(*runners, *posts)
    return t


# ---- what the bot costs Redis ------------------------------------------------------------


class CountingRedis(Redis):
    """The generator's client, counting the commands it sends itself by name, so that the
    bot's own are what is left of Redis's INFO commandstats."""

    sent: Counter[str]

    async def execute_command(self, *args: Any, **options: Any) -> Any:
        """Count, then run, one command."""
        self.sent = getattr(self, "sent", Counter())
        self.sent[str(args[0]).split()[0].lower()] += 1
        return await super().execute_command(*args, **options)


def rss_mb(pid: int) -> float:
    """A process's resident memory in MB (Linux)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


async def bot_commands(redis: CountingRedis) -> Counter[str]:
    """The commands Redis has run so far, by name, less those this generator sent: the
    bot's, scripts' inner commands included (the INFO asking is off by one)."""
    stats = await redis.info("commandstats")
    ran = Counter({name.removeprefix("cmdstat_"): int(v["calls"]) for name, v in stats.items()})
    ran.subtract(redis.sent)
    return ran


# ---- groups whose window is full -------------------------------------------------------


class FullGroups:
    """Groups whose rate window (in the bot's limiter, in Redis) is used up: commands
    posted there are answered at once and their replies wait for the window."""

    def __init__(self, redis: Redis, keys: Keys, groups: list[int], per_minute: int) -> None:
        self.redis, self.keys, self.groups = redis, keys, groups
        self.limit = safe_group_limit(per_minute)
        self.posted: Counter[tuple[int, str]] = Counter()
        self._next = itertools.count()

    async def fill(self, free_after_s: float) -> None:
        """Use up each group's window, as a burst of messages would have, so that it frees
        `free_after_s` from now."""
        at_ms = int(time.time() * 1000) - GROUP_WINDOW_MS + int(free_after_s * 1000)
        pipe = self.redis.pipeline(transaction=False)
        for group in self.groups:
            key = self.keys.chat_sends(group)
            pipe.zadd(key, {f"bench-fill-{i}": at_ms for i in range(self.limit)})
            pipe.pexpire(key, GROUP_WINDOW_MS)
        await pipe.execute()

    async def is_full(self, group: int) -> bool:
        """Whether a group's window is used up now (as the limiter counts it)."""
        now_ms = int(time.time() * 1000)
        used = await self.redis.zcount(
            self.keys.chat_sends(group), now_ms - GROUP_WINDOW_MS, "+inf"
        )
        return int(used) >= self.limit

    def next(self, uid: int) -> tuple[str, dict[str, Any]]:
        """The next command, round robin over the groups and the commands."""
        i = next(self._next)
        group = self.groups[i % len(self.groups)]
        text = FULL_GROUP_COMMANDS[(i // len(self.groups)) % len(FULL_GROUP_COMMANDS)]
        self.posted[(group, text)] += 1
        return "full-window command", command(uid, group, text)


async def reference_replies(
    http: httpx.AsyncClient, bot_url: str, sim_url: str, group: int
) -> dict[str, str]:
    """Each full-group command's reply text, as a group with a free window gets it."""
    texts: dict[str, str] = {}
    for text in FULL_GROUP_COMMANDS:
        before = len(await chat_texts(http, sim_url, group))
        await http.post(bot_url, json=command(42, group, text), headers=HEADERS)
        for _ in range(200):
            got = await chat_texts(http, sim_url, group)
            if len(got) > before:
                texts[text] = got[-1]
                break
            await asyncio.sleep(0.05)
        else:
            raise RuntimeError(f"no reply to {text} in group {group}")
    return texts


async def chat_texts(http: httpx.AsyncClient, sim_url: str, chat: int) -> list[str]:
    """The texts a chat shows in the sim."""
    return list((await http.get(f"{sim_url}/sim/chat/{chat}")).json())


async def check_delivered(
    http: httpx.AsyncClient,
    sim_url: str,
    full: FullGroups,
    references: dict[str, str],
    wait_s: float,
) -> tuple[int, int, int, float]:
    """Wait (up to `wait_s`) until every queued reply reached its group; then count each
    reply's copies there: (expected, delivered once, more than once, seconds waited)."""
    replies = set(references.values())
    if any(a != b and a in b for a in replies for b in replies):
        print("warning: one reply's text holds another's: the copies below may be overcounted")
    expected: dict[tuple[int, str], int] = Counter()
    for (group, text), n in full.posted.items():
        expected[(group, references[text])] += n
    started = time.monotonic()
    while True:
        found: dict[tuple[int, str], int] = {}
        for group in full.groups:
            shown = "\n\n".join(await chat_texts(http, sim_url, group))
            for g, reply in expected:
                if g == group:
                    found[(g, reply)] = shown.count(reply)
        if all(found[k] >= n for k, n in expected.items()) or time.monotonic() - started > wait_s:
            break
        await asyncio.sleep(1)
    total = sum(expected.values())
    once = sum(min(found[k], n) for k, n in expected.items())
    more = sum(max(0, found[k] - n) for k, n in expected.items())
    return total, once, more, time.monotonic() - started


# ---- reporting and processes ------------------------------------------------------------


def percentile(ordered: list[float], q: float) -> float:
    """The q-th percentile (nearest rank) of sorted values."""
    return ordered[min(len(ordered) - 1, max(0, int(len(ordered) * q + 0.5) - 1))]


def report(name: str, latencies: list[float], seconds: float | None = None) -> dict[str, float]:
    """Print p50/p99/max (and a rate) of some latencies; return them in ms."""
    if not latencies:
        print(f"  {name:22s} none")
        return {}
    ordered = sorted(latencies)
    figures = {
        "n": len(ordered),
        "p50": statistics.median(ordered) * 1000,
        "p99": percentile(ordered, 0.99) * 1000,
        "max": ordered[-1] * 1000,
    }
    rate = f"{len(ordered) / seconds:7.1f}/s " if seconds else ""
    print(
        f"  {name:22s} {rate}p50 {figures['p50']:7.1f} ms  p99 {figures['p99']:7.1f} ms  "
        f"max {figures['max']:7.1f} ms  ({len(ordered)})"
    )
    return figures


def report_open(name: str, t: Timings, rate: float) -> dict[str, dict[str, float]]:
    """Print an open-loop phase's figures by kind."""
    span = max(1e-9, t.last_at - t.first_at)
    print(
        f"{name}: offered {rate:.0f}/s, answered 200 {t.count()} ({t.count() / span:.1f}/s), "
        f"statuses {dict(t.statuses)}, slots a table took late {t.starved} "
        f"(still queued at the end {t.dropped})"
    )
    figures = {kind: report(kind, lat) for kind, lat in sorted(t.by_kind.items())}
    report("(generator: sent late)", t.sent_late)
    return figures


def spawn(args: list[str], env: dict[str, str], log: str | None = None) -> subprocess.Popen[bytes]:
    """A helper process, quiet (or its stderr to `log`)."""
    err = open(log, "wb") if log else subprocess.DEVNULL  # noqa: SIM115 (the child keeps it)
    return subprocess.Popen(
        [sys.executable, *args], cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=err
    )


def stop(process: subprocess.Popen[bytes]) -> None:
    """SIGTERM and wait (a profiled bot writes its report on the way out)."""
    process.terminate()
    try:
        process.wait(60)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


async def wait_up(http: httpx.AsyncClient, url: str) -> None:
    """Wait until a server answers."""
    for _ in range(600):
        with contextlib.suppress(httpx.HTTPError):
            await http.get(url)
            return
        await asyncio.sleep(0.05)
    raise RuntimeError(f"{url} did not come up")


def load_average() -> str:
    """The machine's load, as uptime says it."""
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


async def closed_loop(
    http: httpx.AsyncClient, url: str, tables: list[Table] | None, games: int, seconds: float
) -> Timings:
    """Each of `games` tables (or bare workers) posts its next update once the last was
    answered, for `seconds`."""
    t = Timings()
    t.first_at = time.perf_counter()
    stop_at = time.monotonic() + seconds
    if tables is not None:
        await asyncio.gather(*(closed_table(http, url, table, stop_at, t) for table in tables))
    else:

        async def worker(n: int) -> None:
            async for kind, _, update in bare_updates(n):
                if time.monotonic() > stop_at:
                    return
                await timed(http, url, update, kind, time.perf_counter(), t)

        await asyncio.gather(*(worker(n) for n in range(games)))
    t.last_at = time.perf_counter()
    return t


async def main() -> None:
    """Run the phases and print the figures."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=40, help="tables playing at once")
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument(
        "--warmup", type=float, default=15, help="open loop: s at the rate before measuring"
    )
    parser.add_argument("--rate", type=float, default=0, help="open loop: updates a second")
    parser.add_argument(
        "--capacity", type=float, default=0, help="open loop: then S s closed loop, for the ratio"
    )
    parser.add_argument("--full-groups", type=int, default=10, help="groups with a full window")
    parser.add_argument(
        "--full-share", type=float, default=0.05, help="share of slots for full-group commands"
    )
    parser.add_argument(
        "--group-per-minute",
        type=int,
        default=20,
        help="a group's messages a minute (Telegram's 20)",
    )
    parser.add_argument(
        "--messages-per-second",
        type=int,
        default=30,
        help="the bot's overall sending pace: Telegram's 30, or higher to see the stack alone",
    )
    parser.add_argument("--skip-bare", action="store_true", help="open loop: the bot's phase only")
    parser.add_argument("--profile", help="py-spy the bot's measured phase into this file")
    parser.add_argument("--bot-log", help="the bot's stderr to this file")
    parser.add_argument("--timeline", type=float, default=0, help="print figures every S s")
    parser.add_argument("--summarize", help="rank the functions of a --profile file, and stop")
    args = parser.parse_args()
    if args.summarize:
        summarize(Path(args.summarize))
        return
    print(
        f"machine: {platform.machine()} cpus={os.cpu_count()} python {platform.python_version()}"
        f"  load {load_average()}"
    )
    sim_port, bot_port, bare_port = free_port(), free_port(), free_port()
    prefix = f"w{uuid.uuid4().hex[:6]}"
    keys = Keys(prefix)
    sim_url = f"http://127.0.0.1:{sim_port}"
    bot_url = f"http://127.0.0.1:{bot_port}/telegram"
    bare_url = f"http://127.0.0.1:{bare_port}/telegram"
    with redis_url() as url:
        env = {
            **os.environ,
            "REDIS_URL": url,
            "WEBHOOK_SECRET": SECRET,
            "TELEGRAM_API_URL": f"{sim_url}/bot",
            "REDIS_KEY_PREFIX": prefix,
            "PTB_TIMEDELTA": "1",
            "MESSAGES_PER_SECOND": str(args.messages_per_second),
            "GROUP_MESSAGES_PER_MINUTE": str(args.group_per_minute),
            "BOT_LOG_LEVEL": "WARNING",
        }
        bot_args = ["-m", "tests.resilience.bot_process", str(bot_port)]
        processes = [
            spawn(["bench/sim_server.py", str(sim_port), str(args.group_per_minute)], env),
            spawn(bot_args, env, args.bot_log),
            spawn(["bench/bare_handler.py", str(bare_port)], env),
        ]
        redis = CountingRedis.from_url(url)
        connections = max(args.games * 2, int(args.rate) * 2, 100)
        limits = httpx.Limits(max_connections=connections, max_keepalive_connections=connections)
        try:
            async with httpx.AsyncClient(timeout=60, limits=limits) as http:
                await wait_up(http, f"{sim_url}/botx/getMe")
                await wait_up(http, f"http://127.0.0.1:{bot_port}/healthz")
                await wait_up(http, bare_url)
                if args.rate:
                    await run_open(args, http, redis, keys, sim_url, bot_url, bare_url, processes)
                else:
                    await run_closed(args, http, redis, keys, bot_url, bare_url, processes)
        finally:
            await redis.aclose()
            for process in reversed(processes):  # the bot first: it still talks to the sim
                stop(process)
    print(f"load after: {load_average()}")


async def bot_pauses(http: httpx.AsyncClient, metrics_url: str) -> None:
    """Print the bot's garbage-collector pauses so far and its deliveries in flight
    (from its /metrics), when it reports them."""
    text = (await http.get(metrics_url)).text
    lines = [line for line in text.splitlines() if not line.startswith("#")]
    counts: dict[str, float] = {}
    slow: dict[str, float] = {}
    total: dict[str, float] = {}
    for line in lines:
        name, _, value = line.rpartition(" ")
        gen = name.partition('generation="')[2].partition('"')[0]
        if name.startswith("coup_gc_pause_seconds_count"):
            counts[gen] = float(value)
        elif name.startswith("coup_gc_pause_seconds_sum"):
            total[gen] = float(value)
        elif name.startswith("coup_gc_pause_seconds_bucket") and 'le="0.025"' in name:
            slow[gen] = float(value)
        elif name.startswith("coup_deliveries_in_flight"):
            print(f"bot: deliveries in flight {float(value):.0f}")
    for gen in sorted(counts):
        print(
            f"bot: gc generation {gen}: {counts[gen]:.0f} pauses, "
            f"{total[gen] * 1000:.0f} ms in all, {counts[gen] - slow.get(gen, 0):.0f} over 25 ms"
        )


async def profile(args: argparse.Namespace, pid: int) -> None:
    """Sample the bot with py-spy through the measured phase."""
    await asyncio.sleep(args.warmup + 0.2)
    spy = await asyncio.create_subprocess_exec(
        "py-spy",
        "record",
        "-p",
        str(pid),
        "-r",
        "100",
        "-d",
        str(int(args.seconds)),
        "-f",
        "raw",
        "-o",
        args.profile,
        "--nonblocking",
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    await spy.wait()


def summarize(path: Path, top: int = 40) -> None:
    """Print the functions that the most samples were in (inclusive) and on top of (self)."""
    inclusive: Counter[str] = Counter()
    own: Counter[str] = Counter()
    total = 0
    for line in path.read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        if not count.isdigit():
            continue
        n = int(count)
        total += n
        frames = [
            f.split(" (")[0] + " (" + f.split(" (")[-1].split(":")[0].rsplit("/", 1)[-1] + ")"
            for f in stack.split(";")
        ]
        for frame in set(frames):
            inclusive[frame] += n
        own[frames[-1]] += n
    print(f"{total} samples")
    print("inclusive:")
    for frame, n in inclusive.most_common(top):
        print(f"  {100 * n / total:5.1f}%  {frame}")
    print("self:")
    for frame, n in own.most_common(top):
        print(f"  {100 * n / total:5.1f}%  {frame}")


async def run_closed(
    args: argparse.Namespace,
    http: httpx.AsyncClient,
    redis: Redis,
    keys: Keys,
    bot_url: str,
    bare_url: str,
    processes: list[subprocess.Popen[bytes]],
) -> None:
    """The closed-loop bench: rates and the ratio of rates."""
    tables = [Table(redis, keys, n) for n in range(args.games)]
    ours = await closed_loop(http, bot_url, tables, args.games, args.seconds)
    span = ours.last_at - ours.first_at
    print(f"bot: {ours.count() / span:.1f} updates/s, statuses {dict(ours.statuses)}")
    for kind, latencies in sorted(ours.by_kind.items()):
        report(kind, latencies, span)
    stop(processes[1])  # its backlog of sends would share the machine with the bare run
    bare = await closed_loop(http, bare_url, None, args.games, args.seconds)
    bare_span = bare.last_at - bare.first_at
    print(f"bare: {bare.count() / bare_span:.1f} updates/s")
    report("button", bare.by_kind.get("button", []), bare_span)
    ratio = (ours.count() / span) / (bare.count() / bare_span)
    print(f"ratio bot/bare: {ratio:.2f} (target: at least 0.5)")


async def run_open(
    args: argparse.Namespace,
    http: httpx.AsyncClient,
    redis: CountingRedis,
    keys: Keys,
    sim_url: str,
    bot_url: str,
    bare_url: str,
    processes: list[subprocess.Popen[bytes]],
) -> None:
    """The open-loop bench: the bot at a fixed rate (with full-window groups), then the
    bare handler at the same rate, then (optionally) both closed loop."""
    base = -(5_000_000 + os.getpid() % 1000 * 100)
    control = base - 99
    references = await reference_replies(http, bot_url, sim_url, control)
    full = FullGroups(
        redis, keys, [base - g for g in range(args.full_groups)], args.group_per_minute
    )
    # Full for the whole phase and a little longer, then free, so that the replies queued
    # meanwhile can be delivered and counted.
    await full.fill(args.warmup + args.seconds + 5)
    every = round(1 / args.full_share) if args.full_share > 0 and full.groups else 0

    def extra(i: int) -> tuple[str, dict[str, Any]] | None:
        return full.next(300_000 + i) if every and i % every == every // 2 else None

    async def classify(item: Ready) -> str:
        if item.kind == "board":
            return (
                "command, window full" if await full.is_full(item.chat) else "command, window free"
            )
        return item.kind

    tables = [Table(redis, keys, n, BOARD_EVERY) for n in range(args.games)]
    print(f"load before the bot's phase: {load_average()}")
    spy = asyncio.create_task(profile(args, processes[1].pid)) if args.profile else None
    pid = processes[1].pid
    use = {"before": (await bot_commands(redis), rss_mb(pid))}

    async def measure_from() -> None:
        use["start"] = (await bot_commands(redis), rss_mb(pid))

    ours = await open_loop(
        http,
        bot_url,
        args.rate,
        args.seconds,
        [t.updates() for t in tables],
        extra,
        classify,
        args.warmup,
        measure_from,
    )
    use["end"] = (await bot_commands(redis), rss_mb(pid))
    bot = report_open("bot", ours, args.rate)
    by_name = use["end"][0] - use["start"][0]
    ran, answered = by_name.total(), max(1, ours.count())
    print(
        f"bot: {ran} Redis commands in the measured phase for {ours.count()} updates answered: "
        f"{ran / answered:.1f} commands per update; RSS "
        f"{use['before'][1]:.1f} MB before the load, {use['start'][1]:.1f} MB after the "
        f"warm-up, {use['end'][1]:.1f} MB at the end"
    )
    print(
        "  per update: "
        + ", ".join(f"{name} {n / answered:.1f}" for name, n in by_name.most_common(10))
    )
    await bot_pauses(http, bot_url.rsplit("/", 1)[0] + "/metrics")
    if args.timeline:
        ours.timeline(args.timeline)
    if spy is not None:
        await spy
    sat = None
    if args.capacity:
        more = [Table(redis, keys, 500 + n) for n in range(args.games)]
        sat = await closed_loop(http, bot_url, more, args.games, args.capacity)
    total, once, twice, waited = await check_delivered(http, sim_url, full, references, 90)
    print(
        f"full-window replies: {total} queued, {once} delivered once, {twice} extra copies "
        f"(counted in the sim after {waited:.0f} s)"
    )
    stats = (await http.get(f"{sim_url}/sim/stats")).json()
    print(f"sim: 429 answers to groups {stats['group_429']}")
    stop(processes[1])  # its backlog of sends would share the machine with the bare run
    if args.skip_bare:
        return
    print(f"load before the bare phase: {load_average()}")
    bare = await open_loop(
        http,
        bare_url,
        args.rate,
        args.seconds,
        [bare_updates(n) for n in range(args.games)],
        warmup=min(args.warmup, 2),
    )
    base_figures = report_open("bare", bare, args.rate)
    ours_p99 = bot.get("button", {}).get("p99")
    bare_p99 = base_figures.get("button", {}).get("p99")
    if ours_p99 and bare_p99:
        print(f"buttons p99, bare/bot at {args.rate:.0f}/s: {bare_p99 / ours_p99:.2f}")
    if sat is not None:
        bare_sat = await closed_loop(http, bare_url, None, args.games, args.capacity)
        ours_rate = sat.count() / (sat.last_at - sat.first_at)
        bare_rate = bare_sat.count() / (bare_sat.last_at - bare_sat.first_at)
        print(
            f"capacity (closed loop, {args.games} tables, {args.capacity:.0f} s): bot "
            f"{ours_rate:.1f}/s, bare {bare_rate:.1f}/s, ratio {ours_rate / bare_rate:.2f} "
            "(target: at least 0.5)"
        )


if __name__ == "__main__":
    # SIGTERM (a timeout, say) unwinds like an error, so the helper processes are stopped.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    asyncio.run(main())
