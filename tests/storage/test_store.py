"""The Redis layer on a real server: compare-and-set, deadline claims, the group window."""

from __future__ import annotations

import asyncio
import json
import time

import pytest

from tests.store_probe import admit_chat, deadline_of
from tgbot.contract.plan import Edit
from tgbot.storage.commit import Duplicate, Stale
from tgbot.storage.outbox import LANE_HEAD, ROUTE_BATCH
from tgbot.storage.plan import SEEN_KEPT, Writes
from tgbot.storage.store import Store
from tgbot.telegram.lanes import Pending, from_lane


async def test_compare_and_set_serialises_concurrent_writers(store: Store) -> None:
    key = store.keys.game("counter")
    await store.redis.set(key, "0")

    async def bump() -> None:
        def build(seen: dict[str, str | None]) -> Writes:
            writes = Writes()
            writes.set_str[key] = str(int(seen[key] or 0) + 1)
            return writes

        await store.commits.atomic([key], build)

    await asyncio.gather(*(bump() for _ in range(50)))
    assert await store.commits.get(key) == "50"


async def test_a_failing_build_writes_nothing(store: Store) -> None:
    key = store.keys.game("untouched")

    def build(_: dict[str, str | None]) -> Writes:
        raise ValueError("refused")

    with pytest.raises(ValueError):
        await store.commits.atomic([key], build)
    assert await store.commits.get(key) is None


async def test_a_due_deadline_is_claimed_once_and_comes_back_after_its_lease(store: Store) -> None:
    for game_id, due in (("g1", 1000), ("g2", 5000)):
        await store.redis.zadd(store.keys.deadlines(store.keys.bucket(game_id)), {game_id: due})
    first, second = await asyncio.gather(
        store.deadlines.claim_due(2000, lease_ms=30_000),
        store.deadlines.claim_due(2000, lease_ms=30_000),
    )
    assert sorted(first + second) == ["g1"]
    assert await store.deadlines.claim_due(2000, lease_ms=30_000) == []
    # Nobody finished handling it: after the lease it fires again.
    assert sorted(await store.deadlines.claim_due(32_001, lease_ms=30_000)) == ["g1", "g2"]


async def test_group_window_admits_twenty_a_minute(store: Store) -> None:
    waits = [await admit_chat(store, -5, 1000 + i, 20, 60_000) for i in range(20)]
    assert waits == [0] * 20
    wait = await admit_chat(store, -5, 2000, 20, 60_000)
    assert 58_000 < wait <= 60_001
    assert await admit_chat(store, -5, 61_001, 20, 60_000) == 0
    # Another group has its own window.
    assert await admit_chat(store, -6, 2000, 20, 60_000) == 0


async def test_a_held_chat_waits_out_the_hold_before_its_window(store: Store) -> None:
    await store.windows.hold_chat(-7, 5_000)
    wait = await admit_chat(store, -7, int(time.time() * 1000), 20, 60_000)
    assert 4_000 < wait <= 5_000
    assert await admit_chat(store, -8, int(time.time() * 1000), 20, 60_000) == 0


async def test_two_games_claiming_one_index_leave_one_game(store: Store) -> None:
    # Two lobbies opened at once in one group, in different slots: the index is claimed
    # before each record's commit, so exactly one commits and the other is refused.
    index = store.keys.chat_game(-42)

    async def open_game(game_id: str) -> bool:
        key = store.keys.game(game_id)

        def build(seen: dict[str, str | None]) -> Writes:
            if seen[index]:
                raise ValueError("taken")
            return Writes(set_json={key: {"status": "lobby", "rev": 1}}, set_str={index: game_id})

        try:
            await store.commits.atomic([key, index], build)
        except ValueError:
            return False
        return True

    won = await asyncio.gather(*(open_game(f"race{i}") for i in range(6)))
    assert won.count(True) == 1
    winner = f"race{won.index(True)}"
    assert await store.commits.get(index) == winner
    for i in range(6):
        exists = await store.commits.get(store.keys.game(f"race{i}")) is not None
        assert exists == (f"race{i}" == winner)


