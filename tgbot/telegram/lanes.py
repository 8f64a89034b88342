"""A chat's lane of outbox entries made into the calls to make: each entry parsed into its
operation, the newest state of each message kept (latest state wins), plain messages
joined, each call given the class of what it stands before, and a deadline's moment
fixed when it is delivered. Functions of the lane alone (a held edit's wait reads the
clock); `sender.py` makes the calls."""

from __future__ import annotations

import datetime as dtm
import itertools
import json
import time
from dataclasses import dataclass, replace
from typing import Any

from telegram import MessageEntity

from ..contract.plan import STATUS, Edit, Moment, Op, Send, from_op
from ..rendering.ui import MOMENT_FORMAT, moment_fallback
from ..storage.outbox import LaneEntry
from .message_refs import ref_key

MAX_TEXT = 4096


@dataclass(slots=True)
class Pending:
    """One call to make: a message's newest state (or plain sends joined), the stored
    outbox entries it delivers, and when the oldest of them was queued."""

    op: Op
    raws: list[str]
    at: int | None
    show: bool = False  # edit the message `ref` into this one, or send it anew if none
    # What a send of it already reached Telegram as (its newest entry), or the message an
    # in-place show of it was taken to.
    sent: int | None = None
    floor: int | None = None  # sent 0: where a copy it may have left starts (LaneEntry)
    asked: bool = False  # a prompt already asked in the page: its deadline has started
    head: str | None = None  # verdicts that ride at its top, to note before it is sent

    @property
    def send(self) -> bool:
        """Whether it makes a new message (not an edit or show of one)."""
        return isinstance(self.op, Send) and not self.show


def parse(raw: str, entry: dict[str, Any]) -> Pending:
    """An outbox entry read back, as the typed operation it stores (ValueError if none)."""
    op = from_op(entry)
    at = entry.get("at")
    show = isinstance(op, Send) and op.in_place
    return Pending(op, [raw], at if isinstance(at, int) else None, show)


def from_lane(entry: LaneEntry) -> Pending:
    """A lane entry as a pass read it, as the typed operation it stands for (ValueError if
    none): its state's time and show flag are the oldest folded into it (see outbox.py)."""
    try:
        doc = json.loads(entry.raw)
    except ValueError:
        raise ValueError("not JSON") from None
    if not isinstance(doc, dict):
        raise ValueError("not an object")
    item = parse(entry.token, doc)
    item.at = entry.at if entry.at is not None else item.at
    item.show = item.show or entry.show
    item.sent = entry.sent
    item.floor = entry.floor
    if entry.required and isinstance(item.op, Edit) and item.op.optional:
        # A required state was folded into this optional one in the store: what it
        # changed (buttons taken away, a turn told) goes now, not in a quiet minute.
        item.op = _required(item.op, None)
    return item


def latest_state(lane: list[Pending]) -> list[Pending]:
    """Keep only the newest of a chat's pending edits of each message (latest state wins).

    An edit or show of a message replaces a pending older edit or show of it: the older
    is dropped from where it stood and delivered by the newer one, which lists the stored
    entries of both. A send of a message starts anew (an edit before it concerns the
    message it replaces), and a send is never moved, so a message is still created before
    it is edited, and other messages keep their order.
    """
    kept: list[Pending] = []
    dropped: set[int] = set()
    pending: dict[str, int] = {}  # ref -> index in kept of its newest pending edit or show
    for item in lane:
        ref = item.op.ref
        if ref and not item.send and (older := pending.get(ref)) is not None:
            superseded = kept[older]
            dropped.add(older)
            item = Pending(
                _keeping_what_matters(item.op, superseded.op),
                superseded.raws + item.raws,
                _queued_at(superseded, item),
                # A show sends the message anew when there is none to edit: keep that.
                item.show or superseded.show,
                item.sent,
            )
        if ref:
            if item.send:
                pending.pop(ref, None)
            else:
                pending[ref] = len(kept)
        kept.append(item)
    return [item for i, item in enumerate(kept) if i not in dropped]


