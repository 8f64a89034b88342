"""Outbox entries read back as the typed operations they were written from."""

from __future__ import annotations

import json
import logging

import pytest

from tgbot.contract.plan import (
    END,
    REPLY,
    STATUS,
    Deadline,
    Edit,
    Fallback,
    Moment,
    Riders,
    Send,
    close_copy,
    close_keyboard,
    from_op,
    shows,
)
from tgbot.storage.outbox import route_of
from tgbot.telegram.lanes import (
    Pending,
    latest_state,
    merge_sends,
    parse,
    ride,
    with_heads,
    with_lane_priority,
)

KB = [[{"text": "Income", "data": "g.1.i"}]]


@pytest.mark.parametrize(
    "op",
    [
        Send(-5, "hello"),
        Send(-5, "turn", KB, "turn", thread=7, in_place=True),
        Send(
            9, "your move", KB, "prompt:9", deadline=Deadline(3, 60), fallback=Fallback(-5, 7, "!")
        ),
        Send(9, "help", direct=True),
        Send(9, "rules", direct=True, alone=True),
        Edit(-5, "turn", "waiting for 9", KB, hold_ms=1500, optional=True),
        Edit(9, "prompt:9", "done", deadline=Deadline(4, 30), fallback=Fallback(-5, None, "n")),
        Edit(-5, "turn", "🏆", KB, priority=END),
        close_keyboard(-5, 77),
        close_copy(9, 78, Send(9, "your move", KB, "prompt:9", moment=Moment(4, 1_000, 60))),
        close_copy(-5, 79, Send(-5, "claim", KB, "turn2")),
        Edit(-5, "turn", "v\n\nq", hold_ms=6000, optional=True, rides=1),
        Send(-5, "claim", KB, "turn2", riders=Riders("turn", ("q1", "q2"))),
    ],
)
def test_an_operation_reads_back_as_itself(op: Send | Edit) -> None:
    assert from_op(op.to_op()) == op


@pytest.mark.parametrize(
    "entry",
    [
        {},
        {"op": "send", "chat": "x", "text": "t"},
        {"op": "edit", "chat": 1, "text": "t"},
        {"op": "poke", "chat": 1, "text": "t"},
        {"op": "send", "chat": 1},
        {"op": "close", "chat": 1},
    ],
)
def test_what_is_no_operation_is_refused(entry: dict[str, object]) -> None:
    with pytest.raises(ValueError):
        from_op(entry)


def test_the_latest_edit_of_a_message_carries_the_older_ones_entries() -> None:
    entries = [
        Send(-5, "turn 1", KB, "turn").to_op(),
        {**Edit(-5, "turn", "turn 1, waiting").to_op(), "at": 100},
        Send(-5, "a line").to_op(),
        {**Edit(-5, "turn", "turn 1, done").to_op(), "at": 200},
        Send(-5, "another line").to_op(),
    ]
    lane = merge_sends(latest_state([parse(f"raw{i}", e) for i, e in enumerate(entries)]))
    assert [(type(p.op).__name__, p.op.text, p.raws) for p in lane] == [
        ("Send", "turn 1", ["raw0"]),
        ("Send", "a line", ["raw2"]),
        ("Edit", "turn 1, done", ["raw1", "raw3"]),
        ("Send", "another line", ["raw4"]),
    ]
    assert lane[2].at == 100  # the lag counts from the oldest state it carries
    # ...but a required state over an optional one (held for it) from its own time.
    entries = [
        {**Edit(-5, "turn", "challenged", hold_ms=6000, optional=True).to_op(), "at": 100},
        {**Edit(-5, "turn", "verdict").to_op(), "at": 200},
    ]
    [verdict] = latest_state([parse(f"raw{i}", e) for i, e in enumerate(entries)])
    assert verdict.at == 200


def test_plain_messages_are_joined_by_telegram_s_count_and_never_a_message_sent_alone() -> None:
    """Joined messages fit Telegram's 4096 UTF-16 units (an emoji counts two), and /rules'
    parts, each sent `alone`, stay apart even when they would fit together (issue 41)."""
    emoji = "🃏" * 1100  # 1100 characters, 2200 UTF-16 units
    entries = [Send(-5, emoji).to_op(), Send(-5, emoji).to_op(), Send(-5, "a line").to_op()]
    lane = merge_sends([parse(f"raw{i}", e) for i, e in enumerate(entries)])
    assert [p.raws for p in lane] == [["raw0"], ["raw1", "raw2"]]
    parts = [Send(-5, text, direct=True, alone=True).to_op() for text in ("rules", "changes")]
    entries = [Send(-5, "a line").to_op(), *parts, Send(-5, "another").to_op()]
    lane = merge_sends([parse(f"raw{i}", e) for i, e in enumerate(entries)])
    assert [p.op.text for p in lane] == ["a line", "rules", "changes", "another"]


