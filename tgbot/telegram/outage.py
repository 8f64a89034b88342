"""One log line when Redis stops answering the delivery path, and one when it answers again
(not a traceback per delivery that failed meanwhile: what failed stays queued)."""

from __future__ import annotations

import logging
import time

from ..storage.clients import storage_error

log = logging.getLogger(__name__)


class Outage:
    """Whether the delivery path saw Redis fail, since when, and how often meanwhile."""

    def __init__(self) -> None:
        self.since: float | None = None
        self.failures = 0

    def failed(self, what: str, err: BaseException) -> bool:
        """Count a failure of `what`; True if it is a storage error (said once per outage),
        False if it is something else, for the caller to log as it would."""
        if not storage_error(err):
            return False
        self.failures += 1
        if self.since is None:
            self.since = time.monotonic()
            log.warning("Redis unavailable (%s: %s); deliveries wait until it is back", what, err)
        return True

    def working(self) -> None:
        """Redis answered the delivery path: say so once if it had failed."""
        if self.since is None:
            return
        log.warning(
            "Redis available again after %.1f s (%d deliveries failed meanwhile, still queued)",
            time.monotonic() - self.since,
            self.failures,
        )
        self.since, self.failures = None, 0


# One per process: every delivery of every runtime in it says the same outage once.
STORAGE = Outage()