def _queued_at(older: Pending, newer: Pending) -> int | None:
    """When the state that replaces `older` counts as queued: from the oldest state it
    carries (a hold counts from there, and so does the lag), but a required change that
    replaces an optional one (a verdict over a story state held for it) from its own
    time: the group was not behind while only what it may leave behind waited."""
    if older.at is None or (is_optional(older.op) and not is_optional(newer.op)):
        return newer.at
    return older.at


def _keeping_what_matters(newer: Op, older: Op) -> Op:
    """A newer edit that replaces a waiting older one: an optional newer state (a moved
    moment) must not make the older one's required change (buttons taken away, a
    challenge told) wait for a quiet minute, nor drop the deadline its delivery starts."""
    if not (isinstance(newer, Edit) and isinstance(older, Edit)):
        return newer
    if newer.rides is not None:
        # Quiet turns added to a message: with an older rider, the first verdict either
        # adds; with any other older state (its own verdict, waiting), the edit must go.
        rides = None if older.rides is None else min(older.rides, newer.rides)
        newer = replace(newer, rides=rides)
    if newer.optional and not older.optional:
        newer = _required(newer, older.priority)
    if newer.deadline is None and older.deadline is not None:
        newer = replace(newer, deadline=older.deadline)
    return newer


def _required(op: Edit, priority: int | None) -> Edit:
    """An optional edit that carries a required state's change: sent now, unheld, in
    `priority`'s class (None: its kind's)."""
    return replace(op, optional=False, hold_ms=0, priority=priority)


def with_head(op: Op, head: str) -> Op:
    """The operation with `head` at the top of its text (its moment's place moved along)."""
    moment = op.moment
    if moment is not None:
        moment = replace(moment, offset=moment.offset + len(head) + 2)
    return replace(op, text=f"{head}\n\n{op.text}", moment=moment)


def ride(lane: list[Pending]) -> list[Pending]:
    """A group's lane (its latest states kept) with each waiting rider edit (a quiet
    turn's verdict added to an older message: `Edit.rides`) carried at the top of the
    next new message that names it (`Send.riders`) instead: one call, not two, and the
    verdict still told once, in order. The new message keeps them as its head (`head`),
    and the rider's stored entries go with it."""
    riders: dict[str, int] = {}  # ref -> index in kept of its waiting rider edit
    kept: list[Pending | None] = []
    for item in lane:
        op = item.op
        if isinstance(op, Edit) and op.ref:
            if op.rides is not None:
                riders[op.ref] = len(kept)
            else:
                riders.pop(op.ref, None)
        elif isinstance(op, Send) and item.send and op.riders is not None:
            at = riders.pop(op.riders.ref, -1)
            rider = kept[at] if at >= 0 else None
            if rider is not None and isinstance(rider.op, Edit) and rider.op.rides is not None:
                head = "\n\n".join(op.riders.parts[rider.op.rides - 1 :])
                headed = with_head(op, head)
                if head and _utf16(headed.text) <= MAX_TEXT:
                    kept[at] = None
                    item = replace(item, op=headed, raws=rider.raws + item.raws, head=head)
        kept.append(item)
    return [item for item in kept if item is not None]


def with_heads(lane: list[Pending], heads: dict[str, str]) -> list[Pending]:
    """A lane whose later states of a message that verdicts rode on (`ride`) keep them at
    their top (`heads`: by `message_refs.ref_key`, those noted and those `ride` gave)."""
    heads = heads | {key: item.head for item in lane if item.head and (key := ref_key(item.op))}
    if not heads:
        return lane
    kept = []
    for item in lane:
        head = heads.get(ref_key(item.op) or "")
        if head is not None and item.head is None and not item.send:
            item = replace(item, op=with_head(item.op, head))
        kept.append(item)
    return kept


