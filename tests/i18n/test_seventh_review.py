"""The seventh native reading of the Georgian (2026-12-02, reading g): /rules say that only the
first challenge or block counts, whom a forced Coup on a timeout hits in Reformation and that
only a face-down Duke stops an Embezzlement; "არც ერთი" in two words, and "claimed twice"."""

from __future__ import annotations

import pytest

from tgbot.config import DEFAULT_LOCALES
from tgbot.engine import Variant
from tgbot.rendering import guide, history
from tgbot.rendering.i18n import Catalogs, Translator

CATALOGS = Catalogs(DEFAULT_LOCALES)
KA, EN = CATALOGS.get("ka"), CATALOGS.get("en")


@pytest.mark.parametrize(
    ("t", "first", "coup", "duke"),
    [
        (
            KA,
            "ითვლება მხოლოდ პირველი შეწინააღმდეგება ან დაბლოკვა",
            "მხოლოდ აჯანყება (დროის ამოწურვისას — შემდეგი დასაშვები სამიზნის წინააღმდეგ)",
            "თქვი, რომ დახურული ჰერცოგი არ გაქვს",
        ),
        (
            EN,
            "only the first challenge or block counts",
            "(if your time runs out, against the next player you may target)",
            "say you have no face-down Duke",
        ),
    ],
)
def test_the_rules_of_the_reading(t: Translator, first: str, coup: str, duke: str) -> None:
    """Items 1-3 and 12, in one Telegram message for every variant."""
    for variant in Variant:
        rules = guide.rules_for(t, variant)
        assert first in rules, variant
        assert (coup in rules and duke in rules) == variant.reformation, variant
        # Reformation names the forced Coup's target once, in its own paragraph.
        named = ("next player",) if t is EN else ("შემდეგი მოთამაშის", "შემდეგი დასაშვები სამიზნის")
        assert sum(rules.count(target) for target in named) == 1, variant
        assert all(
            len(m.encode("utf-16-le")) // 2 <= 4096 for m in guide.rules_messages(t, variant)
        ), variant


def test_the_headers_and_lines_of_the_reading() -> None:
    """Items 4-10: what each line now says in Georgian."""
    expected = {
        "🃏 This game's variant: {variant} (its changes are in the next message).": (
            "🃏 ვარიანტი: {variant} (ცვლილებები შემდეგ შეტყობინებაშია)."
        ),
        "🃏 Variant: {value}": "🃏 {value}",
        "💨 You are already out: nothing happens.": "💨 თამაშში აღარ ხარ: სვლა უშედეგოა.",
    }
    for msgid, ka in expected.items():
        assert KA.gettext(msgid) == ka, msgid
    rules = guide.rules_for(KA, Variant.INQUISITOR)
    assert "(იცვლება დეკი, მოპარვა და გაცვლა; ემატება დაკითხვა)" in rules
    assert "შემოსავალს ვერავინ დაბლოკავს" in rules and "ამას ვერავინ" not in rules
    assert "მოთამაშე არ გყოფნის?" in guide.help_text(KA, [], [])
    assert "არც ერთ ჯგუფში" in history.top_text(KA, [], [], every_group=True)


@pytest.mark.parametrize(
    ("t", "n", "line"),
    [
        (EN, 2, "Duke: claimed twice, never a bluff"),
        (EN, 3, "Duke: claimed 3 times, never a bluff"),
        (KA, 2, "ჰერცოგი: 2 დაბრალება, არც ერთი ბლეფი"),
    ],
)
def test_twice_in_english(t: Translator, n: int, line: str) -> None:
    """Item 11: English says "twice"; Georgian keeps the number."""
    text = history.stats_text(t, {"played": 1, "claim:duke": n}, None)
    assert text.split("\n")[-1] == line
