"""Deliveries started by commits: each committed step's outbox (or a chat's reply) is
delivered in a task of its own, so that no update waits for Telegram."""

from __future__ import annotations

import asyncio
import logging

from .. import metrics
from ..storage.keys import CHAT_OWNER_PREFIX
from ..tasks import settle
from . import outage
from .delivery_log import log_undelivered
from .sender import Sender

log = logging.getLogger(__name__)


class Deliveries:
    """The deliveries in flight: started by `commit` (the service's `notify`), counted
    by cause, and waited for by `drain` at shutdown."""

    def __init__(self, sender: Sender) -> None:
        self.sender = sender
        self._tasks: set[asyncio.Task[None]] = set()

    async def commit(self, owner: str) -> None:
        """A step (or a reply) was committed for `owner`: count it, deliver it later."""
        if not owner.startswith(CHAT_OWNER_PREFIX):  # a chat's reply is no game step
            metrics.STEPS.labels(metrics.cause.get()).inc()
        task = asyncio.create_task(self.deliver(owner))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def deliver(self, owner: str) -> None:
        """Deliver `owner`'s outbox now; a failure leaves it queued for the sweeper."""
        try:
            await self.sender.flush(owner)
        except Exception as err:  # the sweeper retries what stays queued
            log_undelivered(
                f"delivery of outbox {owner}",
                f"delivery of outbox {owner} failed; it stays queued",
                err,
            )
            return
        else:
            outage.STORAGE.working()

    async def drain(self, timeout: float) -> None:
        """Let deliveries in flight finish (for a clean shutdown), waiting `timeout` s at most."""
        await settle(list(self._tasks), timeout)
