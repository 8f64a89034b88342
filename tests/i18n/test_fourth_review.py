"""The fourth native reading of the Georgian (2026-12-01d): lines that count cards or claims
say "one" when there is one, a knock-out does not read like a leave, long keep pairs get a
row of their own, and the English /rules' word order."""

from __future__ import annotations

import random
import re

import pytest

from tgbot.config import DEFAULT_LOCALES
from tgbot.engine import Game, Variant
from tgbot.rendering import guide, history
from tgbot.rendering.i18n import Catalogs
from tgbot.service.records import GameRecord, Seat, Timing
from tgbot.service.step_messages import StepMessages

from .test_glossary import GLOSSARY, section, table_rows

CATALOGS = Catalogs(DEFAULT_LOCALES)
KA, EN = CATALOGS.get("ka"), CATALOGS.get("en")
NAMES = ["ნინო", "ლევანი", "თამარი", "Giorgi", "მარიამი", "Sandro"]
KEEP_QUESTION = {"ka": "დაიტოვო:", "en": "to keep:"}

Message = tuple[int, str, list[list[str]]]  # chat, text, button labels row by row


def rendered(lang: str, variant: Variant, games: int = 8) -> list[Message]:
    """Whole games with timeouts and leaves, every message with its keyboard's rows."""
    builder = StepMessages(CATALOGS, "coup_bot")
    out: list[Message] = []
    for seed in range(games):
        ids = list(range(1, 3 + seed % 4 + 1))
        seats = [Seat(pid, NAMES[pid - 1], lang) for pid in ids]
        record = GameRecord("g", -1, None, lang, 1, Timing(60, 30, 30, 30, 60, 2), players=seats)
        record.answers = ("table", "private")[seed % 2]
        driver = random.Random(seed)
        game, events = Game.new(ids, seed, variant=variant)
        while True:
            for op in builder.build(record, game, events, now_ms=0).ops:
                rows = [[b["text"] for b in row] for row in op.kb or []]
                out.append((op.chat, op.text, rows))
            if game.over:
                break
            player = driver.choice(game.awaiting().players)
            roll = driver.random()
            if roll < 0.2:
                events = game.apply_timeout()
            elif roll < 0.23:
                events = game.leave(player)
            else:
                events = game.apply(player, driver.choice(game.legal_decisions(player)))
    return out


GAMES = {(lang, v): rendered(lang, v) for lang in ("ka", "en") for v in Variant}


def lines(lang: str) -> list[str]:
    """Every line of every message of one language's games."""
    return [
        ln for (la, _), msgs in GAMES.items() if la == lang for m in msgs for ln in m[1].split("\n")
    ]


@pytest.mark.parametrize("lang", ["ka", "en"])
def test_one_card_left_is_your_card(lang: str) -> None:
    """Point 5: the hand, the exchange prompt and the deal say "your card" for one card."""
    one, many = (
        ("🂠 შენი ბარათი:", "🂠 შენი ბარათები:")
        if lang == "ka"
        else (
            "🂠 Your card:",
            "🂠 Your cards:",
        )
    )
    hands = [ln for ln in lines(lang) if ln.startswith(("🂠 შენი ბარათ", "🂠 Your card"))]
    for line in hands:
        cards = line.split(":", 1)[1].split("·")[0]
        assert line.startswith(many if "," in cards else one), line
    assert any(ln.startswith(one) for ln in hands) and any(ln.startswith(many) for ln in hands)


def test_the_exchange_lines_count_the_cards() -> None:
    """The waiting line of an exchange counts the cards kept; its timeout line counts none."""
    ka = "\n".join(lines("ka"))
    assert "ირჩევს, რომელი ბარათი დაიტოვოს." in ka
    assert "ირჩევს, რომელი ბარათები დაიტოვოს." in ka
    for msgid in (
        "⌛ Your time ran out: you keep what you had.",
        "⌛ {player} ran out of time and keeps what they had.",
    ):
        assert "ბარათ" not in KA.gettext(msgid) and "cards" not in EN.gettext(msgid)