def merge_sends(lane: list[Pending]) -> list[Pending]:
    """Join consecutive plain messages (no buttons, nothing to edit later) of one chat and
    one topic (a forum's messages for another topic stay apart), while the joined text
    fits one message as Telegram counts it (UTF-16 units); a message sent `alone` (each
    part of /rules) is never joined."""
    merged: list[Pending] = []
    for item in lane:
        previous = merged[-1] if merged else None
        if (
            previous is not None
            and _plain_send(previous)
            and _plain_send(item)
            and thread_of(previous.op) == thread_of(item.op)
            and _utf16(previous.op.text) + _utf16(item.op.text) + 2 <= MAX_TEXT
        ):
            previous.op = replace(previous.op, text=previous.op.text + "\n\n" + item.op.text)
            previous.raws += item.raws
        else:
            merged.append(replace(item, raws=list(item.raws)))
    return merged


def is_held(item: Pending) -> bool:
    """Whether an edit that only updates a waiting line still waits for a newer one (its
    hold, counted from when the oldest state it carries was queued)."""
    hold = item.op.hold_ms if isinstance(item.op, Edit) else 0
    return hold > 0 and (item.at or 0) + hold > int(time.time() * 1000)


def _plain_send(item: Pending) -> bool:
    op = item.op
    alone = isinstance(op, Send) and op.alone
    return item.send and not op.kb and not op.ref and op.moment is None and not alone


def _utf16(text: str) -> int:
    """A text's length as Telegram counts entity offsets: in UTF-16 code units."""
    return len(text.encode("utf-16-le")) // 2


