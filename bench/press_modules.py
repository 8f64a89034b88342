"""Which of our modules one Income press runs code in: before the HTTP answer, during its
delivery, and in all; with the calls into tgbot, the calls from one file into another and
the changes of room, traced at run time with `sys.setprofile`.

The press is bench/press.py's: a 2-player game is opened and started through the real
webhook app (`tests/telegram_sim/harness.running_bot`, webhook mode) against the simulated
Bot API and a private Redis; once its deliveries are done, the first player presses Income
on their private turn prompt. The tracer runs from the POST until the outbox is empty and
every task the press started has finished.

How it counts:
- A *call* is the first entry of a function whose code is in a file under tgbot/: a plain
  call, and a coroutine or generator when it starts (the profiler reports every resume as
  a "call"; a frame counts only while `f_lasti` is at or before its code's first RESUME).
  Comprehensions and generator expressions are part of their function and not counted
  (Python 3.12 inlines list, dict and set comprehensions). Code generated at run time (a
  dataclass's `__init__`, whose file is "<string>") is not ours and not counted; code of
  ours that a library calls (the rate limiter, the webhook's endpoint) is.
- A *module entered* is a file under tgbot/ in which at least one call ran. An
  `__init__.py` that only re-exports names is never entered (importing ran before the
  press); one counts only if a function written in it ran. "Of N" is every .py file
  under tgbot/.
- A call's *caller* is the nearest frame up the chain (`f_back`; an awaited coroutine's is
  the one awaiting it) whose code is ours; a call with none (a task's first step, a
  library's callback at the top, a gc callback that the interpreter ran on whatever
  allocated) has no caller. A *cross-file call* has a caller in another file; a *change
  of room* has a caller in another room (the folder under tgbot/, or the top-level
  module: `bootstrap`, `metrics`, `run`, ...). "File pairs" counts the distinct (caller
  file, callee file) of the cross-file calls.
- The app is built as the tests build it (`run.webhook_app`); its lifespan puts the
  runtime in the app's state, and the webhook's endpoint calls it directly.
- *Before the HTTP answer* is code run in the request's own task (the ASGI call of the
  press's POST, from the bot's app to its response: what the answer waits for).
  *Delivery* is code run in the tasks the request started, and theirs in turn (contexts
  are inherited, so a context variable set at the request marks them): the delivery of
  the step's messages and what it starts (the rate limiter, the lease keeper, the
  prompt-delivered commit). Neither depends on the order the event loop runs them in.
- Not counted: tgbot code that ran meanwhile in the bot's background loops (deadlines,
  the outbox sweep, gauges) and in this script's own reads (the harness waits on the
  outbox through the store); their modules are printed apart, so a sweep that delivered
  the press's messages instead of the press's own task would show.

Run: `python bench/press_modules.py [--press income|challenge] [--presses 3] [--modules]
[--functions] [--rooms] [--changes]`. `--changes` lists each change of room before the
answer, caller and callee function. `--press challenge`: the first player claims Tax, and
the other's Challenge press on the group's turn message is traced. Each press also prints
how many times, before the HTTP answer, a game record was decoded and a game rebuilt
from its stored state. To measure another commit, check it out in a worktree and run
this file from its root (it puts the root it sits in first on sys.path; it prints which
tgbot it traced). On 4df5cbf, the
commit the outside architecture review of 2026-12-01 (b) traced, it gives that review's
33 of 61 modules.
"""

from __future__ import annotations

import argparse
import asyncio
import contextvars
import dis
import gc
import os
import platform
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Awaitable, Callable, Coroutine, Generator
from dataclasses import dataclass, field
from pathlib import Path
from types import CodeType, FrameType
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("PTB_TIMEDELTA", "1")

import tgbot
import tgbot.run
from tests.bot.play import first_income_press, open_and_start, players
from tests.redis_server import redis_url
from tests.telegram_sim import harness
from tests.telegram_sim.harness import running_bot

