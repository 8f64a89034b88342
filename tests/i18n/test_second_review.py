"""The second native review of the Georgian (ka-review-2026-12-01b): what it found stays
fixed, in whole rendered games (every variant, answers at the table and in private) and in
the texts games do not reach (/help, /top, /stats, /rules). docs/ka-review-status.md lists
every item."""

from __future__ import annotations

import random
from dataclasses import dataclass, field

import pytest

from tgbot.config import DEFAULT_LOCALES
from tgbot.engine import Character, Game, Variant
from tgbot.engine import events as ev
from tgbot.rendering import guide, history
from tgbot.rendering.i18n import Catalogs
from tgbot.rendering.profile import DESCRIPTION, SHORT_DESCRIPTION
from tgbot.rendering.texts import describe
from tgbot.service.records import GameRecord, Seat, Timing
from tgbot.service.step_messages import StepMessages
from tgbot.telegram.commands import help_text

from .test_glossary import REJECTED

CATALOGS = Catalogs(DEFAULT_LOCALES)
KA, EN = CATALOGS.get("ka"), CATALOGS.get("en")
TIMING = Timing(60, 30, 30, 30, 60, 2)
NAMES = ["ნინო", "ლევანი", "თამარი", "Giorgi", "მარიამი", "Sandro"]
QUESTIONS = (
    "Challenge, block or pass?",
    "Do you challenge?",
    "Do you block?",
    "Do you challenge the block?",
)


@dataclass
class Rendered:
    """Every message of some games: the group's (with its buttons' labels) and each private
    chat's, and every button label."""

    group: list[tuple[str, frozenset[str]]] = field(default_factory=list)
    private: list[tuple[int, str]] = field(default_factory=list)
    buttons: set[str] = field(default_factory=set)

    def texts(self) -> list[str]:
        """Every message text."""
        return [text for text, _ in self.group] + [text for _, text in self.private]


def rendered_games(lang: str, answers: str, variant: Variant, games: int = 10) -> Rendered:
    """Whole random games of 2-6 players through StepMessages, as the players read them."""
    builder = StepMessages(CATALOGS, "coup_bot")
    out = Rendered()
    for seed in range(games):
        ids = list(range(1, 2 + seed % 5 + 1))
        seats = [Seat(pid, NAMES[pid - 1], lang) for pid in ids]
        record = GameRecord("g", -1, None, lang, 1, TIMING, players=seats)
        record.answers = answers
        driver = random.Random(seed)
        game, events = Game.new(ids, seed, variant=variant)
        while True:
            for op in builder.build(record, game, events, now_ms=0).ops:
                labels = frozenset(b["text"] for row in getattr(op, "kb", None) or [] for b in row)
                out.buttons |= labels
                if op.chat < 0:
                    out.group.append((op.text, labels))
                else:
                    out.private.append((op.chat, op.text))
            if game.over:
                break
            player = driver.choice(game.awaiting().players)
            events = game.apply(player, driver.choice(game.legal_decisions(player)))
    return out


MODES = [(a, v) for a in ("table", "private") for v in Variant]
GAMES = {(lang, a, v): rendered_games(lang, a, v) for lang in ("ka", "en") for a, v in MODES}


def ids(mode: tuple[str, Variant]) -> str:
    return f"{mode[0]}-{mode[1].value}"


@pytest.mark.parametrize("mode", MODES, ids=ids)
def test_no_error_of_the_reviews_in_a_rendered_game(mode: tuple[str, Variant]) -> None:
    """Items 1, 12 and 13 (and every rejected wording of the glossary) in what players read."""
    games = GAMES[("ka", *mode)]
    texts = games.texts() + sorted(games.buttons)
    assert len(texts) > 200
    for phrase in [*REJECTED, "დაბლოკვა ძალაშია", "აჩვენებს ბარათებს:", "ბარათები დეკში"]:
        hits = [text for text in texts if phrase in text]
        assert not hits, (phrase, hits[:1])
    assert not [text for text in texts if "{" in text or "}" in text]