def with_moment(op: Op, now_ms: int) -> tuple[Op, list[MessageEntity] | None]:
    """The operation as it is delivered now: its deadline's moment written into the text
    (its plain-text fallback) and marked with a `date_time` entity, so that each phone
    shows it in its own time; unchanged, and no entities, when it has no moment."""
    moment = op.moment
    if moment is None:
        return op, None
    at_ms = moment.at_ms if moment.at_ms is not None else now_ms + 1000 * moment.seconds
    fallback = moment_fallback(at_ms)
    offset = max(0, min(moment.offset, len(op.text)))
    text = op.text[:offset] + fallback + op.text[offset:]
    entity = MessageEntity(
        MessageEntity.DATE_TIME,
        _utf16(text[:offset]),
        _utf16(fallback),
        date_time_format=MOMENT_FORMAT,
        unix_time=dtm.datetime.fromtimestamp(at_ms // 1000, dtm.UTC),
    )
    return replace(op, text=text, moment=None), [entity]


def fix_moment(op: Op, now_ms: int) -> Op:
    """The operation with its moment fixed now (a deadline that counts from delivery)."""
    moment = op.moment
    if moment is None or moment.at_ms is not None:
        return op
    return replace(op, moment=Moment(moment.offset, now_ms + 1000 * moment.seconds))


def is_optional(op: Op) -> bool:
    """Whether it is an edit a newer state may replace, sent only with room to spare."""
    return isinstance(op, Edit) and op.optional


def with_lane_priority(lane: list[Pending]) -> list[Pending]:
    """Each of a lane's calls in the class of the highest one it stands before: a lane is
    delivered in order, so what goes ahead of the game's end is sent as urgently as the
    end. Edits the lane may leave behind (held or optional) neither lend nor borrow."""
    best = STATUS + 1
    ranked: list[Pending] = []
    for item in reversed(lane):
        if not (is_held(item) or is_optional(item.op)):
            best = min(best, item.op.rank)
            if best < item.op.rank:
                item.op = replace(item.op, priority=best)
        ranked.append(item)
    return ranked[::-1]


def behind_the_table(lanes: dict[int, list[Pending]]) -> dict[int, list[Pending]]:
    """The lanes as they may go now: a player's prompt queued no earlier than a change the
    group has not shown yet waits, with what follows it in its lane, so that the game
    never runs ahead of its table (a prompt's deadline counts from its delivery). What a
    group may leave behind (a held or optional edit) holds nothing back."""
    unshown = [
        item.at
        for chat, lane in lanes.items()
        if chat < 0
        for item in lane
        if item.at is not None and not (is_held(item) or is_optional(item.op))
    ]
    if not unshown:
        return lanes
    since = min(unshown)
    ready: dict[int, list[Pending]] = {}
    for chat, lane in lanes.items():
        if chat > 0:
            lane = list(itertools.takewhile(lambda item: not _waits_for(item, since), lane))
        if lane:
            ready[chat] = lane
    return ready


def _waits_for(item: Pending, since: int) -> bool:
    """Whether a private call is a prompt queued at or after the group's oldest unshown
    change (one step queues the group's messages first)."""
    return item.op.deadline is not None and (item.at or 0) >= since


def is_prompt(item: Pending) -> bool:
    """Whether it is a player's prompt not yet sent: a new message (or one shown in
    place) with a decision whose deadline its delivery starts."""
    return _asks(item) and item.sent is None


def _asks(item: Pending) -> bool:
    """Whether it is a player's prompt (sent or not)."""
    return (
        item.op.chat > 0
        and isinstance(item.op, Send)
        and item.op.deadline is not None
        and bool(item.op.ref)
    )


def answered_elsewhere(lane: list[Pending]) -> tuple[list[Pending], list[str]]:
    """A chat's lane (its latest states kept) less its prompts that a newer state of the
    same message supersedes before they were sent (decided in the page, or the question
    closed): such a prompt and an edit of it (its close) are not sent at all, nor a
    prompt to be shown in place of an older one and closed since; a prompt shown in its
    place goes as a new message. Also the stored entries dropped so."""
    dropped: list[str] = []
    kept: list[Pending] = []
    unsent: dict[str, int] = {}  # ref -> index in kept of an unsent prompt
    for item in lane:
        if item.show and isinstance(item.op, Edit) and item.op.chat > 0 and item.sent is None:
            # A prompt shown in place, closed before it was sent (the store kept only the
            # close, with the show's flag): the message it would replace shows its own end.
            dropped += item.raws
            continue
        ref = item.op.ref
        older = unsent.pop(ref, None) if ref else None
        if older is not None:
            dropped += kept[older].raws
            kept[older] = replace(kept[older], raws=[])
            if not isinstance(item.op, Send):
                dropped += item.raws  # the close of a message never sent: nothing to edit
                continue
            item = replace(item, op=replace(item.op, in_place=False), show=False)
        if ref and (is_prompt(item) or (item.sent == 0 and _asks(item))):
            # (Progress 0: taken to Telegram, its answer lost in a crash. Answered since,
            # it is not made again: a copy it may have left is closed when pressed.)
            unsent[ref] = len(kept)
        kept.append(item)
    return [item for item in kept if item.raws], dropped


def told_in_page(item: Pending) -> bool:
    """Whether it is a plain message of a game's events to a player (their cards, a card
    drawn, knocked out, the win: no buttons, told with a note to the group if refused),
    which their page, while it follows the game, tells as well (its log shows the
    reader's own events)."""
    op = item.op
    return (
        op.chat > 0
        and isinstance(op, Send)
        and op.fallback is not None
        and not (op.kb or op.ref or op.direct or op.in_place)
        and item.sent is None
    )


def asked_in_page(
    lanes: dict[int, list[Pending]], present: set[int], hold_ms: int, now_ms: int
) -> tuple[dict[int, list[Pending]], list[Pending], list[Pending]]:
    """The lanes as they may go now when the players `present` (their page's event stream
    open) are asked in the page first: a prompt of theirs queued less than `hold_ms` ago
    waits, with what follows it in its lane, for the decision to come from the page (see
    `answered_elsewhere`); once that time has passed, or their page closes, it goes. A
    plain message of the game's events to them is not sent: the page tells it. Also the
    prompts held so, and the messages not sent."""
    ready: dict[int, list[Pending]] = {}
    held: list[Pending] = []
    dropped: list[Pending] = []
    for chat, lane in lanes.items():
        if chat in present:
            kept: list[Pending] = []
            waiting = False
            for item in lane:
                if told_in_page(item):
                    dropped.append(item)
                    continue
                if not waiting and is_prompt(item) and (item.at or now_ms) + hold_ms > now_ms:
                    held.append(item)
                    waiting = True
                if not waiting:
                    kept.append(item)
            lane = kept
        if lane:
            ready[chat] = lane
    return ready, held, dropped


def thread_of(op: Op) -> int | None:
    """The forum topic a new message goes to (an edit stays where its message is)."""
    return op.thread if isinstance(op, Send) else None
