"""A 6-player game makes no more Bot API calls than its message plan counts."""

from __future__ import annotations

from tests.bot.play import open_lobby, players
from tests.resilience.test_kill9 import policy, wait_for_prompt
from tests.telegram_sim.harness import Harness, TgUser, running_bot
from tgbot.contract import callbacks as buttons
from tgbot.contract.plan import Edit, Plan, Send
from tgbot.engine import DecisionKind, Game, game_to_dict
from tgbot.engine import events as ev
from tgbot.service.records import PLAYING, GameRecord
from tgbot.service.step_messages import LOBBY_REF, StepMessages

GROUP = -100666


async def play_by_policy(h: Harness, game_id: str, users: list[TgUser]) -> None:
    """Decide by the replayable policy, pressing each decision's own button."""
    for _ in range(3000):
        await h.delivered(game_id, held=False)
        record = await h.record(game_id)
        assert record is not None
        if record.status == "over":
            return
        game = record.game()
        player = game.awaiting().players[0]
        at_table = game.awaiting().kind is DecisionKind.RESPONSE
        chat = GROUP if at_table else player
        message_id = await wait_for_prompt(h, chat, f"{game_id}.{record.context}.")
        code = buttons.encode_decision(policy(game, player), [p.id for p in game.players])
        user = next(u for u in users if u.id == player)
        await h.press(user, chat, message_id, buttons.pack(game_id, record.context, code))
    raise AssertionError("the game did not end")


def replayed_plans(h: Harness, played: GameRecord) -> tuple[list[Plan], int, Game]:
    """The plan of every step of the same game, built again from its seed and the policy."""
    assert played.seed is not None
    record = GameRecord(
        played.id,
        played.chat_id,
        played.thread_id,
        played.lang,
        played.creator,
        played.timing,
        status=PLAYING,
        players=played.players,
        answers=played.answers,
    )
    record.turn_ref = LOBBY_REF
    builder = StepMessages(h.catalogs, "coup_test_bot")
    builder.hold_ms = 0
    ids = [s.id for s in played.players]
    game, events = Game.new(ids, played.seed, afk_limit=played.timing.afk_limit)
    plans = [builder.build(record, game, events, 0)]
    turns = 1
    while not game.over:
        player = game.awaiting().players[0]
        events = game.apply(player, policy(game, player))
        turns += sum(isinstance(e, ev.TurnStarted) for e in events)
        plans.append(builder.build(record, game, events, 0))
    return plans, turns, game


async def test_a_six_player_game_makes_at_most_the_calls_its_plan_counts(
    redis_server_url: str,
) -> None:
    async with running_bot(redis_server_url) as h:
        users = players(6, first_id=6600)
        game_id = await open_lobby(h, users, GROUP)
        await h.delivered(game_id)
        mark = len(h.sim.calls)
        await h.press_text(users[0], GROUP, h.tr("▶️ Start"))
        await play_by_policy(h, game_id, users)
        await h.delivered(game_id)
        played = await h.record(game_id)
        assert played is not None and played.engine is not None
        plans, turns, replay = replayed_plans(h, played)
        assert game_to_dict(replay) == played.engine  # the same game, step for step
        ops = [op for plan in plans for op in plan.ops]
        calls = [
            c
            for c in h.sim.calls[mark:]
            if c.method in ("sendMessage", "editMessageText") and c.status == 200
        ]

        def observed(method: str, group: bool) -> int:
            return sum(
                c.method == method and (int(c.params["chat_id"]) == GROUP) == group for c in calls
            )

        def planned(kind: type, group: bool, in_place: bool | None = None) -> int:
            return sum(
                isinstance(op, kind)
                and (op.chat == GROUP) == group
                and (in_place is None or getattr(op, "in_place", False) == in_place)
                for op in ops
            )

        def sent_with_buttons(group: bool) -> tuple[int, int]:
            """Sends with buttons, as planned and as made: each in one call, buttons on."""
            made = sum(
                c.method == "sendMessage"
                and bool(c.params.get("reply_markup"))
                and (int(c.params["chat_id"]) == GROUP) == group
                for c in calls
            )
            return made, sum(
                isinstance(op, Send) and (op.chat == GROUP) == group and bool(op.kb) for op in ops
            )

        # The group: every turn message planned is sent (none merged, none lost), each
        # with its buttons in that one call, and no more edits go out than planned
        # (latest state wins may drop some).
        assert observed("sendMessage", True) == planned(Send, True)
        made, wanted = sent_with_buttons(True)
        assert made == wanted > 0
        assert observed("editMessageText", True) <= planned(Edit, True)
        assert observed("editMessageText", True) >= turns - planned(Send, True)
        # Private chats: every prompt arrives, nothing beyond the plan is sent.
        private_ops = planned(Send, False) + planned(Edit, False)
        private_calls = observed("sendMessage", False) + observed("editMessageText", False)
        prompts = sum(isinstance(op, Send) and op.chat != GROUP and bool(op.kb) for op in ops)
        assert prompts <= private_calls <= private_ops
        made, wanted = sent_with_buttons(False)
        assert 0 < made <= wanted
        assert not [c for c in h.sim.calls[mark:] if c.status == 429]
        assert len(calls) <= len(ops)
        # A prompt whose close a busy bot dropped may keep its buttons: they decide nothing.
        for u in users:
            for message in h.sim.with_buttons(u.id):
                data = next(
                    b["callback_data"]
                    for row in message.keyboard
                    for b in row
                    if str(b.get("callback_data", "")).startswith(f"{game_id}.")
                )
                answer = await h.press(u, u.id, message.message_id, data)
                assert answer["text"] in (h.tr("Already decided."), h.tr("This game is over."))
