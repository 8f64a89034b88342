"""The fifth native reading of the Georgian (2026-12-02, reading e): ordinals written as
Georgian writes them, a block that falls on the move, the challenger's result and the win
in private chats, no knock-out line after a leave, the Inquisitor's /rules told from his
deck, the rules' missing facts, and the wording of the rest."""

from __future__ import annotations

import random

import pytest

from tgbot.config import DEFAULT_LOCALES
from tgbot.contract.plan import Edit
from tgbot.engine import Action, Block, Challenge, Character, Game, Pass, Variant, Window
from tgbot.engine import events as ev
from tgbot.rendering import guide, history, ui
from tgbot.rendering.forms import ordinal
from tgbot.rendering.i18n import Catalogs
from tgbot.rendering.texts import describe, told
from tgbot.service.records import GameRecord, Seat, Timing
from tgbot.service.step_messages import StepMessages

CATALOGS = Catalogs(DEFAULT_LOCALES)
KA, EN = CATALOGS.get("ka"), CATALOGS.get("en")
NAMES = ["ნინო", "ლევანი", "თამარი", "Giorgi", "მარიამი", "Sandro"]
WIN = {"ka": "🏆 შენ გაიმარჯვე!", "en": "🏆 You win!"}
CHALLENGE = {"ka": "⚔️ ეწინააღმდეგები:", "en": "⚔️ You challenge"}


def private_chats(
    lang: str, seed: int, players: int, variant: Variant = Variant.BASE
) -> tuple[dict[int, list[str]], list[str]]:
    """A whole game with answers in private: each player's chat (every text sent or edited
    there) and the closing edits of their prompts."""
    builder = StepMessages(CATALOGS, "coup_bot")
    ids = list(range(1, players + 1))
    seats = [Seat(pid, NAMES[pid - 1], lang) for pid in ids]
    record = GameRecord("g", -1, None, lang, 1, Timing(60, 30, 30, 30, 60, 2), players=seats)
    record.answers = "private"
    driver = random.Random(seed)
    game, events = Game.new(ids, seed, variant=variant)
    chats: dict[int, list[str]] = {pid: [] for pid in ids}
    closings: list[str] = []
    while True:
        for op in builder.build(record, game, events, now_ms=0).ops:
            if op.chat > 0:
                chats[op.chat].append(op.text)
                if isinstance(op, Edit) and op.ref and op.ref.startswith("prompt:"):
                    closings.append(op.text)
        if game.over:
            return chats, closings
        player = driver.choice(game.awaiting().players)
        events = game.apply(player, driver.choice(game.legal_decisions(player)))


@pytest.mark.parametrize("lang", ["ka", "en"])
def test_your_own_challenge_closes_with_its_result_and_the_winner_is_told(lang: str) -> None:
    """Item 3: the challenger's closed prompt says how the challenge went, and the winner's
    chat ends with the win (base, seed 5, 3 players: the game the reading ended on)."""
    for seed, players in ((5, 3), (1, 3), (4, 4)):
        chats, closings = private_chats(lang, seed, players)
        winners = [pid for pid, texts in chats.items() if any(WIN[lang] in t for t in texts)]
        assert len(winners) == 1, (seed, players)
        assert chats[winners[0]][-1].endswith(WIN[lang])
        challenges = [text for text in closings if text.startswith(CHALLENGE[lang])]
        assert challenges and all("\n" in text for text in challenges), challenges


def test_a_challenged_embezzlement_closes_with_its_result_too() -> None:
    """Item 3, in Reformation: the challenge of an Embezzlement has an event of its own."""
    duke = "ჰერცოგი ხომ არ აქვს?"
    closings = [
        c for seed in range(6) for c in private_chats("ka", seed, 4, Variant.REFORMATION)[1]
    ]
    embezzlements = [text for text in closings if text.startswith(CHALLENGE["ka"]) and duke in text]
    assert embezzlements and all("\n" in text for text in embezzlements), embezzlements


