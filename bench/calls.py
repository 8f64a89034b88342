"""Telegram calls per turn and per game, the busiest minute in the group, and 429s.

Plays 6-player games through the real webhook app and Redis against the simulated Bot API,
each decision taken by a fixed policy on the player's own button, and counts every Bot API
call. Meanwhile an onlooker sends /help to the busy group every `--help-every` seconds:
how long its reply took to arrive (the sim's clock, from the webhook's answer) is a
command reply's latency in a busy group; the end's lag is from the webhook's answer to
the game's last press to the first group message or edit that names the winner.
Decisions come from the tests' fixed policy (a rotation that challenges most claims early,
then Coup or Income), or with `--ai` from the bot's own AI at every seat.
With `--seed N` every game's shuffle comes from one RNG seeded with N, so runs compare
(the deals repeat; the pace and the AI are seeded by the group already).
With `--in-page K` the first K players of each table follow the game in the Mini App (its
event stream open) and decide there (`POST /app/api/decide`), the others in the chat: asked
in the page first, their private prompts are held `APP_FIRST_SECONDS` and not sent at all
when they decide in time; the private calls per turn are told apart for both.
Run: `python bench/calls.py [--games 3] [--group-rate 20] [--pace 1.5-5] [--ai] [--seed N]
[--in-page K]`.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import random
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("PTB_TIMEDELTA", "1")

from tests.redis_server import redis_url
from tests.resilience.test_kill9 import (
    open_and_fill,
    play_one,
    policy,
    post_until_accepted,
    wait_for_prompt,
)
from tests.telegram_sim.harness import Harness, TgUser, running_bot
from tests.webapp.client import Page
from tests.webapp.test_streams_and_requests import close, open_stream
from tgbot import metrics
from tgbot.ai.player import choose
from tgbot.config import Config
from tgbot.contract import callbacks as buttons
from tgbot.contract.plan import END, REPLY, Edit
from tgbot.engine import Decision, DecisionKind, Game, view_of
from tgbot.service import game_service
from tgbot.telegram import sender as sender_module
from tgbot.telegram.commands import help_text

ANSWER_HOLD_MS = Config(bot_token="1:x").answer_edit_hold_ms  # the production default


def busiest_minute(times: list[float]) -> int:
    """The most calls in any 60-second window."""
    best = 0
    start = 0
    for end, t in enumerate(times):
        while t - times[start] > 60:
            start += 1
        best = max(best, end - start + 1)
    return best


def _private_message(c: object) -> bool:
    """Whether a call sent or edited a message in a private chat (and Telegram took it)."""
    params = getattr(c, "params", {})
    return (
        getattr(c, "method", "") in ("sendMessage", "editMessageText")
        and getattr(c, "status", 0) == 200
        and int(params.get("chat_id", 0)) > 0
    )


def _echo_close(c: object) -> bool:
    """Whether a private edit only closes a prompt with the choice made (one line, no
    buttons left): the close a busy bot may drop."""
    params = getattr(c, "params", {})
    text = str(params.get("text", ""))
    return (
        getattr(c, "method", "") == "editMessageText"
        and not params.get("reply_markup")
        and "\n" not in text
    )


def private_kind(c: object) -> str:
    """A private call's kind: a prompt sent, a prompt shown in place of the last one, a
    closing edit (no buttons left), or a plain message, named by its first line's start."""
    params = getattr(c, "params", {})
    buttons = bool(params.get("reply_markup"))
    first = str(params.get("text", "")).split("\n", 1)[0][:14]
    if getattr(c, "method", "") == "sendMessage":
        return f"send, prompt: {first}" if buttons else f"send, plain: {first}"
    return f"edit, prompt in place: {first}" if buttons else f"edit, close: {first}"


def percentiles(values: list[float]) -> str:
    """max, p99 and p50 of some seconds, as one phrase."""
    if not values:
        return "none"
    v = sorted(values)
    p99 = v[int(0.99 * (len(v) - 1))]
    return f"max {v[-1]:.2f} s, p99 {p99:.2f} s, p50 {v[len(v) // 2]:.2f} s, n={len(v)}"


