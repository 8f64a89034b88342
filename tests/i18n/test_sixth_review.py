"""The sixth native reading of the Georgian (2026-12-02, reading f): the winner named after a
label (a name cannot take the ergative), /rules that say what 10 coins forbid in Reformation
and what an Examine's timeouts do, the table told that only the target blocks, /stats that
says "never a bluff", and the wording of the rest."""

from __future__ import annotations

from pathlib import Path

import polib
import pytest

from tgbot.config import DEFAULT_LOCALES
from tgbot.engine import Block, Challenge, Character, Pass, Variant, Window
from tgbot.rendering import guide, history, ui
from tgbot.rendering.i18n import Catalogs, Translator

CATALOGS = Catalogs(DEFAULT_LOCALES)
KA, EN = CATALOGS.get("ka"), CATALOGS.get("en")
LOCALES = Path(__file__).resolve().parents[2] / "locales"


def test_only_the_target_is_told_to_block_at_the_table() -> None:
    """Item 11: the group's question over Captain / Contessa blocks says who may block; a
    Foreign Aid block (anyone's) and a single responder's prompt do not."""
    steal = [Challenge(), Block(Character.CAPTAIN), Block(Character.AMBASSADOR), Pass()]
    asked = ui.answers_question(KA, Window.ACTION, steal, 3, "ნინო")
    assert asked == (
        "🛡 დაბლოკვა მხოლოდ სამიზნეს შეუძლია: ნინო.\nშეეწინააღმდეგებით, დაბლოკავთ თუ გაუშვებთ?"
    )  # the eighth reading, item 7: the line names the target
    contessa = [Block(Character.CONTESSA), Pass()]
    assert ui.answers_question(EN, Window.ACTION, contessa, 2, "Nino") == (
        "🛡 Only the target can block: Nino.\nDo you block?"
    )
    assert "\n" not in ui.answers_question(KA, Window.ACTION, steal, 1, "ნინო")
    aid = [Block(Character.DUKE), Pass()]
    assert "\n" not in ui.answers_question(KA, Window.ACTION, aid, 3)


@pytest.mark.parametrize(
    ("t", "line"),
    [(KA, "ჰერცოგი: 3 დაბრალება, არც ერთი ბლეფი"), (EN, "Duke: claimed 3 times, never a bluff")],
)
def test_no_bluff_is_said_in_words(t: Translator, line: str) -> None:
    """Item 17 and E3: 0 bluffs of several claims is not "0 (0%)"."""
    text = history.stats_text(t, {"played": 1, "claim:duke": 3}, None)
    assert text.split("\n")[-1] == line


def test_the_rules_of_the_reading() -> None:
    """Items 3-7, 9, 18 and E4: what the Georgian and English rules now say, in one message."""
    ka = guide.rules_for(KA, Variant.REFORMATION_INQUISITOR)
    for point in (
        "ან კონტესით ბლეფობდა და ამხილეს.",  # 3
        "10 ან მეტი მონეტით არც მხარის შეცვლა შეიძლება და არც მითვისება — მხოლოდ აჯანყება",  # 4
        "ყველა დახურულ ბარათს აჩვენებ, დეკში აბრუნებ და იმდენივე ახალს იღებ",  # 5
        "ამოსატრიალებელი თუ საჩვენებელი ბარათი შემთხვევით ირჩევა, გაცვლისას და დაკითხვისას",  # 6
        "მაგიდის გარშემო რიგრიგობით.",  # 7
        "(თავიდან ის ცარიელია)",  # 7
        "შეეწინააღმდეგო კი მასაც შეგიძლია.",  # 9
        "არჩეულ მოთამაშეს მოპარე 2 მონეტა",  # 18
    ):
        assert point in ka, point
    assert "საჩვენებელი" not in guide.rules_for(KA, Variant.REFORMATION)  # no Examine there
    en = guide.rules_for(EN, Variant.REFORMATION_INQUISITOR)
    assert "With 10 or more coins you may not convert or embezzle: you must stage a Coup" in en
    assert "or to show when examined, is picked at random" in en
    for t in (KA, EN):
        for variant in Variant:
            assert all(
                len(m.encode("utf-16-le")) // 2 <= 4096 for m in guide.rules_messages(t, variant)
            ), variant


def test_the_rest_of_the_reading_in_the_catalogue() -> None:
    """Items 1, 2, 10, 12-16, 19 and E1-E2: what each line now says."""
    expected = {
        "🏆 {winner} wins!": "🏆 გამარჯვებული: {winner}!",  # 1
        "Let {target} keep the card, or make them swap it for one from the deck?": (
            "სამიზნე: {target}. დაუტოვებ ბარათს თუ დეკიდან ახალზე შეაცვლევინებ?"
        ),  # 10
        "🔀 Myself (1 coin)": "🔀 ჩემი — 1 მონეტა",  # 12
        "🃏 Everyone's cards:": "🃏 ყველა მოთამაშის ბარათები:",  # 13
        "💨 {target} is already out: nothing happens.": (
            "💨 {target} თამაშში აღარ არის: სვლა უშედეგოა."
        ),  # 14
    }
    for msgid, ka in expected.items():
        assert KA.gettext(msgid) == ka, msgid
    ka_strings = [e.msgstr for e in polib.pofile(str(LOCALES / "ka/LC_MESSAGES/messages.po"))]
    # 2; the eighth reading brought the pass on timeout into the same form, hence 5
    assert sum(s.startswith("⌛ {player}: დრო ამოიწურა — ") for s in ka_strings) == 5
    assert not [s for s in ka_strings if "ამოიწურა, " in s or "არ აქვს, შეწინა" in s]  # 2, 15
    assert "ნება დამრთე, მოგწერო" in ka_strings  # 16
    assert "ნება დართე ბოტს, მოგწეროს" not in ka_strings  # 16
    assert not [s for s in ka_strings if "თავისით" in s]  # 19
    en_ids = [e.msgid for e in polib.pofile(str(LOCALES / "en/LC_MESSAGES/messages.po"))]
    assert "⚔️ {challenger} challenges {claimant}: really the {character}?" in en_ids  # E1
    assert not [i for i in en_ids if "after all" in i]  # E2