def test_turn_numbers_are_written_as_georgian_ordinals() -> None:
    """Item 1: 1-ლი, მე-2 … მე-20, then 21-ე; the scores and hundreds take მე- again."""
    expected = {1: "1-ლი", 2: "მე-2", 20: "მე-20", 21: "21-ე", 30: "30-ე", 40: "მე-40"}
    expected |= {55: "55-ე", 60: "მე-60", 80: "მე-80", 99: "99-ე", 100: "მე-100", 101: "101-ე"}
    assert {n: ordinal(KA, n) for n in expected} == expected
    assert all(ordinal(EN, n) == str(n) for n in expected)
    summary = history.bluff_summary(
        KA, [(1, Character.DUKE, 1, True), (1, Character.CAPTAIN, 21, False)], {1: "ნინო"}
    )
    assert summary.split("\n")[1] == "ნინო: ✅ ჰერცოგი (1-ლი სვლა), ❌ კაპიტანი (21-ე სვლა)"
    assert "(turn 21)" in history.bluff_summary(EN, [(1, Character.DUKE, 21, True)], {1: "N"})


def test_a_block_falls_on_the_move_not_on_the_person() -> None:
    """Item 2: the group's and the actor's line of a block."""
    names = {1: "ნინო", 2: "ლევანი"}
    block = ev.BlockDeclared(2, Character.DUKE, 1, Action.FOREIGN_AID)
    assert describe(block, KA, names) == "🛡 ლევანი ჰერცოგით ბლოკავს ამ სვლას."
    assert describe(block, KA, names, 1) == "🛡 ლევანი ჰერცოგით სვლას გიბლოკავს."
    assert describe(block, KA, names, 2) == "🛡 ჰერცოგით ბლოკავ."
    assert describe(block, EN, {1: "Nino", 2: "Levan"}) == "🛡 Levan blocks it with the Duke."


def test_no_knock_out_line_after_a_leave() -> None:
    """Item 7: the leave's line has said the player is gone; a knock-out keeps its line."""
    left = [ev.PlayerLeft(1, False), ev.CardRevealed(1, Character.DUKE), ev.PlayerEliminated(1, 2)]
    assert [type(e) for e in told(left)] == [ev.PlayerLeft, ev.CardRevealed]
    knocked = [ev.CardRevealed(2, Character.DUKE), ev.PlayerEliminated(2, 0)]
    assert told(knocked) == knocked
    log = history.public_log(KA, [left], {1: "ნინო"}, "")
    assert log[1:] == ["🚪 ნინო თამაშს თავს ანებებს.", "🔻 ნინო: ამოტრიალდა ჰერცოგი."]


def test_a_question_to_several_players_is_in_the_plural() -> None:
    """Item 8: the group's question over the answer buttons, by how many are awaited."""
    options = [Challenge(), Block(Character.DUKE), Pass()]
    window = Window.ACTION
    assert ui.answers_question(KA, window, options, 1) == "შეეწინააღმდეგები, დაბლოკავ თუ გაუშვებ?"
    assert ui.answers_question(KA, window, options, 3) == (
        "შეეწინააღმდეგებით, დაბლოკავთ თუ გაუშვებთ?"
    )
    assert ui.answers_question(KA, window, [Challenge(), Pass()], 2) == "შეეწინააღმდეგებით?"
    assert ui.answers_question(EN, window, options, 3) == "Challenge, block or pass?"


@pytest.mark.parametrize("lang", ["ka", "en"])
def test_the_inquisitor_rules_name_no_ambassador_but_to_say_he_is_out(lang: str) -> None:
    """Item 13 (and E4): the rules of an Inquisitor game are told from his deck."""
    t = CATALOGS.get(lang)
    ambassador, unused = (
        ("ელჩ", "ელჩი ამ ვარიანტში არ არის")
        if lang == "ka"
        else ("Ambassador", "the Ambassador is not used in this variant")
    )
    for variant in Variant:
        text = guide.rules_for(t, variant)
        for message in guide.rules_messages(t, variant):  # Telegram counts UTF-16
            assert len(message.encode("utf-16-le")) // 2 <= 4096, variant
        if variant.inquisitor:
            assert text.count(ambassador) == 1 and unused in text, variant
            steal = next(ln for ln in text.split("\n") if ln.startswith("🏴"))
            assert ("ინკვიზიტორით" if lang == "ka" else "Inquisitor") in steal
            lines = text.split("\n")
            exchange = next(i for i, ln in enumerate(lines) if ln.startswith("🔄"))
            assert lines[exchange + 1].startswith("🔍"), "Examine right after Exchange"
        else:
            assert text.count(ambassador) >= 3, variant  # the deck, Steal, Exchange


