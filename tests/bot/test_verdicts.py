"""Issue 38 through the simulated Bot API: whole 6-player games in every variant and both
answer modes, each public event in the group exactly once and in order, no window left
with live buttons, and a press on a closed window or a stale prompt answered once with
nothing changed, and every player's dealt hand still readable in their chat."""

from __future__ import annotations

import pytest

from tests.bot.play import open_lobby, players
from tests.resilience.test_kill9 import policy, wait_for_prompt
from tests.telegram_sim.harness import Harness, TgUser, running_bot
from tgbot.contract import callbacks as buttons
from tgbot.engine import DecisionKind, Game, Variant
from tgbot.engine import events as ev
from tgbot.rendering.texts import describe
from tgbot.rendering.texts import told as worth_a_line
from tgbot.service.records import GameRecord


async def _calls(h: Harness, game_id: str) -> int:
    await h.delivered(game_id)
    return sum(c.method in ("sendMessage", "editMessageText") for c in h.sim.calls)


async def play(h: Harness, game_id: str, users: list[TgUser], group: int, at_table: bool) -> None:
    """Decide by the replayable policy on each decision's own button; once in the game,
    press a closed window's button and a decided prompt's, which change nothing."""
    closed: tuple[int, str] | None = None  # a window's message and its Pass, once closed
    stale: tuple[TgUser, int, str] | None = None  # a decided prompt
    checked_window = checked_prompt = False
    for _ in range(3000):
        await h.delivered(game_id, held=False)
        record = await h.record(game_id)
        assert record is not None
        if record.status == "over":
            assert checked_prompt and (checked_window or not at_table)
            return
        game = record.game()
        if closed is not None and not checked_window and record.table_context is None:
            seated = users[0]
            before, rev = await _calls(h, game_id), record.rev
            answer = await h.press(seated, group, closed[0], closed[1])
            assert answer["text"] == h.tr("Already answered.")
            assert await _calls(h, game_id) == before
            assert (await h.record(game_id)).rev == rev  # type: ignore[union-attr]
            checked_window = True
        if stale is not None and not checked_prompt:
            user, message_id, data = stale
            if record.prompts.get(user.id) is None:
                before, rev = await _calls(h, game_id), record.rev
                answer = await h.press(user, user.id, message_id, data)
                assert answer["text"] == h.tr("Already decided.")
                assert await _calls(h, game_id) == before
                assert (await h.record(game_id)).rev == rev  # type: ignore[union-attr]
                checked_prompt = True
        player = game.awaiting().players[0]
        table = at_table and game.awaiting().kind is DecisionKind.RESPONSE
        chat = group if table else player
        message_id = await wait_for_prompt(h, chat, f"{game_id}.{record.context}.")
        code = buttons.encode_decision(policy(game, player), [p.id for p in game.players])
        data = buttons.pack(game_id, record.context, code)
        user = next(u for u in users if u.id == player)
        await h.press(user, chat, message_id, data)
        if table and closed is None:
            closed = (message_id, data)
        if not table and stale is None:
            stale = (user, message_id, data)
    raise AssertionError("the game did not end")


def public_lines(h: Harness, played: GameRecord) -> list[str]:
    """Every public event of the same game, replayed from its seed, as the group reads it."""
    assert played.seed is not None
    ids = [s.id for s in played.players]
    game, events = Game.new(
        ids, played.seed, afk_limit=played.timing.afk_limit, variant=played.game_variant()
    )
    told = list(events)
    while not game.over:
        player = game.awaiting().players[0]
        told += game.apply(player, policy(game, player))
    t = h.catalogs.get(played.lang)
    names = played.names()
    public = [
        e
        for e in told
        if e.recipient is None and not isinstance(e, ev.ResponsePassed | ev.TurnStarted)
    ]
    return [
        line
        for e in worth_a_line(public)
        if not isinstance(e, ev.GameEnded)
        for line in (describe(e, t, names) or "").splitlines()  # each line as a reader sees it
    ]


@pytest.mark.parametrize("answers", ["table", "private"])
@pytest.mark.parametrize("variant", list(Variant))
async def test_every_public_event_shows_once_in_order_and_stale_buttons_change_nothing(
    redis_server_url: str, variant: Variant, answers: str
) -> None:
    group = -(103_000 + 10 * list(Variant).index(variant) + (answers == "private"))
    async with running_bot(redis_server_url) as h:
        await h.store.prefs.set_chat_settings(group, answers=answers, variant=variant.value)
        users = players(6, first_id=-group * 10)
        game_id = await open_lobby(h, users, group)
        await h.delivered(game_id)
        await h.press_text(users[0], group, h.tr("▶️ Start"))
        await play(h, game_id, users, group, answers == "table")
        await h.delivered(game_id)
        played = await h.record(game_id)
        assert played is not None
        expected = public_lines(h, played)
        shown = [line for m in h.sim.messages(group) for line in m.text.splitlines()]
        # Each line of the game's public events is shown as often as it happened, in order.
        at = 0
        for line in expected:
            assert line in shown[at:], (line, shown[at:])
            at = shown.index(line, at) + 1
        for line in set(expected):
            assert shown.count(line) == expected.count(line), line
        # No window left with live buttons: only the end's Play again and Replay.
        live = h.sim.with_buttons(group)
        assert len(live) == 1 and "🏆" in live[0].text
        # The dealt hand is readable in every player's chat at the end, never edited.
        for u in users:
            dealt = [m for m in h.sim.messages(u.id) if m.text.startswith("🂠")]
            assert dealt and dealt[0].edits == 0, [m.text for m in h.sim.messages(u.id)]
        assert not h.sim.flood_refusals(group)
