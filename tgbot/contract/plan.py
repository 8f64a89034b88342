"""The message plan of a step: typed operations, each one message sent or edited.

A step's plan is built in rendering (`rendering/step_plan.py`) and stored in the game's
outbox as plain JSON (`to_op`), which the sender reads back as operations (`from_op`) and
delivers: per chat, in order, the latest state of a message winning over its pending
edits. A leaf: it imports nothing of ours, so that rendering can build plans.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

# Rows of buttons, each {"text", "data"}, {"text", "url"} or {"text", "web_app"} (rendering's
# `ui.Keyboard` is this one).
Keyboard = list[list[dict[str, str]]]

# The classes of a group's minute, by how much of it each may fill, most first
# (telegram/rate_limit.py's caps): the game's end; a reply to a command (rare, so the
# game's own messages leave it two slots and it goes out at once in a busy group); what a
# person must see now (a new message, a window closing); an edit that changes buttons; an
# optional status edit, with what is left.
END, REPLY, NOW, BUTTONS, STATUS = 0, 1, 2, 3, 4


@dataclass(frozen=True, slots=True)
class Deadline:
    """The decision whose deadline counts from when this message reaches Telegram."""

    context: int
    seconds: int


@dataclass(frozen=True, slots=True)
class Moment:
    """A deadline shown as a moment in the text (a `date_time` entity, which each phone
    shows in its own time zone): inserted at `offset` (in characters) when the message is
    delivered, at `at_ms`, or `seconds` after it reaches Telegram when `at_ms` is None."""

    offset: int
    at_ms: int | None = None
    seconds: int = 0

    def to_dict(self) -> dict[str, Any]:
        """Its JSON form in an outbox entry."""
        return {"offset": self.offset, "at_ms": self.at_ms, "seconds": self.seconds}

    @staticmethod
    def from_dict(raw: Any) -> Moment | None:
        """Read back what `to_dict` wrote (None for no moment)."""
        if not isinstance(raw, dict):
            return None
        at = raw.get("at_ms")
        return Moment(int(raw["offset"]), None if at is None else int(at), int(raw["seconds"]))


@dataclass(frozen=True, slots=True)
class Fallback:
    """Where to say so when Telegram refuses a private message (403): the group, a note."""

    group: int
    thread: int | None
    note: str


@dataclass(frozen=True, slots=True)
class Riders:
    """Quiet turns' verdicts that may ride at the top of a new message instead of being
    added to the older message `ref` by their own edit (`Edit.rides`): `parts[i - 1]` is
    the text of the i-th verdict added to that message after its own. The sender puts
    there those a waiting rider edit of `ref` adds, and drops that edit."""

    ref: str
    parts: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Send:
    """A new message (it makes the phone ring). With `in_place`, the message `ref` is
    edited into it when there is one (one call instead of an edit and a send)."""

    chat: int
    text: str
    kb: Keyboard | None = None
    ref: str | None = None
    thread: int | None = None
    in_place: bool = False
    deadline: Deadline | None = None
    fallback: Fallback | None = None
    direct: bool = False  # the reply to an update: outside the queued share of the pace
    priority: int | None = None  # its class in a group's minute (None: see `rank`)
    moment: Moment | None = None
    alone: bool = False  # a message of its own: never joined with the plain sends beside it
    riders: Riders | None = None  # verdicts that may ride at its top (see `Riders`)

    @property
    def rank(self) -> int:
        """Its class in a group's minute: a reply to an update is REPLY, a message NOW."""
        if self.priority is not None:
            return self.priority
        return REPLY if self.direct else NOW

    def to_op(self) -> dict[str, Any]:
        """The outbox entry the sender delivers."""
        op: dict[str, Any] = {
            "op": "show" if self.in_place else "send",
            "chat": self.chat,
            "thread": self.thread,
            "text": self.text,
            "kb": self.kb,
            "ref": self.ref,
        }
        if self.direct:
            op["direct"] = True
        if self.alone:
            op["alone"] = True
        if self.riders is not None:
            op["riders"] = {"ref": self.riders.ref, "parts": list(self.riders.parts)}
        return _with_extras(op, self.deadline, self.fallback, self.priority, self.moment)