TGBOT = Path(tgbot.__file__).resolve().parent
INLINE = {"<listcomp>", "<dictcomp>", "<setcomp>", "<genexpr>"}
PHASES = ("answer", "delivery")

harness_app = tgbot.run.webhook_app  # as the tests build the bot
_press: contextvars.ContextVar[bool] = contextvars.ContextVar("press", default=False)
Asgi = Callable[[dict[str, Any], Any, Any], Awaitable[None]]


@dataclass
class Press:
    """What one traced press ran, by phase: (caller module or None, callee module) per call."""

    calls: dict[str, list[tuple[str | None, str]]] = field(
        default_factory=lambda: defaultdict(list)
    )
    by_task: Counter[str] = field(default_factory=Counter)  # calls by the task's coroutine
    functions: dict[str, Counter[str]] = field(default_factory=lambda: defaultdict(Counter))
    # (module, function) entered before the HTTP answer, times: decodes and rebuilds
    answered: Counter[tuple[str, str]] = field(default_factory=Counter)
    # "caller module.function -> callee module.function" of each change of room before the answer
    changes: Counter[str] = field(default_factory=Counter)
    request: asyncio.Task[Any] | None = None
    started: list[asyncio.Task[Any]] = field(default_factory=list)
    armed: bool = False


press = Press()


def module_name(path: Path) -> str:
    """tgbot/service/play.py -> service/play; tgbot/engine/__init__.py -> engine/__init__."""
    return path.relative_to(TGBOT).with_suffix("").as_posix()


def room(module: str) -> str:
    """A module's room: its folder, or the top-level module itself."""
    return module.split("/", 1)[0]


class Tracer:
    """A `sys.setprofile` hook recording each first entry of a function of ours."""

    def __init__(self) -> None:
        self._codes: dict[CodeType, tuple[str, int] | None] = {}
        self.elsewhere: Counter[str] = Counter()
        self._gc_codes = {c.__code__ for c in gc.callbacks if hasattr(c, "__code__")}

    def _ours(self, code: CodeType) -> tuple[str, int] | None:
        """(module, offset of the first RESUME) for code of ours, else None."""
        try:
            return self._codes[code]
        except KeyError:
            pass
        found = None
        path = Path(code.co_filename)
        if path.is_absolute() and path.is_relative_to(TGBOT):
            resume = next(i.offset for i in dis.get_instructions(code) if i.opname == "RESUME")
            found = (module_name(path), resume)
        self._codes[code] = found
        return found

    def hook(self, frame: FrameType, event: str, _arg: object) -> None:
        """Record a first entry of our code, with its caller and phase."""
        if event != "call":
            return
        code = frame.f_code
        ours = self._ours(code)
        if ours is None or frame.f_lasti > ours[1] or code.co_name in INLINE:
            return
        caller = None
        caller_name = ""
        # The interpreter runs gc's callbacks (metrics' pause timer) on whatever allocated:
        # nobody called them.
        up = None if code in self._gc_codes else frame.f_back
        while up is not None:
            found = self._ours(up.f_code)
            if found is not None:
                caller, caller_name = found[0], up.f_code.co_qualname
                break
            up = up.f_back
        if not _press.get():
            self.elsewhere[ours[0]] += 1
            return
        try:
            task = asyncio.current_task()
        except RuntimeError:
            task = None
        phase = "answer" if task is not None and task is press.request else "delivery"
        press.calls[phase].append((caller, ours[0]))
        press.functions[ours[0]][code.co_qualname] += 1
        if phase == "answer":
            press.answered[ours[0], code.co_qualname] += 1
            if caller is not None and room(caller) != room(ours[0]):
                press.changes[f"{caller}.{caller_name} -> {ours[0]}.{code.co_qualname}"] += 1
        press.by_task["the request" if phase == "answer" else _coro_name(task)] += 1


