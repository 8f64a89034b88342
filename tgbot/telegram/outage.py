"""One log line when Redis stops answering the delivery path, and one when it has answered
again for a while (not a traceback per delivery that failed meanwhile: what failed stays
queued, and the sweep delivers it later)."""

from __future__ import annotations

import logging
import time

from ..storage.clients import storage_error

log = logging.getLogger(__name__)

# In a cluster with one master down, deliveries that need it fail while others succeed:
# the outage is over only once no delivery failed for this long.
QUIET_S = 10.0


class Outage:
    """Whether the delivery path saw Redis fail, since when, and how often meanwhile."""

    def __init__(self, quiet_s: float = QUIET_S) -> None:
        self.quiet_s = quiet_s
        self.since: float | None = None
        self.last = 0.0
        self.failures = 0

    def failed(self, what: str, err: BaseException) -> bool:
        """Count a failure of `what`; True if it is a storage error (said once per outage),
        False if it is something else, for the caller to log as it would."""
        if not storage_error(err):
            return False
        self.failures += 1
        self.last = time.monotonic()
        if self.since is None:
            self.since = self.last
            log.warning("Redis unavailable (%s: %s); deliveries wait until it is back", what, err)
        return True

    def working(self) -> None:
        """Redis answered the delivery path: say so once the outage is over."""
        if self.since is None or time.monotonic() - self.last < self.quiet_s:
            return
        log.warning(
            "Redis available again: %d deliveries failed in %.1f s, delivered since",
            self.failures,
            self.last - self.since,
        )
        self.since, self.failures = None, 0

    def reset(self) -> None:
        """Forget an outage (a new process's start, or a test's)."""
        self.since, self.failures = None, 0


# One per process: every delivery of every runtime in it says the same outage once.
STORAGE = Outage()