@dataclass(frozen=True, slots=True)
class Edit:
    """A new look for a message sent before (found by its reference). `hold_ms` lets an
    edit that only updates a waiting line wait that long for a newer one to replace it;
    an `optional` one is sent only while its group's minute has room to spare (else it
    waits, and a newer state replaces it), so that it never holds back what matters.
    `priority` sets its class in a group's minute (None: see `rank`). With `closes`, it
    is no new look but a close (see `close_keyboard`). With `message_id`, it edits that
    message, the one a press named (a prompt, or a reply no reference records: the
    settings screen), and `ref` only names its states, so that the newest pending one
    wins. A `direct` one answers a person's press (a reply's class, outside the queued
    share of the bot's pace)."""

    chat: int
    ref: str
    text: str
    kb: Keyboard | None = None
    hold_ms: int = 0
    optional: bool = False
    deadline: Deadline | None = None
    fallback: Fallback | None = None
    priority: int | None = None
    moment: Moment | None = None
    closes: int | None = None  # the Telegram id of the message whose buttons it takes off
    message_id: int | None = None  # the Telegram id of the message it edits (None: `ref`'s)
    direct: bool = False  # the answer to a press: a reply's class and share
    # A quiet turn's verdict added to the game's newest message: the first of the added
    # verdicts (1: the first after the message's own) this state adds, which may ride on
    # the next new message instead (see `Riders`).
    rides: int | None = None

    @property
    def rank(self) -> int:
        """Its class in a group's minute: the answer to a press is REPLY, an optional edit
        STATUS, one that leaves the message without buttons closes a window (NOW), one
        with buttons BUTTONS."""
        if self.priority is not None:
            return self.priority
        if self.direct:
            return REPLY
        if self.optional:
            return STATUS
        return BUTTONS if self.kb else NOW

    def to_op(self) -> dict[str, Any]:
        """The outbox entry the sender delivers."""
        if self.closes is not None:
            close = {"op": "close", "chat": self.chat, "ref": self.ref, "message_id": self.closes}
            if self.text:  # a copy looked for (see `close_copy`)
                close["text"] = self.text
                close["moment"] = None if self.moment is None else self.moment.to_dict()
            return close
        op: dict[str, Any] = {
            "op": "edit",
            "chat": self.chat,
            "ref": self.ref,
            "text": self.text,
            "kb": self.kb,
        }
        if self.hold_ms:
            op["hold_ms"] = self.hold_ms
        if self.optional:
            op["optional"] = True
        if self.message_id is not None:
            op["message_id"] = self.message_id
        if self.direct:
            op["direct"] = True
        if self.rides is not None:
            op["rides"] = self.rides
        return _with_extras(op, self.deadline, self.fallback, self.priority, self.moment)


Op = Send | Edit

COPY_CLOSE = "close:"  # the reference of a copy's close (close_keyboard)
STALE_CLOSE = "stale:"  # the reference of an answered prompt's close (close_stale_prompt)


def close_keyboard(chat: int, message_id: int) -> Edit:
    """Take the buttons off one message found by its id, keeping its text: a copy that a
    send made again left behind (its outcome unknown: see telegram/sender.py), closed
    once a press on it is refused as stale. The sender makes it only while the game
    records that id for none of its messages (a press racing an edit of the live message
    never strips it), and only with room to spare in a group's minute. Its reference
    names the message, so that closes of one copy asked for again fold into one."""
    return Edit(chat, f"{COPY_CLOSE}{message_id}", "", optional=True, closes=message_id)


def close_copy(chat: int, message_id: int, copy_of: Op) -> Edit:
    """Take the buttons off the message `message_id` if it has any, and delete it if it
    then shows `copy_of`'s text: a copy that a send made again may have left there (see
    telegram/closes.py `Closes.copies`). Only the bot's own messages with buttons can be
    edited, and only one whose text is the copy's is deleted. Made as `close_keyboard`."""
    close = close_keyboard(chat, message_id)
    return replace(close, text=copy_of.text, moment=copy_of.moment)


def shows(text: str, op: Op) -> bool:
    """Whether a message that reads `text` shows `op`'s text (its moment, written in when
    it was delivered, aside)."""
    if op.moment is None:
        return text == op.text
    head, tail = op.text[: op.moment.offset], op.text[op.moment.offset :]
    return len(text) > len(op.text) and text.startswith(head) and text.endswith(tail)


def close_stale_prompt(chat: int, message_id: int) -> Edit:
    """Take the buttons off a private prompt already answered, whose closing echo found no
    room in the bot's second (see telegram/sender.py): made later, when there is room, so
    that no keyboard stays live once its game is over. Unlike a copy's close it strips the
    message even while the game records it: its person answered it, and their next prompt
    is a new message (one sent in place is made in the step that closes this one, with
    the echo folded into it)."""
    # Its reference names the chat too: private chats number their messages apart, and
    # pending states of one reference fold into one (storage/outbox.py).
    ref = f"{STALE_CLOSE}{chat}:{message_id}"
    return Edit(chat, ref, "", optional=True, closes=message_id)