def _coro_name(task: asyncio.Task[Any] | None) -> str:
    return "no task" if task is None else str(getattr(task.get_coro(), "__qualname__", "?"))


def marked(app: Asgi) -> Asgi:
    """The bot's ASGI app, marking the press's request (and what it starts) while armed."""

    async def asgi(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http" and press.armed:
            _press.set(True)
            press.request = asyncio.current_task()
        await app(scope, receive, send)

    return asgi


def task_factory(
    loop: asyncio.AbstractEventLoop,
    coro: Coroutine[Any, Any, Any] | Generator[Any, None, Any],
    context: contextvars.Context | None = None,
) -> asyncio.Task[Any]:
    """Make tasks as usual; keep the ones the press started, to wait for them."""
    task = asyncio.Task(coro, loop=loop, context=context)
    if context.get(_press, False) if context is not None else _press.get():
        press.started.append(task)
    return task


def figures(calls: list[tuple[str | None, str]]) -> dict[str, Any]:
    """Modules, calls, cross-file calls, file pairs and changes of room of some calls."""
    cross = [(a, b) for a, b in calls if a is not None and a != b]
    return {
        "modules": sorted({b for _, b in calls}),
        "calls": len(calls),
        "cross-file calls": len(cross),
        "file pairs": len(set(cross)),
        "changes of room": sum(1 for a, b in cross if room(a) != room(b)),
    }


# What "a record decoded" and "a game rebuilt" are: the functions that do each.
RECORD_DECODES = ("service/records", "GameRecord.from_dict")
GAME_REBUILDS = ("engine/serial", "game_from_dict")


async def challenge_press(h: Any, users: list[Any], group: int, game_id: str) -> dict[str, Any]:
    """The first player claims Tax on their prompt; the update of the other pressing
    Challenge on the group's turn message (answers at the table, the default)."""
    actor = next(u for u in users if h.sim.with_buttons(u.id))
    await h.press_text(actor, actor.id, h.tr("👑 Tax"))
    await h.delivered(game_id)
    await h.until(lambda: bool(h.sim.with_buttons(group)))
    turn_message = h.sim.with_buttons(group)[-1]
    other = next(u for u in users if u != actor)
    data = turn_message.button(h.tr("⚔️ Challenge"))["callback_data"]
    return h.press_update(other, group, turn_message.message_id, data)  # type: ignore[no-any-return]


async def one_press(
    url: str, group: int, first_id: int, kind: str
) -> tuple[Press, Counter[str], float]:
    """Trace one press (Income or Challenge); return it, the tgbot calls not counted, ms to
    the answer."""
    global press
    async with running_bot(url) as h:
        users = players(2, first_id=first_id)
        game_id = await open_and_start(h, users, group)
        await h.delivered(game_id)
        await asyncio.sleep(1.0)
        if kind == "challenge":
            update = await challenge_press(h, users, group, game_id)
            await asyncio.sleep(1.0)
        else:
            _actor, update = first_income_press(h, users)
        press = Press(armed=True)
        tracer = Tracer()
        loop = asyncio.get_running_loop()
        loop.set_task_factory(task_factory)
        sys.setprofile(tracer.hook)
        started = time.perf_counter()
        try:
            response = await h.post(update)
            took = (time.perf_counter() - started) * 1000
            press.armed = False
            await h.delivered(game_id)
            while not all(t.done() for t in press.started):
                await asyncio.wait([t for t in press.started if not t.done()], timeout=10)
        finally:
            sys.setprofile(None)
            loop.set_task_factory(None)
        assert response.status_code == 200, response.text
    return press, tracer.elsewhere, took


def show(name: str, got: dict[str, Any], of: int | None = None) -> None:
    """One line of figures."""
    modules = f"{len(got['modules'])}" + (f" of {of}" if of else "")
    print(
        f"  {name}: {modules} modules, {got['calls']} calls into tgbot, "
        f"{got['cross-file calls']} cross-file calls ({got['file pairs']} file pairs), "
        f"{got['changes of room']} changes of room"
    )


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--presses", type=int, default=3)
    parser.add_argument(
        "--press", choices=("income", "challenge"), default="income", help="which press to trace"
    )
    parser.add_argument("--modules", action="store_true", help="list the modules of each press")
    parser.add_argument("--functions", action="store_true", help="and the functions entered")
    parser.add_argument(
        "--rooms", action="store_true", help="the changes of room before the answer, by rooms"
    )
    parser.add_argument(
        "--changes",
        action="store_true",
        help="each change of room before the answer, caller and callee function",
    )
    args = parser.parse_args()
    wrapped = lambda *a, **k: marked(harness_app(*a, **k))  # noqa: E731
    harness.webhook_app = wrapped  # type: ignore[attr-defined,assignment]
    total = sum(1 for _ in TGBOT.rglob("*.py"))
    print(f"machine: {platform.machine()} cpus={os.cpu_count()} python {platform.python_version()}")
    print(f"tgbot traced: {TGBOT} ({total} modules)")
    seen: list[tuple[str, ...]] = []
    with redis_url() as url:
        for i in range(args.presses):
            traced, elsewhere, took = await one_press(
                url, -(410_000 + i), 41_000 + i * 10, args.press
            )
            phases = {p: figures(traced.calls[p]) for p in PHASES}
            whole = figures([c for p in PHASES for c in traced.calls[p]])
            print(f"{args.press} press {i + 1} (answered in {took:.0f} ms, traced):")
            show("before the HTTP answer", phases["answer"])
            show("delivery", phases["delivery"])
            show("in all", whole, total)
            print(
                f"  before the HTTP answer: {traced.answered[RECORD_DECODES]} record decodes "
                f"({'.'.join(RECORD_DECODES)}), {traced.answered[GAME_REBUILDS]} game rebuilds "
                f"({'.'.join(GAME_REBUILDS)})"
            )
            tasks = Counter(_coro_name(t) for t in traced.started)
            print(f"  tasks the press started: {dict(tasks)}")
            print(f"  calls into tgbot by task: {dict(traced.by_task)}")
            print(f"  not counted (background loops, the bench's reads): {sorted(elsewhere)}")
            seen.append(tuple(whole["modules"]))
            if args.modules or i == args.presses - 1:
                print("  modules entered (a: before the answer, d: delivery; calls into each):")
                by_room: dict[str, list[str]] = defaultdict(list)
                into = Counter(b for p in PHASES for _, b in traced.calls[p])
                for m in whole["modules"]:
                    where = "".join(
                        s
                        for s, p in (("a", "answer"), ("d", "delivery"))
                        if m in phases[p]["modules"]
                    )
                    by_room[room(m)].append(f"{m.split('/')[-1]} ({where} {into[m]})")
                for r, names in sorted(by_room.items()):
                    print(f"    {r}: {', '.join(names)}")
            if args.rooms and i == args.presses - 1:
                pairs = Counter(
                    f"{room(a)} -> {room(b)}"
                    for a, b in traced.calls["answer"]
                    if a is not None and room(a) != room(b)
                )
                print("  changes of room before the HTTP answer, by caller -> callee room:")
                for pair, n in pairs.most_common():
                    print(f"    {pair}: {n}")
            if args.changes and i == args.presses - 1:
                print("  changes of room before the HTTP answer, caller -> callee (times):")
                for pair, n in traced.changes.most_common():
                    print(f"    {pair} {n}")
            if args.functions and i == args.presses - 1:
                print("  functions entered, by module (times):")
                for m, entered in sorted(traced.functions.items()):
                    print(f"    {m}: {', '.join(f'{f} {n}' for f, n in entered.most_common())}")
    print("the same modules on every press" if len(set(seen)) == 1 else "presses differ")


if __name__ == "__main__":
    asyncio.run(main())