async def test_a_transaction_block_commits_on_leaving_it_and_writes_nothing_on_a_raise(
    store: Store,
) -> None:
    key = store.keys.game("block")
    await store.redis.set(key, json.dumps({"status": "lobby", "rev": 1}))
    with pytest.raises(ValueError):
        async with store.games.transaction("block") as (seen, tx):
            tx.set_json[key] = {"status": "playing", "rev": 2}
            raise ValueError("refused")
    assert json.loads(await store.commits.get(key) or "{}")["rev"] == 1
    async with store.games.transaction("block") as (seen, tx):
        assert seen.record is not None
        tx.set_json[key] = {"status": "playing", "rev": 2}
    assert json.loads(await store.commits.get(key) or "{}")["rev"] == 2


async def test_a_transaction_whose_read_is_out_of_date_is_stale_and_keeps_the_winners_index(
    store: Store,
) -> None:
    """Two joins by one person at once (a double tap): both read the lobby and a free
    person's index; the first commits and its index names the game. The second's claim
    finds the index already this game's: it loses the compare-and-set (Stale) and must
    not take the winner's index away with it."""
    key, index = store.keys.game("lobby1"), store.keys.user_game(77)
    await store.redis.set(key, json.dumps({"status": "lobby", "rev": 1}))
    first = store.games.transaction("lobby1", players=(77,))
    second = store.games.transaction("lobby1", players=(77,))
    seen_a, tx_a = await first.__aenter__()
    seen_b, tx_b = await second.__aenter__()
    assert seen_a.player(77) is None and seen_b.player(77) is None
    for tx in (tx_a, tx_b):
        tx.set_json[key] = {"status": "lobby", "rev": 2}
        tx.claim_player(77)
    await first.__aexit__(None, None, None)
    assert await store.commits.get(index) == "lobby1"
    with pytest.raises(Stale):
        await second.__aexit__(None, None, None)
    assert await store.commits.get(index) == "lobby1"  # the winner's index stays


async def test_an_index_naming_a_finished_or_missing_game_reads_as_none(store: Store) -> None:
    # What a crash leaves between a game's last commit and its index's removal (or between
    # a claim and its commit) reads as absent, and the next game takes the index over.
    index = store.keys.chat_game(-43)
    await store.redis.set(store.keys.game("old"), '{"status": "over", "rev": 9}')
    for stale in ("old", "never-written"):
        await store.redis.set(index, stale)
        key = store.keys.game(f"new-{stale}")

        def build(seen: dict[str, str | None], key: str = key, stale: str = stale) -> Writes:
            assert seen[index] is None
            return Writes(set_json={key: {"status": "lobby", "rev": 1}}, set_str={index: key})

        await store.commits.atomic([key, index], build)
        assert await store.commits.get(index) == key


async def test_an_update_applied_to_a_record_is_not_applied_again(store: Store) -> None:
    key = store.keys.game("dedup")
    await store.redis.set(key, '{"status": "playing", "rev": 1}')

    def bump(seen: dict[str, str | None]) -> Writes:
        doc = json.loads(seen[key] or "{}")
        doc["rev"] += 1
        return Writes(set_json={key: doc})

    await store.commits.atomic([key], bump, update_id=500)
    with pytest.raises(Duplicate):
        await store.commits.atomic([key], bump, update_id=500)
    for update_id in range(501, 501 + SEEN_KEPT):
        await store.commits.atomic([key], bump, update_id=update_id)
    with pytest.raises(Duplicate):  # older than every id the record keeps: applied before
        await store.commits.atomic([key], bump, update_id=499)
    doc = json.loads(await store.commits.get(key) or "{}")
    assert doc["rev"] == 2 + SEEN_KEPT and len(doc["_seen"]) == SEEN_KEPT


async def test_a_later_step_s_deadline_is_never_overridden_by_an_older_one(store: Store) -> None:
    # On a cluster, post-commit deadline writes carry the record's revision: a slow older
    # step's arrives last and changes nothing. (On one server the deadline is written in
    # the step's compare-and-set script: see the next test.)
    if not store.cluster:
        pytest.skip("one server: no post-commit deadline writes")
    key = store.keys.game("dl")
    for rev, due in ((5, 9_000), (4, 99_000)):
        await store.redis.set(key, f'{{"status": "playing", "rev": {rev - 1}}}')

        def step(_: dict[str, str | None], rev: int = rev, due: int = due) -> Writes:
            return Writes(
                set_json={key: {"status": "playing", "rev": rev}}, deadline_set={"dl": due}
            )

        await store.commits.atomic([key], step)
    assert await deadline_of(store, "dl") == 9_000