def screen_edit(chat: int, message_id: int, text: str, kb: Keyboard | None) -> Edit:
    """A new look for a screen sent as a reply (nothing records its id: the settings
    screen), found by its id, as the answer to a press on it. Its reference names the
    message, so that the newest of its pending looks wins."""
    return Edit(chat, f"screen:{message_id}", text, kb, message_id=message_id, direct=True)


def from_op(entry: dict[str, Any]) -> Op:
    """The typed operation of an outbox entry (what `to_op` wrote; ValueError if it is
    not one): the one place where the sender's dicts become operations."""
    try:
        kind, chat = entry["op"], int(entry["chat"])
        if kind == "close":
            closes = int(entry["message_id"])
            if str(entry.get("ref") or "").startswith(STALE_CLOSE):
                return close_stale_prompt(chat, closes)
            close = close_keyboard(chat, closes)
            if entry.get("text"):
                moment = Moment.from_dict(entry.get("moment"))
                return replace(close, text=str(entry["text"]), moment=moment)
            return close
        text = str(entry["text"])
        kb = entry.get("kb") or None
        ref = entry.get("ref")
        priority = None if entry.get("priority") is None else int(entry["priority"])
        deadline = None
        if entry.get("starts_deadline") is not None:
            deadline = Deadline(int(entry["starts_deadline"]), int(entry["seconds"]))
        moment = Moment.from_dict(entry.get("moment"))
        fallback = None
        if entry.get("group") is not None:
            thread = entry.get("group_thread")
            fallback = Fallback(
                int(entry["group"]),
                None if thread is None else int(thread),
                str(entry.get("unreachable") or ""),
            )
        if kind in ("send", "show"):
            thread = entry.get("thread")
            return Send(
                chat,
                text,
                kb,
                ref,
                None if thread is None else int(thread),
                in_place=kind == "show",
                deadline=deadline,
                fallback=fallback,
                direct=bool(entry.get("direct")),
                priority=priority,
                moment=moment,
                alone=bool(entry.get("alone")),
                riders=_riders(entry.get("riders")),
            )
        if kind == "edit" and ref:
            return Edit(
                chat,
                str(ref),
                text,
                kb,
                int(entry.get("hold_ms") or 0),
                bool(entry.get("optional")),
                deadline,
                fallback,
                priority,
                moment,
                message_id=None if entry.get("message_id") is None else int(entry["message_id"]),
                direct=bool(entry.get("direct")),
                rides=None if entry.get("rides") is None else int(entry["rides"]),
            )
    except (KeyError, TypeError, ValueError) as err:
        raise ValueError(f"not an outbox entry: {err}") from None
    raise ValueError(f"not an outbox entry: op {kind!r}")


def _riders(raw: Any) -> Riders | None:
    """Read back what `Send.to_op` wrote of its riders (None: none)."""
    if not isinstance(raw, dict):
        return None
    return Riders(str(raw["ref"]), tuple(str(part) for part in raw["parts"]))


def _with_extras(
    op: dict[str, Any],
    deadline: Deadline | None,
    fallback: Fallback | None,
    priority: int | None = None,
    moment: Moment | None = None,
) -> dict[str, Any]:
    if priority is not None:
        op["priority"] = priority
    if deadline is not None:
        op["starts_deadline"] = deadline.context
        op["seconds"] = deadline.seconds
    if fallback is not None:
        op.update(group=fallback.group, group_thread=fallback.thread, unreachable=fallback.note)
    if moment is not None:
        op["moment"] = moment.to_dict()
    return op


@dataclass(slots=True)
class Plan:
    """The messages of one step, in the order they are to be delivered."""

    ops: list[Op] = field(default_factory=list)

    def add(self, op: Op) -> None:
        """Append one operation."""
        self.ops.append(op)

    def to_ops(self) -> list[dict[str, Any]]:
        """The operations as the outbox stores them, in order."""
        return [op.to_op() for op in self.ops]

    def sends(self, group: int | None = None) -> int:
        """How many messages it sends (to `group` only, if given; else to every chat)."""
        return sum(isinstance(o, Send) and (group is None or o.chat == group) for o in self.ops)

    def edits(self, group: int | None = None) -> int:
        """How many messages it edits (in `group` only, if given)."""
        return sum(isinstance(o, Edit) and (group is None or o.chat == group) for o in self.ops)