def test_the_rendered_games_reach_the_fixed_lines() -> None:
    """The games above are long enough to meet what the review fixed."""
    texts = "\n".join(t for key, games in GAMES.items() if key[0] == "ka" for t in games.texts())
    for line in (
        "კონტრსვლა ძალაშია:",  # 1
        "ჰერცოგი ხომ არ აქვს?",  # 11
        "აჩვენებს, რა აქვს:",  # 12
        "რაც გქონდა, დეკში დაბრუნდა; ახლა გაქვს:",  # 13
        "და მხარეს უცვლის მოთამაშეს:",  # 14
        "ყველა ერთ მხარეზეა: შეზღუდვები მოხსნილია",  # 15
        "დაუტოვებ ბარათს თუ დეკიდან ახალზე შეაცვლევინებ?",  # 16
        "შეეწინააღმდეგები, დაბლოკავ თუ გაუშვებ?",  # 10, on the group's message
    ):
        assert line in texts, line
    assert KA.gettext("🔀 Myself (1 coin)") == "🔀 ჩემი — 1 მონეტა"  # 19 (a picker: no prompt)


@pytest.mark.parametrize("lang", ["ka", "en"])
@pytest.mark.parametrize("mode", MODES, ids=ids)
def test_the_group_message_asks_what_its_answer_buttons_answer(
    lang: str, mode: tuple[str, Variant]
) -> None:
    """Item 10: "🛡 with the Captain" under the group's message has a question over it."""
    t = CATALOGS.get(lang)
    questions = {t.ngettext(q, q, n) for q in QUESTIONS for n in (1, 2)}
    group = GAMES[(lang, *mode)].group
    answers = {t.gettext("✅ Pass"), t.gettext("⚔️ Challenge")}
    with_buttons = [text for text, labels in group if labels & answers]
    without = [text for text, labels in group if not labels & answers]
    if mode[0] == "table":
        assert with_buttons
        assert all(text.split("\n")[-1] in questions for text in with_buttons)
    else:
        assert not with_buttons
    assert not any(text.split("\n")[-1] in questions for text in without)


@pytest.mark.parametrize("lang", ["ka", "en"])
@pytest.mark.parametrize("answers", ["table", "private"])
@pytest.mark.parametrize("variant", [Variant.INQUISITOR, Variant.REFORMATION_INQUISITOR])
def test_the_examiner_reads_the_card_once(lang: str, answers: str, variant: Variant) -> None:
    """Item 18: "X shows you a card" is not said again before "X shows you: <card>"."""
    t = CATALOGS.get(lang)
    seen = 0
    for chat, text in GAMES[(lang, answers, variant)].private:
        lines = text.split("\n")
        for name in NAMES:
            shown = t.gettext("👁 {target} shows you: {character}.").format(
                target=name, character=""
            )[:-1]
            if any(line.startswith(shown) for line in lines):
                seen += 1
                bare = t.gettext("👁 {target} shows you a card.").format(target=name)
                assert bare not in lines, (chat, text)
    assert seen > 3


def test_the_examine_line_is_kept_when_it_is_all_there_is() -> None:
    """The shortcut drops the bare line only when the card follows: a step with CardShown
    alone (as the group sees it) still tells the examiner."""
    event = ev.CardShown(1, 2)
    assert describe(event, KA, {1: "ნინო", 2: "ლევანი"}, 1) == "👁 ლევანი ბარათს გაჩვენებს."


# ---- what games do not reach --------------------------------------------------------------


@pytest.mark.parametrize("lang", ["ka", "en"])
def test_help_fits_a_group_and_a_private_chat(lang: str) -> None:
    """Item 2: /help is the same text in a group and in private, so it says where the cards
    go without "here"."""
    t = CATALOGS.get(lang)
    last = help_text(t).split("\n\n")[-1]
    if lang == "ka":
        assert "აქ," not in last and "ჩემთან პირად ჩატში" in last
    else:
        assert "here" not in last and "private chat with me" in last