@pytest.mark.parametrize("lang", ["ka", "en"])
def test_the_rules_say_the_double_loss_the_streak_and_what_a_lost_card_does(lang: str) -> None:
    """Items 14-17: facts of RULES.md the rules had left out."""
    rules = guide.rules_text(CATALOGS.get(lang))
    points = {
        "ka": [
            "მოკვლის სამიზნემ ერთ სვლაში შეიძლება ორივე ბარათი ამოატრიალოს",
            "თუ ზედიზედ გამოტოვებული სვლების ლიმიტს ამოწურავ (/settings)",
            "ვინც ბარათს კარგავს, თვითონ ირჩევს, რომელი ამოატრიალოს",
            "ამოტრიალებული ბარათი ყველას უჩანს",
            "მისი მონეტები კი განძში ბრუნდება",
            "ნებისმიერ სხვა მოთამაშეს შეუძლია ჰერცოგით დაბლოკოს",
        ],
        "en": [
            "can lose both cards in one turn",
            "too many times in a row",
            "chooses which one to turn face up",
            "face-up cards stay in view",
            "their coins go back to the treasury",
            "Any other player can block it with the Duke",
        ],
    }[lang]
    for point in points:
        assert point in rules, point


def test_the_rest_of_the_reading_in_the_catalogue() -> None:
    """Items 4-6, 9-12, 18-21 and the English points: what each line now says."""
    expected = {
        "🏆 {winner} wins!": "🏆 გამარჯვებული: {winner}!",
        "🆕 {name} opened a new game.": "🆕 ახალი თამაში გახსნა: {name}.",
        "💨 {target} is already out: nothing happens.": (
            "💨 {target} თამაშში აღარ არის: სვლა უშედეგოა."
        ),
        "💨 You are already out: nothing happens.": "💨 თამაშში აღარ ხარ: სვლა უშედეგოა.",
        "🚪 You left the game.": "🚪 თამაშს თავი დაანებე.",
        "You are already out of this game.": "ამ თამაშში აღარ ხარ.",
        "🔀 Myself (1 coin)": "🔀 ჩემი — 1 მონეტა",
        "🃏 Variant: {value}": "🃏 {value}",
        "🗳 Answers: {value}": "🗳 პასუხობენ: {value}",
    }
    for msgid, ka in expected.items():
        assert KA.gettext(msgid) == ka, msgid
    assert KA.ngettext("Choose which card to keep:", "Choose which cards to keep:", 2) == (
        "აირჩიე, რომელი ბარათები დაიტოვო:"
    )
    assert KA.gettext(
        "The rating is the estimate minus three times its uncertainty, so one lucky game does "
        "not put you on top."
    ).startswith("რეიტინგს ასე ვითვლით: შეფასებას ვაკლებთ სამმაგ ცდომილებას")
    assert KA.gettext(
        "🔀 Whose side changes? Yourself for 1 coin, another player for 2 (the coins go into "
        "the Reserve)."
    ).startswith("🔀 ვისი მხარე შეიცვალოს? შენი — 1 მონეტა, სხვისი — 2 მონეტა")
    ka_inq = guide.rules_for(KA, Variant.REFORMATION_INQUISITOR)
    kept = "ამ ბარათიდან და შენი ბარათებიდან დაიტოვე იმდენი, რამდენიც გქონდა, დანარჩენი კი"
    assert kept in ka_inq
    assert "სამიზნე და მის საგარეო დახმარებას" in ka_inq
    en_inq = guide.rules_for(EN, Variant.INQUISITOR)
    assert "from it and your own cards keep as many as you had" in en_inq
    assert "among it" not in en_inq
    assert "ვარიანტს ჯგუფის ადმინები /settings-ში ირჩევენ, /rules კი აგიხსნის, რას ცვლის" in (
        KA.gettext(
            "🃏 Variants (Inquisitor, Reformation): a group's admins choose one in /settings, "
            "and /rules explains it."
        )
    )
    help_en = guide.help_text(EN, [], [])
    assert "come to your private chat" in help_en and "come in your" not in help_en
