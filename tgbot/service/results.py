"""What the service answers to the Telegram layer."""

from __future__ import annotations

from dataclasses import dataclass

from ..rendering.ui import Keyboard, Screen


@dataclass(frozen=True, slots=True)
class Person:
    """Who sent an update: Telegram id, display name, Telegram language code."""

    id: int
    name: str
    language_code: str | None = None


@dataclass(frozen=True, slots=True)
class Origin:
    """Where an update came from: its id, and the chat (and forum topic) replies go to."""

    update_id: int
    chat_id: int
    thread_id: int | None = None


@dataclass(slots=True)
class Reply:
    """A message to send in the chat the update came from (queued with the update's step)."""

    text: str
    keyboard: Keyboard | None = None


@dataclass(slots=True)
class CallbackResult:
    """The answer to a button press, and optionally a new look for its message."""

    text: str = ""
    alert: bool = False
    url: str | None = None
    edit: Screen | None = None


class UserError(Exception):
    """Something the person asked for cannot be done; `text` says why, in their language."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.text = text