def test_top_in_private_says_it_is_every_group() -> None:
    """Item 3: the empty board of all groups does not say "in this group"."""
    mine = history.top_text(KA, [], [], every_group=False)
    every = history.top_text(KA, [], [], every_group=True)
    assert "ამ ჯგუფში" in mine and "ამ ჯგუფში" not in every and "არც ერთ ჯგუფში" in every
    assert "in any group" in history.top_text(EN, [], [], every_group=True)


def test_numbers_use_the_readers_decimal_mark() -> None:
    """Item 8: Georgian writes a decimal comma (Babel's format_decimal), English a point."""
    counts = {"played": 3, "won": 1}
    ka = history.stats_text(KA, counts, (25.0, 4.2))
    en = history.stats_text(EN, counts, (25.0, 4.2))
    assert "12,4 (შეფასება 25,0 ± 4,2)" in ka and "12.4 (estimate 25.0 ± 4.2)" in en
    row = [("ნინო", 21.0, 0.0, 12)]
    assert "1. ნინო: 21,0 (12 თამაში)" in history.top_text(KA, row, [])
    assert "1. ნინო: 21.0 (12 games)" in history.top_text(EN, row, [])


def test_the_english_bluff_count_has_no_plural_slip() -> None:
    """E1: "1 bluffs" and "0 bluffs" are gone."""
    for bluffs in (1, 2):  # 0 reads "never a bluff" (the sixth reading)
        counts = {"played": 1, "claim:duke": 3, "bluff:duke": bluffs}
        line = history.stats_text(EN, counts, None).split("\n")[-1]
        assert line == f"Duke: claimed 3 times, bluffed {bluffs} ({round(100 * bluffs / 3)}%)"
    once = history.stats_text(EN, {"played": 1, "claim:duke": 1}, None).split("\n")[-1]
    assert once == "Duke: claimed once, not a bluff"  # the fourth reading: no "1 time"


@pytest.mark.parametrize("cards", [1, 2])
def test_a_redraw_after_embezzlement_counts_the_cards(cards: int) -> None:
    """Item 13 and its English: one card left is not "your cards"."""
    drawn = (Character.DUKE, Character.CAPTAIN)[:cards]
    event = ev.CardsRedrawn(1, drawn, drawn)
    en = describe(event, EN, {}, 1) or ""
    assert en.startswith("🔁 Your card went" if cards == 1 else "🔁 Your cards went")
    assert describe(event, KA, {}, 1) == "🔁 რაც გქონდა, დეკში დაბრუნდა; ახლა გაქვს: " + (
        "ჰერცოგი." if cards == 1 else "ჰერცოგი, კაპიტანი."
    )


def test_the_examine_limit_is_only_in_reformation_with_the_inquisitor() -> None:
    """Item 23: plain Reformation has no Examine, so its rules say nothing of it."""
    for t, word in ((KA, "დაკითხ"), (EN, "examine")):
        for variant in (Variant.REFORMATION, Variant.REFORMATION_INQUISITOR):
            rules = guide.rules_for(t, variant)
            reformation = rules[rules.index("⚖️") :]
            assert (word in reformation.lower()) == variant.inquisitor, (variant, reformation)
            assert all(
                len(m.encode("utf-16-le")) // 2 <= 4096 for m in guide.rules_messages(t, variant)
            )