def test_an_optional_newer_state_keeps_what_the_older_edit_it_replaces_must_do() -> None:
    # The group's message is to lose its window's buttons and tell the challenge (a
    # required edit, starting a deadline); before it goes out, ⏳ More time queues an
    # optional edit of the same message with the moved moment. The one edit delivered is
    # the newest text, still required and still starting the deadline.
    entries = [
        Edit(-5, "turn", "challenged", deadline=Deadline(4, 30)).to_op(),
        Edit(-5, "turn", "challenged, later", optional=True, hold_ms=1500).to_op(),
    ]
    [merged] = latest_state([parse(f"raw{i}", e) for i, e in enumerate(entries)])
    assert isinstance(merged.op, Edit)
    assert merged.op.text == "challenged, later" and merged.raws == ["raw0", "raw1"]
    assert not merged.op.optional and merged.op.hold_ms == 0
    assert merged.op.deadline == Deadline(4, 30)
    # Two optional states stay optional.
    optional = [
        Edit(-5, "turn", "a", optional=True).to_op(),
        Edit(-5, "turn", "b", optional=True).to_op(),
    ]
    [kept] = latest_state([parse(f"raw{i}", e) for i, e in enumerate(optional)])
    assert isinstance(kept.op, Edit) and kept.op.optional