class Onlooker:
    """Sends /help to a group now and then while a game is played there, and times the
    replies; notes the time of every press on a game's buttons."""

    def __init__(self, h: Harness, every: float) -> None:
        self.h = h
        self.every = every
        self.asked: dict[int, list[float]] = {}  # group -> when each /help was answered 200
        self.pressed: dict[str, float] = {}  # game id -> when its latest press was answered
        post = h.post

        async def timed_post(update: dict, *args: object, **kwargs: object) -> object:
            response = await post(update, *args, **kwargs)  # type: ignore[arg-type]
            data = str(update.get("callback_query", {}).get("data", ""))
            if response.status_code == 200 and "." in data:
                self.pressed[data.split(".")[0]] = time.monotonic()
            return response

        h.post = timed_post  # type: ignore[method-assign]

    async def ask(self, group: int) -> None:
        """Every `every` seconds, /help in the group, from someone not playing."""
        user = TgUser(99_000, "Onlooker")
        while True:
            await asyncio.sleep(self.every)
            response = await self.h.post(self.h.message_update(user, group, "/help"))
            if response.status_code == 200:
                self.asked.setdefault(group, []).append(time.monotonic())

    def reply_lags(self, group: int, text: str) -> tuple[list[float], int]:
        """Seconds from each /help to its reply's arrival; how many never arrived."""
        arrived: list[float] = []
        for c in self.h.sim.calls_to(group, "sendMessage"):
            if c.status == 200:
                arrived += [c.at] * str(c.params.get("text", "")).count(text)
        asked = self.asked.get(group, [])
        lags = [at - t for t, at in zip(asked, arrived, strict=False)]
        return lags, len(asked) - len(lags)

    def end_lag(self, group: int, game_id: str, winner_line: str) -> float | None:
        """Seconds from the game's last press to the first group call naming the winner."""
        last = self.pressed.get(game_id)
        shown = [
            c.at
            for c in self.h.sim.calls_to(group)
            if c.status == 200 and winner_line in str(c.params.get("text", ""))
        ]
        return None if last is None or not shown else min(shown) - last


async def play_in_pages(
    h: Harness,
    group: int,
    users: list[TgUser],
    in_page: int,
    pace: tuple[float, float] | None,
    decide: Callable[[Game, int], Decision],
    pressed: dict[str, float],
) -> str:
    """`play_one` with the first `in_page` players following the game in the Mini App from
    the lobby on (their event streams open) and deciding there; the rest press the chat's
    buttons. Their streams close once the game is over. `pressed`: when each game's latest
    decision from a page was answered (the onlooker notes the chat's)."""
    if not in_page:
        return await play_one(h, group, users, pace, decide=decide)
    rng = random.Random(group)
    game_id = await open_and_fill(h, group, users)
    pages = {u.id: Page(h, u) for u in users[:in_page]}
    streams = [(await open_stream(h, await p.events_url(game_id)))[1] for p in pages.values()]
    try:
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
            seats = [p.id for p in game.players]
            code = buttons.encode_decision(decide(game, player), seats)
            if pace is not None:
                await asyncio.sleep(rng.uniform(*pace))
            if player in pages:
                answer = await pages[player].decide(game_id, record.rev, code)
                if answer.status_code == 200:
                    pressed[game_id] = time.monotonic()
                continue  # (refused as out of date: look again)
            at_table = game.awaiting().kind is DecisionKind.RESPONSE and record.answers == "table"
            chat = group if at_table else player
            prefix = f"{game_id}.{record.context}."
            message_id = await wait_for_prompt(h, chat, prefix)
            user = next(u for u in users if u.id == player)
            data = buttons.pack(game_id, record.context, code)
            await post_until_accepted(h, h.press_update(user, chat, message_id, data))
    finally:
        await close(*streams)
    raise AssertionError(f"the game {game_id} did not end")