@pytest.mark.parametrize("lang", ["ka", "en"])
def test_the_rules_say_what_challenges_and_blocks_do(lang: str) -> None:
    """Items 28-31: a caught bluff, a true claim, a block; what can be neither blocked nor
    challenged; the Assassin's coins; the choice in an Exchange."""
    t = CATALOGS.get(lang)
    points = {
        "ka": [
            "ერთ ბარათს ამოატრიალებს და სვლა ან კონტრსვლა ჩაიშლება",
            "სვლა ან კონტრსვლა კი ძალაში რჩება",
            "დაბლოკილი სვლა ჩაიშლება, თუ დაბლოკვას ვინმე წარმატებით არ შეეწინააღმდეგა",
            "აჯანყებას ვერავინ დაბლოკავს და ვერავინ შეეწინააღმდეგება",
            "(თუ ასასინის ბლეფი გამოაშკარავდა, გადახდილ 3 მონეტას უკან იბრუნებს)",
            "თუ მოკვლა დაიბლოკა, გადახდილ 3 მონეტას უკან ვეღარ იბრუნებ",
            "ამ ბარათებიდან და შენი ბარათებიდან დაიტოვე იმდენი, რამდენიც გქონდა",
        ],
        "en": [
            "the bluffer turns a card face up and the action or block fails",
            "and the action or block goes ahead",
            "A blocked action fails unless someone challenges the block successfully",
            "No one can block or challenge it. With 10 or more coins",
            "(an Assassin caught bluffing gets the 3 coins back)",
            "a blocked assassination does not give the 3 coins back",
            "choose among them and your own cards which to keep",
        ],
    }[lang]
    rules = guide.rules_text(t)
    for point in points:
        assert point in rules, point
    variants = guide.rules_for(t, Variant.REFORMATION_INQUISITOR)
    embezzle = next(line for line in variants.split("\n") if line.startswith("🐷"))
    assert ("არ იბლოკება" if lang == "ka" else "It cannot be blocked") in embezzle
    exchange = next(line for line in variants.split("\n") if line.startswith("🔄") and "1" in line)
    assert ("ამ ბარათიდან და შენი ბარათებიდან" if lang == "ka" else "your own cards") in exchange


def test_the_reformation_rules_read_as_the_review_proposed() -> None:
    """Items 21, 22, 24-27: the variant paragraphs' Georgian."""
    rules = guide.rules_for(KA, Variant.REFORMATION_INQUISITOR)
    for point in (
        "შეეწინააღმდეგო კი მასაც შეგიძლია.",
        "ვერ იქნება შენი აჯანყების, მოკვლის, მოპარვის ან დაკითხვის სამიზნე",
        "შეზღუდვები იხსნება.",
        "ან მხარე სხვა მოთამაშეს შეუცვალე (2 მონეტა).",
        "ყულაბას ვეღარ აიღებ",  # ka-review-2026-12-05 (11)
        "ან აიძულებ, რომ დეკში დააბრუნოს და ახალი აიღოს.",
    ):
        assert point in rules, point


def test_the_profile_names_the_game_as_georgian_players_search_for_it() -> None:
    for msgid, limit in ((DESCRIPTION, 512), (SHORT_DESCRIPTION, 120)):
        text = KA.gettext(msgid)
        assert "აჯანყება" in text and "(Coup, ქოუფი)" in text and len(text) <= limit


def test_settings_and_menus_read_as_the_review_proposed() -> None:
    """Items 5, 6, 7, 9."""
    assert KA.gettext("▶️ Turn: {value}") == "▶️ სვლის დრო: {value}"
    assert KA.gettext("🔄 Exchange: {value}") == "🔄 გაცვლის დრო: {value}"
    assert KA.gettext("🔻 Losing a card: {value}") == "🔻 ამოტრიალების დრო: {value}"
    afk = KA.ngettext("💤 Removed after {n} missed turn", "💤 Removed after {n} missed turns", 2)
    assert afk.format(n=2) == "💤 გამოტოვების ლიმიტი: 2 სვლა"
    assert KA.gettext("start now") == "ახლავე დაწყება"
    assert KA.gettext("There is no game with that id.") == "ასეთი კოდით თამაში ვერ მოიძებნა."