async def test_an_entry_that_is_no_operation_is_dropped_and_the_rest_delivered(
    redis_server_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    from tests.telegram_sim.harness import TgUser, running_bot
    from tgbot.storage.keys import chat_owner
    from tgbot.storage.plan import Writes

    async with running_bot(redis_server_url) as h:
        user = TgUser(9300, "Reader")
        await h.say(user, user.id, "/start")
        owner = chat_owner(user.id)
        await h.store.redis.rpush(h.store.keys.outbox(owner), "not json", '{"op": "poke"}')
        writes = Writes()
        writes.send(owner, Send(user.id, "still here").to_op())
        await h.store.commits.commit(writes)  # marks the outbox pending: the sweeper finds it
        with caplog.at_level(logging.WARNING, logger="tgbot.telegram.sender"):
            await h.delivered(owner, timeout=20)
        assert h.sim.messages(user.id)[-1].text == "still here"
        dropped = [r.getMessage() for r in caplog.records if "entry dropped" in r.getMessage()]
        assert len(dropped) == 2 and "not json" in dropped[0]


def test_what_stands_before_the_end_in_a_lane_goes_as_the_end() -> None:
    """A lane is delivered in order: an edit with buttons ahead of the game's end is sent
    in the end's class; an optional edit, which the lane may leave behind, keeps its own."""
    lane = [
        Pending(Edit(-5, "lobby", "old list", KB), ["a"], 1),
        Pending(Edit(-5, "turn", "waiting for 9", KB, optional=True), ["b"], 2),
        Pending(Edit(-5, "turn:2", "🏆", KB, priority=END), ["c"], 3),
        Pending(Send(-5, "help", direct=True), ["d"], 4),
    ]
    assert [item.op.rank for item in with_lane_priority(lane)] == [END, STATUS, END, REPLY]


def test_a_close_is_an_optional_edit_of_its_copy_kept_apart_from_the_game_s_messages() -> None:
    """A stale copy's close names its message by id, under a reference of its own: it
    replaces no state of the game's messages and none replaces it, a second close of the
    same copy folds into it, and it waits for room to spare in a group."""
    entry = close_keyboard(-5, 77).to_op()
    assert route_of(json.dumps(entry)) == (-5, "e", "close:77", "0", None)
    lane = [
        parse("a", Edit(-5, "turn", "turn 1", KB).to_op()),
        parse("b", entry),
        parse("c", Edit(-5, "turn", "turn 2").to_op()),
        parse("d", close_keyboard(-5, 77).to_op()),
    ]
    kept = latest_state(lane)
    assert [p.raws for p in kept] == [["a", "c"], ["b", "d"]]
    close = kept[1].op
    assert isinstance(close, Edit) and close.closes == 77 and close.rank == STATUS


def test_a_waiting_private_close_never_overwrites_the_prompt_shown_in_its_place() -> None:
    # A prompt's optional close waits in the lane; the next prompt is shown in place of the
    # same message. Only the newer prompt is delivered (it carries both entries); the close
    # is not made after it, in this pass or a later one.
    entries = [
        Edit(7, "prompt:7", "✔️ Income", optional=True).to_op(),
        Send(7, "Your turn", KB, "prompt:7", in_place=True, deadline=Deadline(5, 30)).to_op(),
    ]
    [kept] = latest_state([parse(f"raw{i}", e) for i, e in enumerate(entries)])
    assert kept.show and isinstance(kept.op, Send)
    assert kept.op.text == "Your turn" and kept.op.kb == KB
    assert kept.raws == ["raw0", "raw1"]


def _lane(ops: list[Send | Edit]) -> list[Pending]:
    """A group's lane of `ops` as a pass reads it (latest states kept, verdicts ridden)."""
    return ride(latest_state([parse(f"raw{i}", op.to_op()) for i, op in enumerate(ops)]))


def test_quiet_turns_waiting_ride_at_the_top_of_the_next_claim_in_one_call() -> None:
    # Two quiet turns were added to the deal's message ("turn"), neither edit made yet;
    # the next claim's message names them: it carries both at its top (its deadline's
    # moment moved along), and takes their entries, so that neither edit is ever made.
    riders = Riders("turn", ("💰 A takes Income.", "💰 B takes Income."))
    claim = Send(-5, "C claims Tax. until ", KB, "turn2", moment=Moment(20), riders=riders)
    lane = _lane(
        [
            Edit(-5, "turn", "v\n\nq1", hold_ms=6000, optional=True, rides=1),
            Edit(-5, "turn", "v\n\nq1\n\nq2", hold_ms=6000, optional=True, rides=2),
            claim,
        ]
    )
    [item] = lane
    head = "💰 A takes Income.\n\n💰 B takes Income."
    assert item.op.text == f"{head}\n\nC claims Tax. until "
    assert item.op.moment == Moment(20 + len(head) + 2)
    assert item.raws == ["raw0", "raw1", "raw2"] and item.head == head
    # Its later states keep that head (noted by the sender: `Keys.message_heads`).
    verdict = parse("raw3", Edit(-5, "turn2", "C takes Tax.").to_op())
    [later] = with_heads([verdict], {"turn2@-5": head})
    assert later.op.text == f"{head}\n\nC takes Tax."


def test_only_the_verdicts_not_shown_yet_ride() -> None:
    # The first quiet turn's edit was made already (it is no longer in the lane): only the
    # second rides.
    riders = Riders("turn", ("q1", "q2"))
    lane = _lane(
        [
            Edit(-5, "turn", "v\n\nq1\n\nq2", hold_ms=6000, optional=True, rides=2),
            Send(-5, "claim", KB, "turn2", riders=riders),
        ]
    )
    assert [p.op.text for p in lane] == ["q2\n\nclaim"]


def test_a_quiet_turn_with_its_message_s_own_verdict_waiting_goes_as_an_edit() -> None:
    # The message's own verdict has not been shown yet: the edit must go (required, now),
    # the quiet turn with it; the claim carries nothing.
    riders = Riders("turn", ("q1",))
    lane = _lane(
        [
            Edit(-5, "turn", "v"),
            Edit(-5, "turn", "v\n\nq1", hold_ms=6000, optional=True, rides=1),
            Send(-5, "claim", KB, "turn2", riders=riders),
        ]
    )
    assert [p.op.text for p in lane] == ["v\n\nq1", "claim"]
    assert isinstance(lane[0].op, Edit) and not lane[0].op.optional and lane[0].op.rides is None
    assert lane[1].head is None


def test_a_rider_edit_is_kept_apart_in_the_store() -> None:
    # Folded into the message's pending state in Redis, which verdicts it adds would be
    # lost: it goes into its lane as it is.
    rider = Edit(-5, "turn", "v\n\nq1", hold_ms=6000, optional=True, rides=1).to_op()
    route = route_of(json.dumps(rider))
    assert route is not None and route[1] == "p"
    route = route_of(json.dumps(Edit(-5, "turn", "v").to_op()))
    assert route is not None and route[1] == "e"


def test_a_copy_s_text_is_known_with_or_without_the_moment_written_into_it() -> None:
    """`shows`: the text a copy was sent with, its moment written in where it stands."""
    plain = Send(9, "your move", KB, "prompt:9")
    assert shows("your move", plain)
    assert not shows("your move!", plain) and not shows("settings", plain)
    timed = Send(9, "answer by  or pass", KB, "turn", moment=Moment(10, 1_000, 60))
    assert shows("answer by 12:01 or pass", timed)
    assert not shows("answer by  or pass", timed)  # no moment written: not as sent
    assert not shows("answer by 12:01 or fold", timed)
