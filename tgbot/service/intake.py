"""The intake room: each update taken once (a second delivery of it changes nothing) and
each person's pace counted, for the chat's handlers."""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager

from ..storage.store import Store
from ..storage.updates import Handling


class Intake:
    """Where an update starts: its lease, and the throttle's count."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def update(
        self, chat_id: int, update_id: int, counting: tuple[int, int] | None = None
    ) -> AbstractAsyncContextManager[Handling]:
        """Take an update of a chat for its handling, ended when the block ends; `counting`
        (person, window in seconds) counts a press for the throttle in the same round trip
        (see `storage.updates.Updates.update`)."""
        return self.store.update(chat_id, update_id, counting)

    async def hit(self, who: int, window_s: int, handling: Handling | None) -> int:
        """Count one update of `who` in the current window; return the count."""
        return await self.store.updates.hit(who, window_s, handling)
