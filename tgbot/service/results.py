"""What the service answers to the Telegram layer."""

from __future__ import annotations

from dataclasses import dataclass

from ..contract.outcomes import Refusal, Said
from ..contract.plan import Moment
from ..rendering.ui import Keyboard
from ..storage.updates import Handling, update_id_of


@dataclass(frozen=True, slots=True)
class Person:
    """Who sent an update: Telegram id, display name, Telegram language code."""

    id: int
    name: str
    language_code: str | None = None


@dataclass(frozen=True, slots=True)
class Origin:
    """Where an update came from: its handling (tgbot/storage/updates.py), and the chat
    (and forum topic) replies go to."""

    update: Handling | None
    chat_id: int
    thread_id: int | None = None

    @property
    def update_id(self) -> int | None:
        """The update's id (None when it is handled outside any update)."""
        return update_id_of(self.update)


@dataclass(slots=True)
class Reply:
    """A message to send in the chat the update came from (queued with the update's step)."""

    text: str
    keyboard: Keyboard | None = None
    moment: Moment | None = None  # a deadline shown as a moment (contract/plan.py)
    # Further messages sent right after it, each on its own (/rules: the variant's part).
    more: tuple[str, ...] = ()


@dataclass(slots=True)
class CallbackResult:
    """The answer to a button press (what its toast says, in no language yet); a new
    look for its message goes through the outbox, never with the answer."""

    said: Said | None = None
    alert: bool = False
    url: str | None = None
    text: str | None = None  # words rendering wrote for this reader (👁 My cards), not `said`


class UserError(Exception):
    """Something the person asked for cannot be done; `said` says why, in no language yet
    (with the language it is to be read in: `lang`, None for the default)."""

    def __init__(self, refusal: Refusal, lang: str | None = None, days: int = 0) -> None:
        super().__init__(refusal.name)
        self.said = Said(refusal, lang, days)
