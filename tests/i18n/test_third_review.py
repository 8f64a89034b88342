"""The third native reading of the Georgian (2026-12-01c): what players read after a
timeout or a leave, the refusals and menus it fixed, and /rules on time limits."""

from __future__ import annotations

import random

import pytest

from tgbot.config import DEFAULT_LOCALES
from tgbot.contract.outcomes import Refusal
from tgbot.contract.plan import Edit
from tgbot.engine import DecisionKind, Game, Variant
from tgbot.rendering import guide, notices, tabletop
from tgbot.rendering.i18n import Catalogs
from tgbot.rendering.profile import DESCRIPTION
from tgbot.service.records import GameRecord, Seat, Timing
from tgbot.service.step_messages import StepMessages
from tgbot.telegram.commands import help_text, menus

from .test_glossary import REJECTED
from .test_second_review import GAMES as SECOND

CATALOGS = Catalogs(DEFAULT_LOCALES)
KA, EN = CATALOGS.get("ka"), CATALOGS.get("en")
NAMES = ["ნინო", "ლევანი", "თამარი", "Giorgi", "მარიამი", "Sandro"]


def record_for(ids: list[int], lang: str, afk_limit: int, answers: str) -> GameRecord:
    """A game record of these players, all reading one language."""
    seats = [Seat(pid, NAMES[pid - 1], lang) for pid in ids]
    record = GameRecord(
        "g", -1, None, lang, 1, Timing(60, 30, 30, 30, 60, afk_limit), players=seats
    )
    record.answers = answers
    return record


def closing_edit_after_timeout(lang: str, afk_limit: int) -> str:
    """The edit of the player's own prompt when their first turn runs out."""
    builder = StepMessages(CATALOGS, "coup_bot")
    record = record_for([1, 2, 3], lang, afk_limit, "private")
    game, events = Game.new([1, 2, 3], 5, afk_limit=afk_limit)
    builder.build(record, game, events, now_ms=0)
    player = game.awaiting().players[0]
    ops = builder.build(record, game, game.apply_timeout(), now_ms=0).ops
    edits = [op.text for op in ops if isinstance(op, Edit) and op.chat == player]
    assert len(edits) == 1
    return edits[0]


def test_a_timed_out_turn_tells_the_player_what_was_done() -> None:
    """Item 3: the group reads that Income was taken for them; so do they."""
    assert closing_edit_after_timeout("ka", 2) == "⌛ დრო ამოგეწურა.\n💰 იღებ შემოსავალს."
    assert closing_edit_after_timeout("en", 2).split("\n")[1:] == [
        EN.gettext("💰 You take Income.")
    ]


def test_the_removed_player_is_told_why() -> None:
    """Items 1 and 2: the AFK removal reaches the removed player, in its new wording."""
    assert closing_edit_after_timeout("ka", 1).split("\n") == [
        "⌛ დრო ამოგეწურა.",
        "🚪 თამაშს გამოეთიშე: გამოტოვების ლიმიტი ამოიწურა.",
    ]  # no knock-out line after the removal (the fifth reading, item 7)
    assert "🚪 You missed too many turns" in closing_edit_after_timeout("en", 1)


def rendered_texts(lang: str, variant: Variant, games: int = 12) -> list[str]:
    """Whole games with timeouts and leaves, every message as the players read it."""
    builder = StepMessages(CATALOGS, "coup_bot")
    texts: list[str] = []
    for seed in range(games):
        ids = list(range(1, 3 + seed % 4 + 1))
        record = record_for(ids, lang, 2, ("table", "private")[seed % 2])
        driver = random.Random(seed)
        game, events = Game.new(ids, seed, variant=variant)
        while True:
            texts += [op.text for op in builder.build(record, game, events, now_ms=0).ops]
            if game.over:
                break
            player = driver.choice(game.awaiting().players)
            roll = driver.random()
            if roll < 0.25:
                events = game.apply_timeout()
            elif roll < 0.27:
                events = game.leave(player)
            else:
                events = game.apply(player, driver.choice(game.legal_decisions(player)))
    return texts


GAMES = {v: rendered_texts("ka", v) for v in Variant}


@pytest.mark.parametrize("variant", list(Variant), ids=lambda v: v.value)
def test_no_rejected_wording_after_timeouts_and_leaves(variant: Variant) -> None:
    """The glossary's rejected wordings are in none of these games either."""
    texts = GAMES[variant]
    assert len(texts) > 200
    for phrase in REJECTED:
        assert not [text for text in texts if phrase in text], phrase


def test_the_games_reach_the_lines_the_reading_fixed() -> None:
    """The games above meet the new leave and removal lines, and the timeout's action."""
    texts = "\n".join(text for games in GAMES.values() for text in games)
    for line in (
        "თამაშს გამოეთიშა: გამოტოვების ლიმიტი ამოიწურა.",  # 1
        "თამაშს გამოეთიშე: გამოტოვების ლიმიტი ამოიწურა.",  # 2
        "თამაშს თავს ანებებს.",  # 4
        "⌛ დრო ამოგეწურა.\n💰 იღებ შემოსავალს.",  # 3
    ):
        assert line in texts, line
    # Item 4: the leave and the knock-out that follows are no longer synonyms.
    assert "თამაშიდან გავიდა" not in texts


