"""Every event renders in both languages for every kind of recipient."""

from __future__ import annotations

import random

from tgbot.config import DEFAULT_LOCALES
from tgbot.engine import Action, Variant
from tgbot.engine import events as ev
from tgbot.engine.view import view_of
from tgbot.rendering import guide, tabletop, ui
from tgbot.rendering.i18n import Catalogs
from tgbot.rendering.texts import describe
from tgbot.simulation import play_random_game
from tgbot.telegram.commands import help_text

CATALOGS = Catalogs(DEFAULT_LOCALES)
GEORGIAN = range(0x10A0, 0x1100)


def georgian(text: str) -> bool:
    return any(ord(ch) in GEORGIAN for ch in text)


def test_every_event_type_renders_for_every_recipient_in_both_languages() -> None:
    seen: set[type] = set()
    driver = random.Random(11)
    games = [(seed, Variant.BASE) for seed in range(60)]
    games += [(seed, v) for v in list(Variant)[1:] for seed in range(40)]
    for seed, variant in games:
        played = play_random_game([1, 2, 3, 4], seed, driver, variant)
        names = {i: f"N{i}" for i in range(1, 5)}
        for event in played.events:
            seen.add(type(event))
            for lang in ("ka", "en"):
                t = CATALOGS.get(lang)
                for viewer in (None, 1, 2, 3, 4):
                    text = describe(event, t, names, viewer)
                    if event.recipient is not None and viewer != event.recipient:
                        assert text is None
                        continue
                    if isinstance(event, ev.TurnStarted):
                        continue
                    if isinstance(event, ev.ActionResolved) and event.action is Action.INCOME:
                        assert text is None  # its declaration already says it
                        continue
                    if isinstance(event, ev.CardReturned) and viewer == event.player:
                        assert text is None  # their own line says which card they drew
                        continue
                    assert text, (event, viewer)
                    assert "{" not in text and "}" not in text
                    if lang == "ka":
                        assert georgian(text), text
    every = set(ev.event_types())
    # Leaving is not part of random button play; everything else must have come up.
    assert every - seen <= {ev.PlayerLeft, ev.ActionFizzled, ev.DecisionTimedOut}


def test_leave_fizzle_and_timeout_events_render() -> None:
    samples = [
        ev.PlayerLeft(1, afk=False),
        ev.PlayerLeft(1, afk=True),
        ev.ActionFizzled(1, ev.Action.ASSASSINATE, 2),
        *[ev.DecisionTimedOut(1, kind) for kind in ev.DecisionKind],
    ]
    for event in samples:
        for lang in ("ka", "en"):
            for viewer in (None, 1, 2):
                text = describe(event, CATALOGS.get(lang), {1: "A", 2: "B"}, viewer)
                assert text and "{" not in text


def test_boards_and_prompts_render_in_georgian() -> None:
    played = play_random_game([1, 2, 3], 5, random.Random(5))
    game = played.game
    t = CATALOGS.get("ka")
    names = {1: "ნიკა", 2: "ანა", 3: "გიო"}
    assert georgian(tabletop.board_text(t, view_of(game), names))
    assert georgian(tabletop.final_text(t, view_of(game), names))
    assert len(view_of(game).final_cards) == 3
    assert georgian(guide.rules_text(t)) and georgian(help_text(t))
    assert view_of(game).winner in names


def test_buttons_fit_a_phone() -> None:
    for lang in ("ka", "en"):
        t = CATALOGS.get(lang)
        for make in ui.ACTION_BUTTONS.values():
            assert len(make(t)) <= 24
        for msgid in ("⚔️ Challenge", "✅ Pass", "✋ Join", "🚪 Leave", "▶️ Start", "✖️ Cancel"):
            assert len(t.gettext(msgid)) <= 24