async def test_an_older_step_that_read_before_a_newer_one_commits_no_deadline(
    store: Store,
) -> None:
    # A step that read the record before a newer step committed fails its compare-and-set
    # and is built again from the newer record: its older deadline is never written.
    key = store.keys.game("dl2")
    await store.redis.set(key, '{"status": "playing", "rev": 3}')
    built: list[int] = []

    def newer(_: dict[str, str | None]) -> Writes:
        return Writes(set_json={key: {"status": "playing", "rev": 5}}, deadline_set={"dl2": 9_000})

    async def older(seen: dict[str, str | None]) -> Writes:
        rev = json.loads(seen[key] or "{}")["rev"]
        built.append(rev)
        if len(built) == 1:
            await store.commits.atomic([key], newer)
        if rev >= 4:
            return Writes()  # the game moved on: this step has nothing to do
        return Writes(set_json={key: {"status": "playing", "rev": 4}}, deadline_set={"dl2": 99_000})

    await store.commits.atomic([key], older)
    assert built == [3, 5]
    assert await deadline_of(store, "dl2") == 9_000


async def test_an_upgrade_moves_the_older_global_deadlines_and_outboxes_into_buckets(
    store: Store,
) -> None:
    prefix = store.keys.prefix
    await store.redis.zadd(f"{prefix}:deadlines", {"g7": 7000, "g8": 8000})
    await store.redis.sadd(f"{prefix}:outboxes", "g7")
    moved = await store.deadlines.adopt_legacy()
    if store.cluster:  # an older version never ran on a cluster: nothing to adopt
        assert moved == 0
        return
    assert moved == 3
    assert await deadline_of(store, "g7") == 7000 and await deadline_of(store, "g8") == 8000
    assert await store.delivery.pending_mark("g7") == 0
    assert not await store.redis.exists(f"{prefix}:deadlines", f"{prefix}:outboxes")


async def test_the_bots_calls_taken_together_keep_to_its_window(store: Store) -> None:
    """A batch takes what is free (counted ahead of now), then the window is full."""
    assert await store.windows.take_bot(True, 0, 10_000, 6, 1_000, 4, 200) == (4, 0)
    assert await store.windows.take_bot(True, 0, 10_000, 6, 1_000, 4, 200) == (2, 0)
    taken, wait = await store.windows.take_bot(True, 0, 10_100, 6, 1_000, 1, 0)
    # Counted at 10,200 (ahead), they leave the window at 11,200: 1,100 ms from 10,100.
    assert taken == 0 and 1_000 < wait <= 1_101
    assert await store.windows.take_bot(True, 0, 11_201, 6, 1_000, 1, 0) == (1, 0)
    # Another shard, and the direct share, have their own windows.
    assert await store.windows.take_bot(True, 1, 10_100, 6, 1_000, 6, 200) == (6, 0)
    assert await store.windows.take_bot(False, 0, 10_100, 3, 1_000, 1, 0) == (1, 0)


async def test_every_call_the_rate_limiter_spends_is_counted_in_redis(store: Store) -> None:
    """Callers waiting together share batches, and Redis counts each call they make."""
    from tgbot.telegram.rate_limit import RedisRateLimiter

    first, second = RedisRateLimiter(store), RedisRateLimiter(store)  # two processes
    await asyncio.gather(
        *(limiter._bot_slot(True) for limiter in (first, second) for _ in range(5))
    )
    counted = 0
    for shard in range(4):
        counted += await store.redis.zcard(store.keys.bot_sends(True, shard))
    assert counted >= 10


async def test_a_chat_s_messages_counted_together_keep_to_its_window(store: Store) -> None:
    """Several messages of one chat are counted at once, ahead of now; then it is full."""
    assert await store.windows.take_chat(-9, 10_000, 5, 60_000, 3, 1_000) == (3, 0)
    assert await store.windows.take_chat(-9, 10_000, 5, 60_000, 3, 1_000) == (2, 0)
    taken, wait = await store.windows.take_chat(-9, 10_500, 5, 60_000, 1, 0)
    # Counted at 11,000 (ahead), the first leave the window at 71,000: 60,500 ms away.
    assert taken == 0 and 60_000 < wait <= 60_501
    await store.windows.hold_chat(-10, 5_000)
    taken, wait = await store.windows.take_chat(-10, int(time.time() * 1000), 5, 60_000, 3, 1_000)
    assert taken == 0 and 4_000 < wait <= 5_000