def test_a_single_claim_is_not_counted_of_them() -> None:
    """Point 6: "1 claim, 0 of them bluffs" becomes whether that one claim was a bluff."""
    for bluffs, ka, en in ((0, "ბლეფი არ იყო", "not a bluff"), (1, "ბლეფი იყო", "a bluff")):
        counts = {"played": 1, "claim:duke": 1, "bluff:duke": bluffs}
        assert history.stats_text(KA, counts, None).split("\n")[-1] == f"ჰერცოგი: 1 დაბრალება, {ka}"
        assert history.stats_text(EN, counts, None).split("\n")[-1] == f"Duke: claimed once, {en}"
    many = history.stats_text(KA, {"played": 1, "claim:duke": 3, "bluff:duke": 1}, None)
    assert many.split("\n")[-1] == "ჰერცოგი: 3 დაბრალება, მათგან 1 ბლეფი (33%)"


def test_a_knock_out_does_not_read_like_a_leave() -> None:
    """Point 7: the elimination has its own term (the glossary's), never "leaves the game"."""
    term = {row[0]: row[1] for row in table_rows(GLOSSARY.split("\n## ")[0])}
    assert "თამაშიდან გავარდა" in term["knocked out (the log line)"]
    ka = lines("ka")
    knocked = [ln for ln in ka if ln.startswith("☠️")]
    assert knocked and all("ტოვებ" not in ln for ln in knocked)
    assert {"☠️ თამაშიდან გავარდი."} <= set(ka)
    # A leave is not followed by a knock-out line (the fifth reading, item 7).
    text = "\n".join(ka)
    assert re.search(r"🚪 (\S+) თამაშს თავს ანებებს\.\n", text)
    assert not re.search(r"🚪 (\S+) თამაშს თავს ანებებს\.\n(?:🔻 .*\n)*☠️ \1 ", text)


@pytest.mark.parametrize("lang", ["ka", "en"])
def test_long_keep_pairs_have_a_row_of_their_own(lang: str) -> None:
    """Point 10: a keep label longer than 15 characters never shares its row."""
    prompts = [
        rows for (la, _), msgs in GAMES.items() if la == lang
        for _, text, rows in msgs if rows and text.endswith(KEEP_QUESTION[lang])
    ]  # fmt: skip
    assert len(prompts) > 20
    shared = [label for rows in prompts for row in rows if len(row) > 1 for label in row]
    assert shared and max(len(label) for label in shared) <= 15
    assert any(len(row) == 1 and len(row[0]) > 15 for rows in prompts for row in rows)


def test_no_wide_georgian_label_shares_a_row() -> None:
    """The same measure for every keyboard: Challenge (18 characters) now has a row of its
    own in private prompts too, as it has on the group's message."""
    rows = [row for (la, _), msgs in GAMES.items() if la == "ka" for m in msgs for row in m[2]]
    assert ["⚔️ შეწინააღმდეგება"] in rows and len(rows) > 1000
    wide = {label for row in rows if len(row) > 1 for label in row if len(label) > 15}
    assert not wide, wide


def test_the_english_rules_word_order() -> None:
    """Point 11: "you must still", and a Coup "against" the next player."""
    text = guide.rules_for(EN, Variant.REFORMATION_INQUISITOR)
    assert "you must stage a Coup" in text and "still must" not in text
    assert "a Coup (if your time runs out, against the next player you may target)" in text
    assert "a Coup against the next player" in guide.rules_for(EN, Variant.BASE)
    assert "Coup on the" not in text
    assert "a claim or block left unanswered counts as a pass" in text


def test_the_glossary_names_the_knock_out() -> None:
    """The row the tests above read exists, with the rejected wordings beside it."""
    assert "knocked out (the log line)" in GLOSSARY
    rejected = [row[0] for row in table_rows(section("Rejected wordings"))]
    assert "☠️ {player} თამაშს ტოვებს" in rejected


def test_a_card_turned_up_by_the_clock_is_named_to_its_owner() -> None:
    """Found while reading: "a card is picked at random" told the owner not which one."""
    timed_out = KA.gettext("⌛ Your time ran out: a card is picked at random.")
    edits = [text for msgs in GAMES.values() for _, text, _ in msgs if text.startswith(timed_out)]
    assert edits
    for text in edits:
        assert text.split("\n")[1].startswith("🔻 შენ ამოატრიალე "), text