def test_the_refusals_and_menus_the_reading_fixed() -> None:
    """Items 6, 9, 12 and 13, and the quoted Start of item 8 (the game's name is kept)."""
    refusal = notices.REFUSALS[Refusal.NOT_A_PLAYER_OF_FINISHED]
    assert "/newgame" in KA.gettext(refusal) and "„ისევ ვითამაშოთ“" in KA.gettext(refusal)
    assert "Play again" in EN.gettext(refusal)
    assert KA.gettext("You are already out of this game.") == "ამ თამაშში აღარ ხარ."
    assert KA.gettext("This button is not valid.") == "ეს ღილაკი აქ არ მოქმედებს."
    for t, word in ((KA, "ვარიანტი"), (EN, "variant")):
        entries = {c.command: c.description for _, cmds in menus(t) for c in cmds}
        assert word in entries["settings"], entries["settings"]
    description = KA.gettext(DESCRIPTION)
    assert "„Start“-ს" in description and "(Coup, ქოუფი)" in description


@pytest.mark.parametrize("lang", ["ka", "en"])
def test_the_rules_say_what_a_timeout_does(lang: str) -> None:
    """Items 16-18: time limits, Steal's 1 coin, and the Reserve after a won challenge."""
    t = CATALOGS.get(lang)
    base = guide.rules_for(t, Variant.BASE)
    full = guide.rules_for(t, Variant.REFORMATION_INQUISITOR)
    ka = lang == "ka"
    for point in (
        "⏳",
        "/settings",
        "შემოსავალს იღებ" if ka else "you take Income",
        "პასად ითვლება" if ka else "counts as a pass",
        "ზედიზედ გამოტოვებული სვლების ლიმიტს" if ka else "skipped-turns limit",
        "(თუ მხოლოდ 1 აქვს — 1)" if ka else "(1 if they have only 1)",
    ):
        assert point in base, point
    for point in (
        "შენ კი ყულაბას მაინც იღებ" if ka else "you still take the Reserve",
        "ცარიელ ყულაბას ვერ მიითვისებ" if ka else "An empty Reserve cannot be embezzled",
    ):
        assert point in full, point
    assert all(
        len(m.encode("utf-16-le")) // 2 <= 4096
        for m in guide.rules_messages(t, Variant.REFORMATION_INQUISITOR)
    )


@pytest.mark.parametrize("lang", ["ka", "en"])
@pytest.mark.parametrize("answers", ["table", "private"])
@pytest.mark.parametrize("variant", [Variant.INQUISITOR, Variant.REFORMATION_INQUISITOR])
def test_the_examined_player_reads_the_card_once(lang: str, answers: str, variant: Variant) -> None:
    """Item 5: "you show a card" is not said again beside "X sees your card: <card>", and
    the swap line does not say the card goes back before the redraw line does."""
    t = CATALOGS.get(lang)
    seen = 0
    for _, text in SECOND[(lang, answers, variant)].private:
        lines = text.split("\n")
        for name in NAMES:
            sees = t.gettext("👁 {actor} sees your card: {character}.").format(
                actor=name, character=""
            )[:-1]
            if any(line.startswith(sees) for line in lines):
                seen += 1
                bare = t.gettext("👁 You show a card; only {actor} sees it.").format(actor=name)
                assert bare not in lines, text
    assert seen > 3
    swap = KA.gettext("👁 {actor} makes you swap the card for one from the deck.")
    assert swap == "👁 {actor} ბარათს გაცვლევინებს."


def test_challenge_has_a_row_of_its_own_on_the_group_message() -> None:
    """Item 21: `⚔️ შეწინააღმდეგება` does not share the group's narrow row; the blocks and
    Pass still go two to a row (the row-length test in test_review still measures them)."""
    seen = 0
    for seed in range(8):
        game, _ = Game.new([1, 2, 3, 4], seed, variant=Variant.INQUISITOR)
        rng = random.Random(seed)
        while not game.over:
            waiting = game.awaiting()
            if waiting.kind is DecisionKind.RESPONSE:
                options = game.answers()
                board = tabletop.answer_buttons(KA, "abcdef", game.version, options, {})
                challenge = KA.gettext("⚔️ Challenge")
                rows = [row for row in board if any(b["text"] == challenge for b in row)]
                if rows:
                    seen += 1
                    assert board[0] == rows[0] and len(rows[0]) == 1, board
                    assert all(len(row) == 2 for row in board[1:-1]), board
            player = rng.choice(waiting.players)
            game.apply(player, rng.choice(game.legal_decisions(player)))
    assert seen > 10


@pytest.mark.parametrize("lang", ["ka", "en"])
def test_help_lists_every_command_of_the_private_menu_under_private(lang: str) -> None:
    """Item 15: the private menu's /leave, /rules and /help are in /help's private section."""
    t = CATALOGS.get(lang)
    private = help_text(t).split("\n\n")[2].split("\n")
    assert private[0] == t.gettext("In private:")
    listed = {line.split(":", 1)[0] for line in private[1:]}
    menu = next(cmds for scope, cmds in menus(t) if scope.type == "all_private_chats")
    assert {f"/{c.command}" for c in menu} <= listed, listed