async def test_a_lane_s_calls_to_one_chat_are_counted_once_each_in_one_take(
    store: Store,
) -> None:
    """A lane of three messages to a private chat takes its window once; each is counted;
    an optional edit takes its own slot; a group is counted one at a time; a 429 drops
    what was counted ahead."""
    from telegram.error import RetryAfter

    from tgbot.contract.plan import STATUS
    from tgbot.telegram.rate_limit import RedisRateLimiter

    limiter = RedisRateLimiter(store)
    limiter.private_limit = 10
    window = store.keys.chat_sends(11)
    await limiter._chat_slot(11, calls=3)
    assert await store.redis.zcard(window) == 3  # counted together
    await limiter._chat_slot(11, calls=2)
    await limiter._chat_slot(11, priority=STATUS)
    assert await store.redis.zcard(window) == 4  # the optional edit counted on its own
    await limiter._chat_slot(11, calls=1)
    assert await store.redis.zcard(window) == 4  # the lane's third, counted before
    await limiter._chat_slot(11, calls=3)
    assert await store.redis.zcard(window) == 7
    group = store.keys.chat_sends(-11)
    await limiter._chat_slot(-11, calls=3)
    assert await store.redis.zcard(group) == 1  # a group's minute: one at a time

    async def refused() -> bool:
        raise RetryAfter(3)

    with pytest.raises(RetryAfter):
        await limiter.process_request(refused, (), {}, "sendMessage", {"chat_id": 11}, None)
    assert 11 not in limiter._chat_bank  # the two counted ahead wait out the hold
    assert 0 < await store.redis.pttl(store.keys.chat_hold(11)) <= 3_000


async def test_a_drain_s_end_releases_the_lock_and_keeps_a_newer_mark(store: Store) -> None:
    """After a drain: the lock is released; a non-empty outbox keeps its mark; an empty one
    loses it, unless a step marked it again since the drain read it."""
    owner, keys = "fin", store.keys
    bucket = keys.pending_outboxes(keys.bucket(owner))
    writes = Writes()
    writes.send(owner, {"op": "send", "chat": 1, "text": "t"})
    await store.commits.commit(writes)  # queues one entry and marks the outbox
    await store.delivery.renew_sender_lease("p:me", 5_000)
    await store.delivery.renew_sender_lease("p:other", 5_000)
    taken, mark = await store.delivery.lock_outbox(owner, "p:me")
    assert taken and mark is not None
    assert await store.delivery.lock_outbox(owner, "p:other") == (False, None)  # "p:me" is alive
    assert await store.delivery.unlock_outbox(owner, "p:me", mark) is False  # not empty yet
    assert not await store.redis.exists(keys.sending(owner))
    assert await store.delivery.pending_mark(owner) == mark
    taken, _ = await store.delivery.lock_outbox(owner, "p:me")
    head = await store.outboxes.outbox_pass(owner, "p:me", 60)
    assert head is not None and [e.raw for e in head.lanes[1]] == [
        raw for raw, _ in await store.outboxes.outbox_items(owner)
    ]
    tokens = [e.token for e in head.lanes[1]]
    assert await store.outboxes.outbox_delivered(owner, {1: tokens}, {"r": 7}) == 0
    await store.redis.zadd(bucket, {owner: mark + 1})  # a step marked it meanwhile
    assert await store.delivery.unlock_outbox(owner, "p:me", mark) is True
    assert await store.delivery.pending_mark(owner) == mark + 1  # kept for the sweeper
    assert await store.delivery.unlock_outbox(owner, "p:me", mark + 1) is True
    assert await store.delivery.pending_mark(owner) is None
    assert await store.redis.hgetall(keys.messages(owner)) == {"r": "7"}


async def test_an_attempted_send_reads_back_with_the_floor_it_noted(store: Store) -> None:
    """A send noted as attempted reads back as sent 0 with the newest id known in its chat
    then (where a copy it left may start); one noted without a floor, as an older version
    did, reads back with none; a recorded send reads back as its message id."""
    owner = "floor"
    writes = Writes()
    for text in ("a", "b", "c"):
        writes.send(owner, {"op": "send", "chat": 3, "text": text, "ref": text, "kb": [[]]})
    await store.commits.commit(writes)
    await store.delivery.renew_sender_lease("p:me", 5_000)
    assert await store.delivery.take_outbox_lock(owner, "p:me")
    head = await store.outboxes.outbox_pass(owner, "p:me", 60)
    assert head is not None
    first, second, third = (e.token for e in head.lanes[3])
    await store.outboxes.outbox_attempt(owner, first, 41)
    await store.outboxes.outbox_attempt(owner, first, 50)  # noted once: the first stays
    await store.outboxes.outbox_attempt(owner, second)
    await store.outboxes.outbox_sent(owner, third, "c", 44)
    head = await store.outboxes.outbox_pass(owner, "p:me", 60)
    assert head is not None
    assert [(e.sent, e.floor) for e in head.lanes[3]] == [(0, 41), (0, None), (44, None)]


