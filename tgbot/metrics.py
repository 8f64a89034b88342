"""Prometheus metrics of one bot process (prometheus-client's default registry).

Counters and histograms count what this process did; the gauges read from Redis
(outboxes, deadlines, open games) are the same in every process.
"""

from __future__ import annotations

import contextvars
import gc
import time
from typing import Any

from prometheus_client import Counter, Gauge, Histogram
from telegram import Update

UPDATES = Counter("coup_updates", "Telegram updates handled, by kind", ["kind"])
STEPS = Counter(
    "coup_steps",
    "Committed game steps, by what caused them (an update's kind, or a deadline)",
    ["cause"],
)
API_CALLS = Counter(
    "coup_bot_api_calls",
    "Bot API requests, by method and outcome (ok, 400, 403, 429, ...)",
    ["method", "outcome"],
)
DELIVERY_LAG = Histogram(
    "coup_delivery_lag_seconds",
    "From a message queued by a step to Telegram accepting it",
    buckets=(0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 120),
)
OUTBOX_GAMES = Gauge("coup_outbox_games", "Games with messages not yet delivered")
OUTBOX_MESSAGES = Gauge("coup_outbox_messages", "Messages queued and not yet delivered")
DEADLINES_DUE = Gauge("coup_deadlines_due", "Deadlines that are due and not yet fired")
DEADLINES_LATE = Gauge(
    "coup_deadlines_late", "Deadlines due for more than LATE_AFTER_S and not yet fired"
)
# A send with buttons (or one the game edits) whose answer never reached the bot (a crash
# between Telegram taking it and its id's record, or an answer past the read timeout): the
# message may be in the chat with buttons nothing can take off until they are pressed.
SENDS_UNCONFIRMED = Counter(
    "coup_sends_unconfirmed", "Recorded sends whose outcome a crash or a timeout hid"
)
DEADLINES_FIRED = Counter("coup_deadlines_fired", "Deadlines fired by this process")
GAMES_OPEN = Gauge("coup_games_open", "Lobbies and games in play (each one has a deadline)")
DELIVERIES_IN_FLIGHT = Gauge(
    "coup_deliveries_in_flight", "Outboxes this process is delivering now (one task each)"
)
LOOP_FAILURES = Counter("coup_background_failures", "Failed rounds of a background loop", ["loop"])

GC_PAUSES = Histogram(
    "coup_gc_pause_seconds",
    "Pauses of the garbage collector (the event loop waits for them), by generation",
    ["generation"],
    buckets=(0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5),
)

LATE_AFTER_S = 5

# What caused the code now running: set per update and per deadline, read when a step
# commits (asyncio copies it into the delivery tasks a step starts).
cause: contextvars.ContextVar[str] = contextvars.ContextVar("cause", default="other")


def update_kind(update: Update) -> str:
    """A small fixed set of update kinds, fit for a label (whatever shape the update has)."""
    if update.callback_query is not None:
        return "press"
    if update.my_chat_member is not None:
        return "membership"
    message = update.message
    if message is not None:
        if message.migrate_to_chat_id:
            return "migration"
        if isinstance(message.text, str) and message.text.startswith("/"):
            return "command"
        return "message"
    return "other"


def count_api_call(url: str, status: int | None) -> None:
    """Count one Bot API request: `status` None when no answer came (a network error)."""
    method = url.rsplit("/", 1)[-1]  # never the token, which sits before the last slash
    outcome = "network" if status is None else ("ok" if status == 200 else str(status))
    API_CALLS.labels(method, outcome).inc()


def observe_delivery(
    chat: int, kind: str, queued_ms: int | None, now_ms: int, optional: bool = False
) -> None:
    """Record how long a message delivered to `chat` waited since its step queued it
    (`kind`: its class in a group's minute, telegram/rate_limit.CLASS_NAMES; `optional`:
    an edit its lane could leave behind, such as an optional story state)."""
    if queued_ms is not None:
        DELIVERY_LAG.observe(max(0, now_ms - queued_ms) / 1000)


_gc_started: list[float] = []


def _time_gc(phase: str, info: dict[str, Any]) -> None:
    if phase == "start":
        _gc_started[:] = [time.perf_counter()]
    elif _gc_started:
        GC_PAUSES.labels(str(info.get("generation"))).observe(time.perf_counter() - _gc_started[0])


def watch_gc() -> None:
    """Time every garbage collection from now on (once per process)."""
    if _time_gc not in gc.callbacks:
        gc.callbacks.append(_time_gc)
