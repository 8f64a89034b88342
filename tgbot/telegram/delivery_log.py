"""What the delivery says when it could not deliver: an outbox left queued, a send that
may have reached Telegram unanswered."""

from __future__ import annotations

import logging

from telegram.error import NetworkError

from .. import metrics
from . import outage

log = logging.getLogger("tgbot.telegram.sender")  # the sender's lines, as before


def say_unconfirmed(chat: int, then: str = "answered since: not sent again") -> None:
    """A send's attempt is noted and its answer never was (a crash, or past the read
    timeout): the message may be in the chat, with buttons nothing can take off (its id
    is unknown) until someone presses them."""
    metrics.SENDS_UNCONFIRMED.inc()
    log.warning("a message to chat %s may have reached Telegram unanswered; %s", chat, then)


def sweep_failed(game_id: str, failures: int, pause: float, err: Exception) -> None:
    """Say that a sweep could not deliver a game's outbox: once per Redis outage (see
    outage.py); Telegram away or refusing (TimedOut, a 5xx and BadRequest are
    NetworkErrors) in one line, no traceback; anything else with its traceback."""
    log_undelivered(
        f"outbox of game {game_id}",
        f"outbox of game {game_id} not delivered yet ({failures} tries; next in {pause:.0f} s)",
        err,
    )


def log_undelivered(source: str, what: str, err: Exception) -> None:
    """Say that an outbox was not delivered: once per Redis outage; Telegram away or slow
    (a NetworkError) in one WARNING line; anything else, a bug of ours, with its traceback."""
    if outage.STORAGE.failed(source, err):
        return
    away = isinstance(err, NetworkError)
    log.log(
        logging.WARNING if away else logging.ERROR,
        "%s: %s",
        what,
        err,
        exc_info=None if away else err,
    )