def ai_table(seed: int) -> Callable[[Game, int], Decision]:
    """Every seat decided by the bot's own AI (`tgbot/ai`), seeded: a table that claims,
    challenges and blocks about as people do, rather than `policy`'s fixed rotation."""
    rng = random.Random(seed)
    return lambda game, player: choose(view_of(game, player), rng)


async def run(
    games: int,
    group_rate: int,
    pace: tuple[float, float] | None,
    help_every: float,
    by_ai: bool = False,
    in_page: int = 0,
    show_private: bool = False,
) -> None:
    # (chat, optional, seconds since the oldest state it carries was queued)
    lags: list[tuple[int, bool, float]] = []
    observe = metrics.observe_delivery

    def watch(
        chat: int, kind: str, queued_ms: int | None, now_ms: int, optional: bool = False
    ) -> None:
        observe(chat, kind, queued_ms, now_ms, optional)
        # The sender names the op's class (contract/plan's END ... STATUS): a command's
        # reply is not the game's lag. An edit its lane may leave behind (an optional
        # story state) is told apart from what the group must show.
        if queued_ms is not None and kind != "reply":
            lags.append((chat, optional or kind == "status", (now_ms - queued_ms) / 1000))

    metrics.observe_delivery = watch  # the sender calls it for every message it delivers
    kinds_seen: Counter[tuple[int, str]] = Counter()  # (chat, kind of call) delivered
    deliver = sender_module.Sender._deliver

    async def counted(self: object, game_id: str, item: object, *args: object) -> None:
        await deliver(self, game_id, item, *args)  # type: ignore[arg-type]
        kinds_seen[(item.op.chat, kind_of(item))] += 1  # type: ignore[attr-defined]

    sender_module.Sender._deliver = counted  # type: ignore[method-assign,assignment]
    with redis_url() as url:
        async with running_bot(url, group_rate=group_rate, hold_ms=ANSWER_HOLD_MS) as h:
            turns = 0
            groups = [-(700_000 + g) for g in range(games)]
            onlooker = Onlooker(h, help_every)
            t = h.catalogs.get("ka")
            end_lags: list[float] = []
            reply_lags: list[float] = []
            unanswered_help = 0
            played_s = 0.0  # from each game's start to its last decision
            page_players: set[int] = set()
            for g, group in enumerate(groups):
                users = [TgUser(80_000 + g * 10 + i, f"P{g}{i}") for i in range(6)]
                page_players |= {u.id for u in users[:in_page]}
                asking = asyncio.create_task(onlooker.ask(group))
                try:
                    decide = ai_table(group) if by_ai else policy
                    began = time.monotonic()
                    game_id = await play_in_pages(
                        h, group, users, in_page, pace, decide, onlooker.pressed
                    )
                    played_s += time.monotonic() - began
                finally:
                    asking.cancel()
                record = await h.record(game_id)
                assert record is not None and record.seed is not None
                winner = record.game().winner
                name = next(u.first_name for u in users if u.id == winner)
                winner_line = t.gettext("🏆 {winner} wins!").format(winner=name)
                for _ in range(1200):  # the end may still wait for the group's minute
                    lag = onlooker.end_lag(group, game_id, winner_line)
                    if lag is not None:
                        end_lags.append(lag)
                        break
                    await asyncio.sleep(0.1)
                turns += record.turns  # the game's TurnStarted events
                # Optional edits (a story state with no buttons) may still wait for a quiet
                # spell: counted once they are out, as the group will see them.
                await h.delivered(game_id, 900)
            await asyncio.sleep(3)  # let the last deliveries land
            for group in groups:
                await h.replied(group, 120)  # every /help answered (or the figure says not)
                lags_here, missing = onlooker.reply_lags(group, help_text(t))
                reply_lags += lags_here
                unanswered_help += missing
            game_calls = [
                c
                for c in h.sim.calls
                if c.method not in ("getMe", "setWebhook", "setMyCommands", "deleteWebhook")
                and not (c.method == "sendMessage" and c.params.get("text", "").startswith("👋"))
                and help_text(t) not in str(c.params.get("text", ""))  # the onlooker's replies
            ]
            by_method = Counter(c.method for c in game_calls)
            worst = max(
                busiest_minute(
                    sorted(
                        c.at
                        for c in h.sim.calls
                        if c.method in ("sendMessage", "editMessageText")
                        and c.status == 200
                        and int(c.params.get("chat_id", 0)) == group
                    )
                )
                for group in groups
            )
            messages = Counter(
                ("group" if int(c.params.get("chat_id", 0)) in groups else "private", c.method)
                for c in game_calls
                if c.method in ("sendMessage", "editMessageText") and c.status == 200
            )
            too_many = sum(1 for c in h.sim.calls if c.status == 429)
            unanswered = sum(
                1 for c in h.sim.calls if c.method == "answerCallbackQuery" and c.status != 200
            )
            print(
                f"games: {games} (6 players, {in_page} in the page), turns: {turns}, "
                f"pace: {pace or 'machine'}, "
                f"decided by: {'the AI' if by_ai else 'the fixed policy'}"
            )
            print(f"Bot API calls: {len(game_calls)} {dict(by_method)}")
            sent_or_edited = sum(messages.values())
            print(
                f"messages sent or edited per turn, all chats: {sent_or_edited / turns:.2f} "
                "(target: at most 3.6; press answers not counted)"
            )
            for (where, method), n in sorted(messages.items()):
                print(f"  {where} {method}: {n / turns:.2f} per turn")
            in_group = sum(n for (where, _), n in messages.items() if where == "group")
            print(
                f"group calls per turn: {in_group / turns:.2f} (target: at most 2.1); "
                f"private: {(sent_or_edited - in_group) / turns:.2f}"
            )
            private = Counter(
                (int(c.params.get("chat_id", 0)) in page_players, c.method)
                for c in game_calls
                if int(c.params.get("chat_id", 0)) > 0 and c.status == 200
            )
            if show_private:
                for c in game_calls:
                    chat = int(c.params.get("chat_id", 0))
                    if chat > 0 and c.status == 200:
                        text = str(c.params.get("text", "")).replace("\n", " / ")[:90]
                        print(f"  private {c.method} to {chat}: {text}")
            for in_app, who in ((True, "in the page"), (False, "in the chat")):
                seats = in_page if in_app else 6 - in_page
                if not seats:
                    continue
                mine = {m: n for (a, m), n in private.items() if a == in_app}
                print(
                    f"private calls per turn to the {seats} of 6 {who}: "
                    f"{sum(mine.values()) / turns:.2f} {dict(sorted(mine.items()))}"
                    + (" (target, the whole table in the page: at most 0.2)" if in_app else "")
                )
            kinds = Counter(private_kind(c) for c in game_calls if _private_message(c))
            print("private calls per turn by kind:")
            for kind, n in kinds.most_common():
                print(f"  {kind}: {n / turns:.2f}")
            minutes = played_s / 60
            per_minute = sent_or_edited / minutes
            print(
                f"turns a minute the table reaches: {turns / minutes:.2f} "
                f"({minutes / games:.1f} min a game); messages sent or edited a game-minute: "
                f"{per_minute:.1f}, so busy games per bot token (30 a second): "
                f"{1800 / per_minute:.0f} (target: at least 120)"
            )
            # A close that only echoes the choice (one line, no buttons) is optional: a bot
            # whose 30 a second are busy skips its text, and takes its buttons off later
            # (one call in a quiet second), so only a bot with quiet seconds saves it.
            echoes = sum(1 for c in game_calls if _private_message(c) and _echo_close(c))
            required = (sent_or_edited - echoes) / minutes
            print(
                f"optional private closes (an echo, postponed when the bot is busy): "
                f"{echoes / turns:.2f} per turn; without them, all chats "
                f"{(sent_or_edited - echoes) / turns:.2f} per turn, private "
                f"{(sent_or_edited - in_group - echoes) / turns:.2f}, "
                f"busy games per bot token {1800 / required:.0f}"
            )
            print("group calls per turn by kind (as the sender delivered them):")
            by_kind: Counter[str] = Counter()
            for (chat, kind), n in kinds_seen.items():
                if chat in groups:
                    by_kind[kind] += n
            for kind, n in by_kind.most_common():
                print(f"  {kind}: {n / turns:.2f}")
            print(f"calls per turn (press answers too): {len(game_calls) / turns:.2f}")
            print(f"calls per game: {len(game_calls) / games:.0f}")
            print(f"most group messages and edits in any 60 s: {worst} (target: at most 18)")
            kinds = {
                "all it delivers": (False, True),
                "what it must show (new messages, edits it may not leave behind)": (False,),
                "edits it may leave behind (optional story states)": (True,),
            }
            for kind, which in kinds.items():
                group_lags = [lag for chat, opt, lag in lags if chat in groups and opt in which]
                print(f"the group behind the game, {kind}: {percentiles(group_lags)}")
            print(
                f"a /help reply in the busy group: {percentiles(reply_lags)}"
                f" (target: at most 5 s), never answered: {unanswered_help}"
            )
            print(f"the end after the last decision: {percentiles(end_lags)} (target: at most 3 s)")
            print(f"429 answers: {too_many}, failed press answers: {unanswered}")