async def test_a_lock_whose_process_is_gone_is_taken_over(store: Store) -> None:
    """A delivery lock names its process; once that process's lease lapses (it was killed),
    another takes the lock over, and the first one's passes find it lost. An older
    version's lock is left to lapse."""
    owner = "dead"
    writes = Writes()
    writes.send(owner, {"op": "send", "chat": 1, "text": "t"})
    await store.commits.commit(writes)
    await store.delivery.renew_sender_lease("p:first", 5_000)
    assert await store.delivery.take_outbox_lock(owner, "p:first")
    assert not await store.delivery.take_outbox_lock(owner, "p:second")
    await store.redis.delete(store.keys.sender_lease("p:first"))  # its lease ran out
    assert await store.delivery.take_outbox_lock(owner, "p:second")
    assert await store.outboxes.outbox_pass(owner, "p:first", 60) is None
    # A lock an older version took (a per-delivery token, no lease) lapses by itself.
    await store.redis.set(store.keys.sending("older"), "0123456789abcdef", px=5_000)
    assert not await store.delivery.take_outbox_lock("older", "p:second")


async def test_a_pass_reads_a_bounded_head_and_keeps_only_the_newest_state(store: Store) -> None:
    """3,000 messages wait for a group: a pass takes ROUTE_BATCH of them into the group's
    lane and reads LANE_HEAD, the private message queued last is read all the same, and
    the group's lobby edits are one state, the newest (its older places dropped)."""
    owner, group, player = "big", -5, 5
    for start in range(0, 3000, 500):
        writes = Writes()
        for i in range(start, start + 500):
            op = {"op": "edit", "chat": group, "ref": "lobby", "text": f"v{i}"}
            writes.send(owner, op if i % 2 else {"op": "send", "chat": group, "text": f"m{i}"})
        await store.commits.commit(writes)
    writes = Writes()
    writes.send(owner, {"op": "send", "chat": player, "text": "yours"})
    await store.commits.commit(writes)
    await store.delivery.renew_sender_lease("p:me", 5_000)
    assert await store.delivery.take_outbox_lock(owner, "p:me")
    head = await store.outboxes.outbox_pass(owner, "p:me", 60)
    assert head is not None and set(head.lanes) == {group}
    assert len(head.lanes[group]) <= LANE_HEAD
    assert await store.redis.llen(store.keys.outbox(owner)) == 3001 - ROUTE_BATCH
    for _ in range(3001 // ROUTE_BATCH):
        head = await store.outboxes.outbox_pass(owner, "p:me", 60)
    assert head is not None and "yours" in head.lanes[player][0].raw
    assert len(head.lanes[group]) <= LANE_HEAD
    assert not await store.redis.llen(store.keys.outbox(owner))  # all taken into lanes
    queued = [op for _, op in await store.outboxes.outbox_items(owner)]
    assert [op["text"] for op in queued if op["op"] == "edit"] == ["v2999"]  # newest, once
    assert len(queued) == 1500 + 1 + 1


async def test_a_required_state_over_an_optional_one_counts_from_its_own_time(
    store: Store,
) -> None:
    """A story state held for the verdict (optional), then the verdict (required): the one
    state left counts from the verdict's time (the group was not behind while only what it
    may leave behind waited); two required states count from the older."""
    owner, group = "lag", -6
    states = [
        {"op": "edit", "chat": group, "ref": "turn", "text": "a", "optional": True},
        {"op": "edit", "chat": group, "ref": "turn", "text": "b"},
        {"op": "edit", "chat": group, "ref": "turn", "text": "c"},
    ]
    await store.delivery.renew_sender_lease("p:me", 5_000)
    assert await store.delivery.take_outbox_lock(owner, "p:me")
    ats = []
    for op in states:
        writes = Writes()
        writes.send(owner, op)
        await store.commits.commit(writes)
        head = await store.outboxes.outbox_pass(owner, "p:me", 60)
        assert head is not None
        [entry] = head.lanes[group]
        ats.append(entry.at)
        await asyncio.sleep(0.02)  # each queued at its own time (Writes notes it)
    assert ats[0] is not None and ats[1] is not None
    assert ats[0] < ats[1] == ats[2]


async def test_a_failed_update_lets_its_retry_in_at_once(store: Store) -> None:
    # The webhook answers 503 for a failed update, and Telegram sends it again: that retry
    # must not wait out the failed attempt's lease.
    chat, update_id = -4242, 9001

    async def fail_and_abandon() -> None:
        handling = await store.updates.begin(chat, update_id)
        assert not handling.applied_before
        await store.updates.abandon(handling)

    await asyncio.create_task(fail_and_abandon())
    pattern = f"{store.keys.prefix}:*:u:{update_id}"
    assert [key async for key in store.redis.scan_iter(pattern)] == []
    retry = asyncio.create_task(store.updates.begin(chat, update_id))
    assert not (await asyncio.wait_for(retry, 5.0)).applied_before  # the lease: 10 s


async def test_an_optional_state_folded_over_a_required_one_in_the_lane_stays_required(
    store: Store,
) -> None:
    """A turn's closing edit (required: its buttons go) waits in the group's lane; the
    next step's optional edit of the same message (its "whose turn" line taken off) is
    folded into it in the store. The one state read back is the newest text, and still
    required; two optional states stay optional."""
    owner, group = "fold", -7
    await store.delivery.renew_sender_lease("p:me", 5_000)
    assert await store.delivery.take_outbox_lock(owner, "p:me")

    async def queue(op: Edit) -> None:
        writes = Writes()
        writes.send(owner, op.to_op())
        await store.commits.commit(writes)

    async def read_back() -> list[Pending]:
        head = await store.outboxes.outbox_pass(owner, "p:me", 60)
        assert head is not None
        return [from_lane(e) for e in head.lanes[group]]

    await queue(Edit(group, "turn:3", "closed, ▶️ next", None))
    [closing] = await read_back()  # taken into the lane, not delivered
    assert isinstance(closing.op, Edit) and not closing.op.optional
    await queue(Edit(group, "turn:3", "closed", None, optional=True))
    [folded] = await read_back()
    assert isinstance(folded.op, Edit) and folded.op.text == "closed"
    assert not folded.op.optional
    await queue(Edit(group, "turn:4", "waiting for 2", None, 1200, optional=True))
    await read_back()
    await queue(Edit(group, "turn:4", "waiting for 1", None, 1200, optional=True))
    [_, status] = await read_back()
    assert isinstance(status.op, Edit) and status.op.optional and status.op.hold_ms == 1200


async def test_a_group_s_replies_keep_their_own_slots_and_never_take_the_game_s(
    store: Store,
) -> None:
    """The game's messages fill their share of a group's minute (15 of 18) and no more;
    replies to commands then find their 3 slots, and take no more while the game has
    messages in the minute; in a minute without the game's, replies may fill it. A reply
    never moves the game's pace."""
    from tgbot.storage.windows import GroupShare

    game, reply = GroupShare("game", cap=15), GroupShare("reply", own=3)
    group, now = -12, 50_000_000

    async def take(at: int, share: GroupShare, pace: int = 0) -> int:
        taken, _ = await store.windows.take_chat(group, at, 18, 60_000, 1, 0, pace, 0, share)
        return taken

    assert [await take(now + i, game) for i in range(16)] == [1] * 15 + [0]
    assert [await take(now + 100 + i, reply) for i in range(4)] == [1, 1, 1, 0]
    taken, wait = await store.windows.take_chat(group, now + 200, 18, 60_000, 1, 0, 0, 0, game)
    assert taken == 0 and 59_000 < wait <= 60_000  # until the first game message leaves
    # A minute later, with no game message in the window, replies may take all 18.
    later = now + 200_000
    assert [await take(later + i, reply) for i in range(19)] == [1] * 18 + [0]
    # A reply keeps no pace and moves none: the game's next message is due at once.
    quiet = later + 200_000
    assert await take(quiet, reply) == 1
    assert await take(quiet + 1, game, pace=4_000) == 1
    assert await take(quiet + 2, reply) == 1
    assert await take(quiet + 3, game, pace=4_000) == 0  # the game's own pace holds it
