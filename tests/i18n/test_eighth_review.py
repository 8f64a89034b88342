"""The eighth native reading of the Georgian (2026-12-02, a fresh reader), points 6-8: no
"finishes the exchange" after an exchange the clock decided, the table's "only the target
may block" names the target, and two English wordings of /rules."""

from __future__ import annotations

import pytest

from tests.engine.helpers import AM, CP, CT, A, D, stacked_game
from tgbot.config import DEFAULT_LOCALES
from tgbot.contract.plan import Edit, Send
from tgbot.engine import Action, Game, Pass, TakeAction, Variant
from tgbot.engine import events as ev
from tgbot.rendering import guide, history
from tgbot.rendering.i18n import Catalogs
from tgbot.service.records import GameRecord, Seat, Timing
from tgbot.service.step_messages import StepMessages

CATALOGS = Catalogs(DEFAULT_LOCALES)
KA, EN = CATALOGS.get("ka"), CATALOGS.get("en")
NAMES = ["ნინო", "ლევანი", "თამარი"]
GROUP = -1


def record_for(lang: str, answers: str) -> GameRecord:
    """Three players reading one language, in the group `GROUP`."""
    seats = [Seat(pid, NAMES[pid - 1], lang) for pid in (1, 2, 3)]
    record = GameRecord("g", GROUP, None, lang, 1, Timing(60, 30, 30, 30, 60, 2), players=seats)
    record.answers = answers
    return record


def group_texts(
    builder: StepMessages, record: GameRecord, game: Game, events: list[ev.Event]
) -> list[str]:
    """The texts the group is sent or shown by one step."""
    ops = builder.build(record, game, events, now_ms=0).ops
    return [op.text for op in ops if isinstance(op, Send | Edit) and op.chat == GROUP]


def exchange_timed_out(lang: str) -> tuple[list[list[ev.Event]], list[str]]:
    """Nino exchanges, the others let her, and her time to choose runs out: each step's
    events, and what the group is sent or shown."""
    game = stacked_game([(CP, A), (D, CT), (D, CT)], deck_top=(AM, D))
    builder = StepMessages(CATALOGS, "coup_bot")
    record = record_for(lang, "table")
    steps: list[list[ev.Event]] = []
    shown: list[str] = []
    for decide in (
        lambda: game.apply(1, TakeAction(Action.EXCHANGE)),
        lambda: game.apply(2, Pass()),
        lambda: game.apply(3, Pass()),
        game.apply_timeout,
    ):
        steps.append(decide())
        shown += group_texts(builder, record, game, steps[-1])
    return steps, shown


@pytest.mark.parametrize("lang", ["ka", "en"])
def test_an_exchange_the_clock_decided_is_not_said_to_be_finished(lang: str) -> None:
    """Point 6: the group reads the timeout ("keeps what they had"), and no "finishes the
    exchange" after it, in the turn's message and in the game's log. The engine's events
    stay as they are (stored games replay them)."""
    t = CATALOGS.get(lang)
    timed_out = t.gettext("⌛ {player} ran out of time and keeps what they had.").format(
        player="ნინო"
    )
    finished = t.gettext("🔄 {actor} finishes the exchange.").format(actor="ნინო")
    steps, shown = exchange_timed_out(lang)
    assert [type(e) for e in steps[-1]][:3] == [
        ev.DecisionTimedOut,
        ev.ExchangeKept,
        ev.ExchangeCompleted,
    ]
    assert any(timed_out in text for text in shown), shown
    for text in shown:
        assert finished not in text, text
    log = history.public_log(t, steps, dict(enumerate(NAMES, 1)), "")
    assert timed_out in log and finished not in log


def test_an_exchange_chosen_in_time_is_still_finished() -> None:
    """Point 6: only the clock's exchange loses the line; one chosen keeps it."""
    game = stacked_game([(CP, A), (D, CT), (D, CT)], deck_top=(AM, D))
    steps = [game.apply(1, TakeAction(Action.EXCHANGE)), game.apply(2, Pass())]
    steps.append(game.apply(3, Pass()))
    steps.append(game.apply(1, game.legal_decisions(1)[0]))  # a choice of her own
    log = history.public_log(KA, steps, {1: "ნინო"}, "")
    assert "🔄 ნინო ასრულებს გაცვლას." in log


@pytest.mark.parametrize(
    ("lang", "line"),
    [
        ("ka", "🛡 დაბლოკვა მხოლოდ სამიზნეს შეუძლია: ლევანი."),
        ("en", "🛡 Only the target can block: ლევანი."),
    ],
    ids=["ka", "en"],
)
def test_the_table_is_told_who_may_block(lang: str, line: str) -> None:
    """Point 7: Nino steals from Levani; the group's question over the answer buttons names
    him as the one who may block."""
    game = stacked_game([(CP, A), (D, CT), (D, CT)])
    builder = StepMessages(CATALOGS, "coup_bot")
    record = record_for(lang, "table")
    shown = group_texts(builder, record, game, game.apply(1, TakeAction(Action.STEAL, 2)))
    assert len(shown) == 1
    assert line in shown[0].split("\n"), shown[0]


@pytest.mark.parametrize("variant", list(Variant))
def test_the_english_rules_reworded_and_the_georgian_kept(variant: Variant) -> None:
    """Point 8: "If your time runs out on your turn" and "(its changes are at the end)" in
    English; the Georgian reads as before; both still one Telegram message."""
    en, ka = guide.rules_for(EN, variant), guide.rules_for(KA, variant)
    assert "turn runs out" not in en and "what it changes is" not in en
    assert "If your time runs out on your turn, you take Income" in en
    assert "თუ სვლის დრო ამოგეწურა, შემოსავალს იღებ" in ka
    # The heads name where the changes are: since ka-review-2026-12-05 (4) Reformation's come
    # in a message of their own.
    assert ("Reformation's in the next message" in en) == (
        variant.reformation and variant.inquisitor
    )
    assert ("(its changes are in the next message)" in en) == (
        variant.reformation and not variant.inquisitor
    )
    assert ("(ცვლილებები შემდეგ შეტყობინებაშია)" in ka) == (
        variant.reformation and not variant.inquisitor
    )
    if variant.reformation:
        assert "(if your time runs out, against the next player" in en
    for t in (EN, KA):
        for text in guide.rules_messages(t, variant):
            units = len(text.encode("utf-16-le")) // 2
            assert units <= 4096, (variant, units)