def kind_of(item: object) -> str:
    """What a delivered group call is, from its op (bench/README.md's breakdown)."""
    op = item.op  # type: ignore[attr-defined]
    if isinstance(op, Edit):
        if op.closes is not None:
            return "edit: close a copy's buttons"
        if op.rank == REPLY:
            return "edit: answer to a press (settings)"
        if op.optional:
            return "edit, optional: a story state"
        if op.kb:
            return "edit with buttons (a block's window, the lobby)"
        return "edit, no buttons: a verdict, a quiet turn, the lobby closed"
    if op.rank == END:
        return "send: the end"
    if op.rank == REPLY:
        return "send: a reply to a command"
    if op.kb:
        return "send with buttons: a claim, the lobby"
    return "send, no buttons: the deal/table, a quiet turn"


def seed_the_deals(seed: int) -> None:
    """Every game's shuffle seed drawn from one RNG seeded with `seed` (the service's
    default draws them from `secrets`; the bench swaps that module for its own RNG)."""
    rng = random.Random(seed)
    game_service.secrets = SimpleNamespace(randbits=rng.getrandbits)  # type: ignore[assignment]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--group-rate", type=int, default=20, help="group messages a minute")
    parser.add_argument(
        "--pace",
        default="",
        help="human pace: seconds between presses, as LOW-HIGH (say 1.5-5); default: at once",
    )
    parser.add_argument(
        "--help-every", type=float, default=20.0, help="seconds between /help in the group"
    )
    parser.add_argument(
        "--ai",
        action="store_true",
        help="every seat decided by the bot's AI (default: the tests' fixed policy)",
    )
    parser.add_argument("--seed", type=int, default=None, help="repeatable deals")
    parser.add_argument(
        "--in-page",
        type=int,
        default=0,
        choices=range(7),
        help="players of each table (of 6) who follow and decide in the Mini App",
    )
    parser.add_argument(
        "--show-private", action="store_true", help="print every private call's text"
    )
    args = parser.parse_args()
    if args.seed is not None:
        seed_the_deals(args.seed)
    pace = tuple(float(x) for x in args.pace.split("-")) if args.pace else None
    print(f"machine: {platform.machine()} cpus={os.cpu_count()} python {platform.python_version()}")
    asyncio.run(
        run(
            args.games,
            args.group_rate,
            pace,  # type: ignore[arg-type]
            args.help_every,
            args.ai,
            args.in_page,
            args.show_private,
        )
    )


if __name__ == "__main__":
    main()
