"""The native review of the Georgian text (issue 16): what it found stays fixed.

docs/ka-review-status.md lists every point of the review; the user's rules text is
docs/seed-rules.ka.txt.
"""

from __future__ import annotations

import random
from itertools import combinations_with_replacement
from pathlib import Path

import polib
import pytest

from tgbot.config import DEFAULT_LOCALES
from tgbot.contract.settings import SETTING_CHOICES, ChatSettings
from tgbot.engine import (
    VARIANT_ACTIONS,
    Action,
    Block,
    Character,
    DecisionKind,
    Game,
    KeepCards,
    Pass,
    TakeAction,
    Variant,
    view_of,
)
from tgbot.engine import events as ev
from tgbot.engine.cards import ACTIONS
from tgbot.rendering import guide, history, prompting, settings_screens, tabletop, ui
from tgbot.rendering.forms import ACTION_FORMS, CHARACTER_FORMS, Case, action_in, character_in
from tgbot.rendering.i18n import Catalogs, Translator
from tgbot.rendering.texts import (
    action_name,
    block_text,
    character_name,
    describe,
    variant_name,
)
from tgbot.service.records import GameRecord, Seat, Timing
from tgbot.service.step_messages import StepMessages

CATALOGS = Catalogs(DEFAULT_LOCALES)
KA, EN = CATALOGS.get("ka"), CATALOGS.get("en")
PO = {lang: DEFAULT_LOCALES / lang / "LC_MESSAGES" / "messages.po" for lang in ("ka", "en")}
TIMING = Timing(60, 30, 30, 30, 60, 2)
BASE = (Character.DUKE, Character.ASSASSIN, Character.CAPTAIN, Character.AMBASSADOR,
        Character.CONTESSA)  # fmt: skip

# What Georgian needs, written out: the glossary's names declined.
KA_INSTRUMENTAL = {
    Character.DUKE: "ჰერცოგით",
    Character.ASSASSIN: "ასასინით",
    Character.CAPTAIN: "კაპიტნით",
    Character.AMBASSADOR: "ელჩით",
    Character.CONTESSA: "კონტესით",
    Character.INQUISITOR: "ინკვიზიტორით",
}
KA_GENITIVE = {
    Character.DUKE: "ჰერცოგის",
    Character.ASSASSIN: "ასასინის",
    Character.CAPTAIN: "კაპიტნის",
    Character.AMBASSADOR: "ელჩის",
    Character.CONTESSA: "კონტესის",
    Character.INQUISITOR: "ინკვიზიტორის",
}
KA_ACTION_GENITIVE = {
    Action.COUP: "აჯანყების",
    Action.ASSASSINATE: "მოკვლის",
    Action.STEAL: "მოპარვის",
    Action.FOREIGN_AID: "საგარეო დახმარების",
}


@pytest.mark.parametrize("lang", ["ka", "en"])
def test_catalogue_complete_without_fuzzy_or_empty(lang: str) -> None:
    po = polib.pofile(str(PO[lang]))
    assert po.fuzzy_entries() == [] and po.untranslated_entries() == []
    assert po.obsolete_entries() == []
    for entry in po:
        forms = entry.msgstr_plural.values() if entry.msgid_plural else [entry.msgstr]
        assert all(form.strip() for form in forms), entry.msgid


# ---- case forms -----------------------------------------------------------------------


@pytest.mark.parametrize("lang", ["ka", "en"])
def test_every_case_form_is_in_the_catalogue(lang: str) -> None:
    """Each form is its own translated entry (msgctxt + name), for every character and action."""
    po = polib.pofile(str(PO[lang]))
    entries = {(e.msgctxt, e.msgid): e.msgstr for e in po if e.msgctxt}
    wanted = [pair for forms in CHARACTER_FORMS.values() for pair in forms.values()]
    wanted += [pair for forms in ACTION_FORMS.values() for pair in forms.values()]
    actions = sum(len(ACTION_FORMS[case]) for case in ACTION_FORMS)
    assert len(wanted) == len(CHARACTER_FORMS) * len(Character) + actions
    for context, name in wanted:
        assert entries.get((context, name)), (lang, context, name)
    assert set(CHARACTER_FORMS[Case.INSTRUMENTAL]) == set(Character)
    assert set(ACTION_FORMS[Case.GENITIVE]) == set(Action)


def test_georgian_case_forms_are_the_declined_names() -> None:
    for character in Character:
        assert character_in(KA, character, Case.INSTRUMENTAL) == KA_INSTRUMENTAL[character]
        assert character_in(KA, character, Case.GENITIVE) == KA_GENITIVE[character]
        assert character_name(KA, character) != KA_INSTRUMENTAL[character]
    for action, form in KA_ACTION_GENITIVE.items():
        assert action_in(KA, action, Case.GENITIVE) == form
    for action in Action:
        assert action_in(KA, action, Case.GENITIVE).endswith("ის")


def test_english_case_forms_are_the_plain_names() -> None:
    for character in Character:
        name = character_name(EN, character)
        assert character_in(EN, character, Case.INSTRUMENTAL) == name
        assert character_in(EN, character, Case.GENITIVE) == name + "'s"
    for action in Action:
        assert action_in(EN, action, Case.GENITIVE) == action_name(EN, action)


@pytest.mark.parametrize("character", list(Character), ids=lambda c: c.value)
def test_block_sentences_exist_for_every_character_in_both_languages(
    character: Character,
) -> None:
    for t, ins in ((KA, KA_INSTRUMENTAL[character]), (EN, character_name(EN, character))):
        lines = {you: block_text(t, character, "Nino", "Levan", you) for you in (None, "blocker")}
        lines["actor"] = block_text(t, character, "Nino", "Levan", "actor")
        assert len(set(lines.values())) == 3
        for you, line in lines.items():
            assert ins in line and "{" not in line, line
            assert ("Nino" in line) == (you != "blocker"), line
    # Georgian: the names stay nominative, the character takes the instrumental, and the
    # block falls on the move, not on the person (the fifth reading, item 2).
    assert block_text(KA, character, "ნინო", "ლევანი") == (
        f"🛡 ნინო {KA_INSTRUMENTAL[character]} ბლოკავს ამ სვლას."
    )
    assert block_text(KA, character, "ნინო", "ლევანი", "actor") == (
        f"🛡 ნინო {KA_INSTRUMENTAL[character]} სვლას გიბლოკავს."
    )


def test_log_lines_use_the_case_forms() -> None:
    names = {1: "ნინო", 2: "ლევანი"}
    declared = ev.BlockDeclared(2, Character.CAPTAIN, 1, Action.STEAL)
    assert describe(declared, KA, names) == "🛡 ლევანი კაპიტნით ბლოკავს ამ სვლას."
    assert describe(declared, KA, names, 2) == "🛡 კაპიტნით ბლოკავ."
    blocked = ev.ActionBlocked(1, Action.ASSASSINATE, 2, Character.CONTESSA)
    assert describe(blocked, KA, names) == "🛡 კონტესის კონტრსვლა ძალაშია: მოკვლა ჩაიშალა."
    assert describe(blocked, EN, {1: "A", 2: "B"}) == (
        "🛡 The Contessa's block stands: the assassination fails."
    )


# ---- what the review found ------------------------------------------------------------

# Phrases the review marked as wrong or unnatural; none may come back in a Georgian msgstr.
REJECTED = [
    "ატარებ",  # "you carry": Pass (1.1, 1.2)
    "გატარება",  # Pass as a verbal noun (2.1, 2.3, 2.4)
    "გაატარებ",  # (2.2)
    "შენგან პარავს",  # calque (1.3)
    "სვლა გაცდა",  # broken verb form (1.4)
    "მოთამაშისას",  # (1.5)
    "ბარათი დეკში ბრუნდება და ახალს იღებს",  # the card takes a new one (1.6)
    "ამოატრიალებს ბარათს:",  # future tense for a card already up (2.5)
    "ამოატრიალე ბარათი:",  # reads as an order (2.6)
    "და კლავს",  # the kill stated before it can be blocked (2.7, 2.8)
    "და კლავ.",
    "როგორც",  # "as the X" calque (2.9)
    "(სვლა:",  # (2.9)
    "ვუკავშირდები",  # the unreachable note addressed to nobody (2.10)
    "გარიცხვა",  # (2.11)
    "გაცდენილი",  # (2.11)
    "🇬🇧 ინგლისური",  # (2.12)
    "მოკვლა შედგა",  # (2.13)
    "ბარათს —",  # dash plus colon (2.14)
    "და პარავს.",  # (2.15)
    "და პარავ.",
    "აკეთებ ერთ-ერთს",  # (2.16)
    "ბლეფის ავტორი",  # (2.17)
    "ადმინები ცვლიან",  # (2.19, 2.23)
    "ცვლიან ადმინები",
    "იწყებენ.",
    "აშორებს მხოლოდ",
    "აუქმებს მხოლოდ",
    "ღილაკი არასწორია",  # (2.20)
    "ძალიან სწრაფად:",  # (2.21)
    "AI-ის",  # (2.22)
    "ნათამაშები:",  # (2.24)
    "მოლოდინი:",  # the lobby's third name (3.2)
    "თამაში დაიხურა",  # (3.2)
    "გყოფნით",  # plural "you" (3.4)
    "აირჩიე მოთამაშე",  # the picker says "player", the log "target" (3.5)
    "დაბლოკვა: {character",  # the character cut off on the button (4.1)
    # Second pass: the strings of issues 15 and 19 (docs/ka-review-status.md, "New strings").
    "და იღებს გადასახადს",  # the Tax stated as taken before it can be challenged
    "და იღებ გადასახადს",
    "და ცვლის ბარათებს",  # the same for the Exchange
    "და ცვლი ბარათებს",
    "და ცვლის ბარათს",
    "იწყებს დაკითხვას",  # the same for the Inquisitor's examination
    "ყულაბას ითვისებ",  # the same for Embezzlement
    "⏳ ველოდებით:",  # "we wait: X", with no word of what for
    "მოთამაშეები ხსნიან",  # a refusal phrased as a habit (as 2.19)
    "საჯარო ჟურნალი",  # "public journal", a calque of "public log"
    "რეიტინგის თამაში",  # the word is სარეიტინგო
    "= შეფასება",  # a formula instead of a sentence
    "(სვლა {turn})",  # "(move 3)": the ordinal is მე-3
    "დაიბრალეს: {list}",  # two colons in one line
    "დარჩა: {time}",
    "ჩანაწერები და რეიტინგი:",  # /help's second list of /top and /stats
]


def test_rejected_phrasing_is_really_searched_for() -> None:
    """The search above finds a phrase that is there (it cannot pass on an empty catalogue)."""
    msgstrs = georgian_msgstrs()
    assert len(msgstrs) > 300
    assert any("იბრალებს ჰერცოგს" in s for s in msgstrs)


def georgian_msgstrs() -> list[str]:
    po = polib.pofile(str(PO["ka"]))
    out: list[str] = []
    for entry in po:
        out += list(entry.msgstr_plural.values()) if entry.msgid_plural else [entry.msgstr]
    return out


@pytest.mark.parametrize("phrase", REJECTED)
def test_rejected_phrasing_does_not_come_back(phrase: str) -> None:
    hits = [s for s in georgian_msgstrs() if phrase in s]
    assert not hits, hits


def test_pass_reads_pass() -> None:
    names = {1: "ნინო"}
    assert describe(ev.ResponsePassed(1), KA, names, 1) == "✅ პასი."
    assert describe(ev.ResponsePassed(1), KA, names) == "✅ ნინო: პასი."
    assert KA.gettext("✅ Pass") == "✅ პასი"


def test_leaving_and_being_knocked_out_are_worded_apart() -> None:
    """A mid-game leave is followed by the elimination: the two must not say the same."""
    game, _ = Game.new([1, 2, 3], 5)
    events = game.leave(1)
    left = [e for e in events if isinstance(e, ev.PlayerLeft)]
    out = [e for e in events if isinstance(e, ev.PlayerEliminated)]
    assert left and out
    for t in (KA, EN):
        for viewer in (None, 1, 2):
            leave_line = describe(left[0], t, {1: "ნინო", 2: "B", 3: "C"}, viewer)
            out_line = describe(out[0], t, {1: "ნინო", 2: "B", 3: "C"}, viewer)
            assert leave_line and out_line
            assert leave_line.split(" ", 1)[1] != out_line.split(" ", 1)[1]
            if t is KA:
                # The knock-out has its own word (docs/GLOSSARY.md), never the leave's.
                assert "თამაშიდან გავარდ" in out_line and "ტოვებ" not in out_line
    # The leaver reads their own leave in the second person, not their name.
    assert describe(left[0], KA, {1: "ნინო"}, 1) == "🚪 თამაშს თავს ანებებ."
    assert describe(ev.PlayerLeft(1, afk=True), EN, {1: "A"}, 1) == (
        "🚪 You missed too many turns and leave the game."
    )


def test_language_picker_names_each_language_in_itself() -> None:
    for t in (KA, EN):
        labels = [b["text"] for row in settings_screens.language_screen(t).keyboard for b in row]
        assert labels == ["🇬🇪 ქართული", "🇬🇧 English"]


def test_unreachable_note_addresses_the_player() -> None:
    """The note speaks to the player it names, in both languages, and its English source
    says what the translations say (no longer "their decisions")."""
    record = GameRecord("g", -1, None, "ka", 1, TIMING, players=[Seat(1, "ნინო", "ka")])
    builder = StepMessages(CATALOGS, "coup_bot")
    ka_note = builder.unreachable_note(record, 1)
    assert ka_note.startswith("📵 ნინო, პირად ჩატში ვერ გწერ.") and "შენი სვლები" in ka_note
    assert "https://t.me/coup_bot?start=hi" in ka_note
    record.lang = "en"
    en_note = builder.unreachable_note(record, 1)
    assert en_note.startswith("📵 ნინო, I can't message you privately.") and "your turns" in en_note
    assert "their" not in en_note


# ---- buttons --------------------------------------------------------------------------

# Telegram cuts an inline button's text with "…" rather than wrapping it. The review
# (section 4) found 19-20 Mkhedruli characters at the limit two to a row and asked for 20;
# Latin lower case is narrower (22). A button alone on its row may take 30 (the review:
# 27 fine, 35 too long).
SHARED_ROW = {"ka": 20, "en": 22}
FULL_ROW = 30


def keyboards_of_random_games(t: Translator) -> list[list[list[dict[str, str]]]]:
    """Every keyboard the players were shown in a few random games (prompts and lobby)."""
    boards = [tabletop.lobby_screen(t, "abcdef", "N", ["N"], 60).keyboard]
    boards.append(settings_screens.language_screen(t).keyboard)
    boards += [tabletop.lobby_screen(t, "abcdef", "N", ["N"], 60, v).keyboard for v in Variant]
    rng = random.Random(3)
    # The base game, then each variant (issue 18: Examine, Convert, Embezzle, their prompts).
    games = [(seed, Variant.BASE) for seed in range(25)]
    games += [(seed, v) for v in Variant if v is not Variant.BASE for seed in range(12)]
    for seed, variant in games:
        game, _ = Game.new([1, 2, 3, 4], seed, variant=variant)
        names = {i: f"N{i}" for i in range(1, 5)}
        while not game.over:
            waiting = game.awaiting()
            if waiting.kind is DecisionKind.RESPONSE:  # the answers on the group's turn message
                options = game.answers()
                boards.append(tabletop.answer_buttons(t, "abcdef", game.version, options, names))
            for pid in waiting.players:
                a = prompting.Asking(t, view_of(game, pid), "abcdef", game.version, names)
                screen = {
                    DecisionKind.TURN: lambda a=a: prompting.turn_screen(a),
                    DecisionKind.RESPONSE: lambda a=a: prompting.response_screen(a, []),
                    DecisionKind.LOSE_CARD: lambda a=a: prompting.lose_screen(a, []),
                    DecisionKind.EXCHANGE: lambda a=a: prompting.exchange_screen(a, []),
                    DecisionKind.SHOW_CARD: lambda a=a: prompting.show_screen(a, []),
                    DecisionKind.EXAMINE: lambda a=a: prompting.examine_screen(a, []),
                }[waiting.kind]()  # type: ignore[index]
                boards.append(screen.keyboard)
                if waiting.kind is DecisionKind.TURN:  # and every target picker it opens
                    for action in {d.action for d in a.view.legal if isinstance(d, TakeAction)}:
                        if VARIANT_ACTIONS[variant][action].targeted:
                            boards.append(prompting.target_screen(a, action).keyboard)
            pid = waiting.players[0]
            game.apply(pid, rng.choice(game.legal_decisions(pid)))
    return boards


@pytest.mark.parametrize("lang", ["ka", "en"])
def test_buttons_fit_their_row_on_a_phone(lang: str) -> None:
    t = CATALOGS.get(lang)
    seen: set[str] = set()
    for keyboard in keyboards_of_random_games(t):
        for row in keyboard:
            limit = FULL_ROW if len(row) == 1 else SHARED_ROW[lang]
            for button in row:
                seen.add(button["text"])
                assert len(button["text"]) <= limit, (lang, button["text"], len(row))
    # The games reached the buttons the review measured.
    assert t.gettext("✅ Pass") in seen
    assert any(text.startswith("🛡") for text in seen)
    assert ui.ACTION_BUTTONS[Action.FOREIGN_AID](t) in seen
    for action in (Action.EXAMINE, Action.CONVERT, Action.EMBEZZLE):
        assert ui.ACTION_BUTTONS[action](t) in seen, action
    for label in ("👍 Let them keep it", "🔁 Make them swap it", "🔀 Myself (1 coin)"):
        assert t.gettext(label) in seen, label
    assert any(text.startswith("👁 ") for text in seen)  # a card to show
    assert ui.decision_label(t, Block(Character.INQUISITOR), {}) in seen


@pytest.mark.parametrize("lang", ["ka", "en"])
def test_every_block_and_keep_label_is_short(lang: str) -> None:
    t = CATALOGS.get(lang)
    labels = [ui.decision_label(t, Block(c), {}) for c in Character]
    labels += [
        ui.decision_label(t, KeepCards(pair), {}) for pair in combinations_with_replacement(BASE, 2)
    ]
    for label in labels:
        assert len(label) <= SHARED_ROW[lang], label
    if lang == "ka":  # the character is the whole label, in the instrumental
        assert labels[: len(Character)] == [f"🛡 {KA_INSTRUMENTAL[c]}" for c in Character]
    same = ui.decision_label(t, KeepCards((Character.AMBASSADOR, Character.AMBASSADOR)), {})
    assert same == "2 × " + character_name(t, Character.AMBASSADOR)


def test_foreign_aid_has_a_row_of_its_own() -> None:
    game, _ = Game.new([1, 2, 3], 1)
    actor = game.awaiting().players[0]
    for t in (KA, EN):
        keyboard = prompting.turn_screen(
            prompting.Asking(t, view_of(game, actor), "abcdef", 0, {})
        ).keyboard
        aid = ui.ACTION_BUTTONS[Action.FOREIGN_AID](t)
        rows = [row for row in keyboard if any(b["text"] == aid for b in row)]
        assert len(rows) == 1 and len(rows[0]) == 1


@pytest.mark.parametrize("lang", ["ka", "en"])
def test_settings_buttons_fit_a_full_row(lang: str) -> None:
    t = CATALOGS.get(lang)
    for values in zip(*(SETTING_CHOICES[k] for k in SETTING_CHOICES), strict=False):
        current = ChatSettings.from_stored(dict(zip(SETTING_CHOICES, values, strict=True)))
        for row in settings_screens.settings_screen(t, current).keyboard:
            assert len(row) == 1 and len(row[0]["text"]) <= FULL_ROW, row


# ---- /rules against the user's rules text (docs/seed-rules.ka.txt) -------------------

SEED = Path(__file__).resolve().parents[2] / "docs" / "seed-rules.ka.txt"

# For each action line of /rules: what it must say (the seed's points, the glossary's terms).
RULE_LINES = {
    "ka": {
        "💰 შემოსავალი": ["განძიდან 1 მონეტა", "ვერავინ დაბლოკავს", "ვერავინ შეეწინააღმდეგება"],
        "🤝 საგარეო დახმარება": [
            "განძიდან 2 მონეტა",
            "ნებისმიერ სხვა მოთამაშეს შეუძლია ჰერცოგით დაბლოკოს",
        ],
        "💥 აჯანყება": [
            "7 მონეტა საგანძურში",
            "ერთ ბარათს ამოატრიალებს",
            "10 ან მეტი",
            "ვერავინ დაბლოკავს და ვერავინ შეეწინააღმდეგება",
        ],
        "👑 გადასახადი (ჰერცოგი)": ["განძიდან 3 მონეტა", "არ იბლოკება"],
        "🗡 მოკვლა (ასასინი)": [
            "3 მონეტა",
            "ერთ ბარათს ამოატრიალებს",
            "მხოლოდ სამიზნეს შეუძლია კონტესით დაბლოკოს",
            "თუ მოკვლა დაიბლოკა, გადახდილ 3 მონეტას უკან ვეღარ იბრუნებ",
        ],
        "🏴 მოპარვა (კაპიტანი)": [
            "2 მონეტა",
            "მხოლოდ სამიზნეს შეუძლია კაპიტნით ან ელჩით დაბლოკოს",
        ],
        "🔄 გაცვლა (ელჩი)": [
            "დეკიდან 2 ბარათი",
            "ამ ბარათებიდან და შენი ბარათებიდან დაიტოვე იმდენი, რამდენიც გქონდა",
            "დანარჩენი კი დეკში დააბრუნე",
            "არ იბლოკება",
        ],
    },
    "en": {
        "💰 Income": ["1 coin from the treasury", "No one can block or challenge it"],
        "🤝 Foreign Aid": ["2 coins", "Any other player can block it with the Duke"],
        "💥 Coup": [
            "pay 7 coins into the treasury",
            "turns a card face up",
            "10 or more",
            "No one can block or challenge it",
        ],
        "👑 Tax (Duke)": ["3 coins", "It cannot be blocked"],
        "🗡 Assassinate (Assassin)": [
            "pay 3 coins",
            "turns a card face up",
            "Only the target can block it, with the Contessa",
            "a blocked assassination does not give the 3 coins back",
        ],
        "🏴 Steal (Captain)": [
            "2 coins",
            "Only the target can block it, with a Captain or an Ambassador",
        ],
        "🔄 Exchange (Ambassador)": [
            "2 cards from the deck",
            "choose among them and your own cards",
            "the rest back",
            "cannot be blocked",
        ],
    },
}
# The rest of /rules: setup, claims, challenges (of actions and of blocks), elimination.
RULE_POINTS = {
    "ka": [
        "15 ბარათია",
        "ჰერცოგი, ასასინი, კაპიტანი, ელჩი და კონტესა",
        "3-3 ბარათი",
        "2 ბარათი, რომელიც საიდუმლოდ",
        "და 2 მონეტა",
        "ორკაციან თამაშში პირველი მოთამაშე 1 მონეტას",
        "დანარჩენი ბარათები დეკში რჩება",
        "განძში",
        "ნებისმიერი ბარათის ქონა",
        "ბლეფი დაშვებულია",
        "სვლასაც და კონტრსვლასაც (დაბლოკვას)",
        "ყველას შეუძლია შეეწინააღმდეგოს",
        "ვინც ბლეფობდა, ერთ ბარათს ამოატრიალებს და სვლა ან კონტრსვლა ჩაიშლება",
        "გადახდილ 3 მონეტას უკან იბრუნებს",
        "დეკში აბრუნებს და სანაცვლოდ ახალს იღებს",
        "ვინც შეცდომით შეეწინააღმდეგა, ერთ ბარათს ამოატრიალებს",
        "სვლა ან კონტრსვლა კი ძალაში რჩება",
        "დაბლოკილი სვლა ჩაიშლება, თუ დაბლოკვას ვინმე წარმატებით არ შეეწინააღმდეგა",
        "ორივე ბარათი ამოტრიალებული აქვს, თამაშს ტოვებს",
    ],
    "en": [
        "15 cards",
        "Duke, Assassin, Captain, Ambassador and Contessa",
        "3 cards each",
        "2 cards, to keep secret, and 2 coins",
        "in a 2-player game the first player gets 1",
        "The other cards stay in the deck",
        "treasury",
        "claim any character",
        "bluffing is allowed",
        "an action or a counteraction (a block), can be challenged by any player",
        "the bluffer turns a card face up and the action or block fails",
        "gets the 3 coins back",
        "puts it back into the deck and draws a new one",
        "the challenger turns a card face up",
        "the action or block goes ahead",
        "A blocked action fails unless someone challenges the block successfully",
        "both cards face up is out of the game",
    ],
}


@pytest.mark.parametrize("lang", ["ka", "en"])
def test_rules_state_each_action_and_who_may_block_it(lang: str) -> None:
    text = guide.rules_text(CATALOGS.get(lang))
    lines = text.splitlines()
    for head, points in RULE_LINES[lang].items():
        line = [ln for ln in lines if ln.startswith(head + ":")]
        assert len(line) == 1, head
        for point in points:
            assert point in line[0], (head, point)
    # Only Foreign Aid, Assassinate and Steal can be blocked: the others say they cannot.
    unblockable = {"ka": ("ვერავინ დაბლოკავს", "არ იბლოკება"), "en": ("No one can block",
                   "cannot be blocked")}[lang]  # fmt: skip
    for i, head in enumerate(RULE_LINES[lang]):
        line = next(ln for ln in lines if ln.startswith(head + ":"))
        assert any(word in line for word in unblockable) == (i in (0, 2, 3, 6)), line


@pytest.mark.parametrize("lang", ["ka", "en"])
def test_rules_state_every_other_point_of_the_seed(lang: str) -> None:
    text = guide.rules_text(CATALOGS.get(lang))
    for point in RULE_POINTS[lang]:
        assert point in text, point
    assert len(text) < 4096  # one Telegram message


def test_georgian_rules_use_the_seed_terms() -> None:
    """The structural words of the user's text appear in /rules, spelled as the seed spells them."""
    seed, rules = SEED.read_text(encoding="utf-8"), guide.rules_text(KA)
    for term in ("კონტრსვლა", "განძი", "საგანძურ", "დეკ", "ბლეფ", "შეეწინააღმდეგ", "დაიბრალო",
                 "ამოატრიალ", "თამაშს ტოვებს", "იბლოკება"):  # fmt: skip
        assert term in seed and term in rules, term
    for character in BASE:
        assert character_name(KA, character) in seed and character_name(KA, character) in rules


@pytest.mark.parametrize("lang", ["ka", "en"])
def test_rules_of_each_variant_fit_one_message_and_use_the_glossary(lang: str) -> None:
    t = CATALOGS.get(lang)
    words = {
        "ka": {"inquisitor": ["ინკვიზიტორი", "დაკითხვა", "ინკვიზიტორით დაბლოკოს"],
               "reformation": ["ერთგულები", "რეფორმისტები", "მხარის შეცვლა", "ყულაბ",
                               "მითვისება", "განძში"]},
        "en": {"inquisitor": ["Inquisitor", "Examine", "Captain or an Inquisitor"],
               "reformation": ["Loyalists", "Reformists", "Conversion", "Reserve",
                               "Embezzlement", "treasury"]},
    }[lang]  # fmt: skip
    for variant in Variant:
        text = guide.rules_for(t, variant)
        body = guide.rules_text(t, variant)  # told from the variant's deck
        assert body in text, variant
        assert all(len(m.encode("utf-16-le")) // 2 < 4096 for m in guide.rules_messages(t, variant))
        # The variant is named before the rules; Reformation's changes come after them.
        assert text.startswith(body) == (variant is Variant.BASE), variant
        extra = text[text.index(body) + len(body) :]
        for point in words["inquisitor"]:
            assert (point in body) == variant.inquisitor, (variant, point)
        for point in words["reformation"]:
            assert (point in extra) == variant.reformation, (variant, point)
    listing = guide.variants_list_text(t)
    for variant in Variant:
        if variant is not Variant.BASE:
            assert variant_name(t, variant) in listing


def test_every_variant_event_reads_for_every_viewer() -> None:
    """Conversions, embezzlements and examinations are told to the group and to each player,
    in both languages, with every placeholder filled."""
    kinds: set[str] = set()
    rng = random.Random(18)
    for variant in (Variant.INQUISITOR, Variant.REFORMATION, Variant.REFORMATION_INQUISITOR):
        for seed in range(15):
            game, events = Game.new([1, 2, 3], seed, variant=variant)
            names = {1: "N1", 2: "N2", 3: "N3"}
            while True:
                for e in events:
                    for t in (KA, EN):
                        for viewer in (None, 1, 2, 3):
                            line = describe(e, t, names, viewer)
                            if line is None:
                                continue
                            assert line.strip() and "{" not in line, (e, viewer, line)
                            kinds.add(type(e).__name__)
                if game.over:
                    break
                pid = game.awaiting().players[0]
                events = game.apply(pid, rng.choice(game.legal_decisions(pid)))
    for kind in ("AllegiancesAssigned", "AllegianceChanged", "CardShown", "ExamineDecided",
                 "ExaminedCard", "CardShownTo", "EmbezzlementChallenged"):  # fmt: skip
        assert kind in kinds, kind


# ---- second pass: the table of issue 15 and the records of issue 19 ---------------------

CLAIMED_ACTIONS = {
    Action.TAX: Character.DUKE,
    Action.ASSASSINATE: Character.ASSASSIN,
    Action.STEAL: Character.CAPTAIN,
    Action.EXCHANGE: Character.AMBASSADOR,
}


@pytest.mark.parametrize("action", list(CLAIMED_ACTIONS), ids=lambda a: a.value)
def test_a_claimed_action_is_announced_as_an_attempt(action: Action) -> None:
    """The declaration can still be challenged (or blocked): it must not say it happened.
    Georgian says the actor tries (ცდილობ-) or pays in order to (მოსაკლავად), English
    "claims ... to ..."."""
    names = {1: "ნინო", 2: "ლევანი"}
    target = 2 if ACTIONS[action].targeted else None
    e = ev.ActionDeclared(1, action, target, CLAIMED_ACTIONS[action], ACTIONS[action].cost)
    for viewer in (None, 1, 2, 3):
        ka = describe(e, KA, names, viewer)
        en = describe(e, EN, names, viewer)
        assert ka and en
        assert "ცდილობ" in ka or "მოსაკლავად" in ka, ka
        assert " to " in en or "wants to" in en, en
        assert character_name(KA, CLAIMED_ACTIONS[action]) not in ka  # the claim in its case
        assert character_name(EN, CLAIMED_ACTIONS[action]) in en


def private_messages_of_random_games(answers: str) -> list[tuple[int, str]]:
    """Every private message (sent or edited) of random 2-6 player games through
    StepMessages, with mixed languages."""
    builder = StepMessages(CATALOGS, "coup_bot")
    out: list[tuple[int, str]] = []
    for seed in range(40):
        ids = list(range(1, 2 + seed % 5 + 1))
        seats = [Seat(pid, f"P{pid}", ("ka", "en")[(pid + seed) % 2]) for pid in ids]
        record = GameRecord("g", -1, None, "ka", 1, TIMING, players=seats)
        record.answers = answers
        driver = random.Random(seed)
        game, events = Game.new(ids, seed)
        while True:
            plan = builder.build(record, game, events, now_ms=0)
            out += [(op.chat, op.text) for op in plan.ops if op.chat > 0]
            if game.over:
                break
            player = driver.choice(game.awaiting().players)
            events = game.apply(player, driver.choice(game.legal_decisions(player)))
    return out


@pytest.mark.parametrize("answers", ["table", "private"])
def test_no_private_message_says_a_line_twice(answers: str) -> None:
    """The first pass left "🂠 your cards" twice in the first prompt (the deal, then the
    hand) and "🔄 you keep" twice: step_messages decides each private message now."""
    messages = private_messages_of_random_games(answers)
    assert len(messages) > 500
    hands = 0
    for chat, text in messages:
        lines = [line for line in text.split("\n") if line.strip()]
        assert len(lines) == len(set(lines)), (chat, text)
        # The hand is one line: the deal's "your cards" and the prompt's do not both appear.
        card_lines = [ln for ln in lines if ln.startswith(("🂠 შენი ბარათ", "🂠 Your card"))]
        assert len(card_lines) <= 1, (chat, text)
        keep_lines = [ln for ln in lines if ln.startswith(("🔄 გრჩება", "🔄 You keep"))]
        assert len(keep_lines) <= 1, (chat, text)
        hands += len(card_lines)
    assert hands > 100


def test_first_prompt_shows_the_hand_once() -> None:
    builder = StepMessages(CATALOGS, "coup_bot")
    record = GameRecord("g", -1, None, "ka", 1, TIMING, players=[Seat(1, "ნინო", "ka"),
                        Seat(2, "Levan", "en")])  # fmt: skip
    game, events = Game.new([1, 2], 3, keep_seating=True, first_player=1)
    plan = builder.build(record, game, events, now_ms=0)
    mine = "\n".join(op.text for op in plan.ops if op.chat == 1)
    # The dealt hand is a message of its own, the prompt the next one: the hand once in all.
    assert mine.count("🂠 შენი ბარათები") == 1 and "▶️ შენი სვლაა, ნინო." in mine
    other = next(op.text for op in plan.ops if op.chat == 2)
    assert other.count("🂠 Your cards") == 1  # not prompted: the deal line is their hand


@pytest.mark.parametrize("lang", ["ka", "en"])
def test_help_lists_each_command_once(lang: str) -> None:
    """/help is one list (issue 19 had appended a second block repeating /stats and /top):
    each command once per chat kind, and every command of the menus is there."""
    from tgbot.telegram.commands import help_text, listing

    t = CATALOGS.get(lang)
    text = help_text(t)
    sections = text.split("\n\n")
    group = [ln.split(":")[0] for ln in sections[1].split("\n")[1:]]
    private = [ln.split(":")[0] for ln in sections[2].split("\n")[1:]]
    assert len(group) == len(set(group)) and len(private) == len(set(private))
    for line in listing(group=True):
        if line.name != "help":
            assert f"/{line.name}" in group, line.name
    for line in listing(group=False):
        if line.name not in ("help", "rules", "leave"):
            assert f"/{line.name}" in private, line.name
    assert text.count("/stats") == 1 and text.count("/top") == 2 and text.count("/claims") == 1
    assert len(sections) == 4


def test_who_may_still_answer_reads_as_a_sentence() -> None:
    """The turn message's last line: what we wait for, and until when (a moment,
    which each phone shows in its own time: here its plain-text fallback), as a sentence
    and a short clause (not "X. (30 s left)")."""
    game, _ = Game.new([1, 2, 3], 1, keep_seating=True, first_player=1)
    game.apply(1, next(d for d in game.legal_decisions(1) if getattr(d, "action", None)
                       is Action.FOREIGN_AID))  # fmt: skip
    names = {1: "ნინო", 2: "Levan", 3: "🤖 თამარი"}

    def shown(text: str) -> str:
        text, at = ui.take_moment(text)
        assert at is not None
        return text[:at] + "16:34:56" + text[at:]

    # Nobody is named, however many may still answer (the Mini App names them): the
    # line asks.
    asks = shown(tabletop.status_text(KA, view_of(game), names))
    assert asks == "⏳ პასუხის დროა ⏰ 16:34:56-მდე"
    game.apply(2, next(d for d in game.legal_decisions(2) if isinstance(d, Pass)))
    assert shown(tabletop.status_text(KA, view_of(game), names)) == asks
    assert shown(tabletop.status_text(EN, view_of(game), names)) == (
        "⏳ Time to answer ⏰ until 16:34:56"
    )


def test_a_move_on_a_player_already_out_is_told_to_them_in_the_second_person() -> None:
    e = ev.ActionFizzled(1, Action.STEAL, 2)
    names = {1: "ნინო", 2: "გიორგი"}
    assert describe(e, KA, names, 2) == "💨 თამაშში აღარ ხარ: სვლა უშედეგოა."
    assert describe(e, KA, names) == "💨 გიორგი თამაშში აღარ არის: სვლა უშედეგოა."
    assert describe(e, EN, names, 2) == "💨 You are already out: nothing happens."


def test_english_sources_of_service_say_what_the_translations_say() -> None:
    """The msgids the first pass could change only in msgstr ("msgid in service") now carry
    the reworded English themselves; the old wording is gone from the template."""
    pot = polib.pofile(str(DEFAULT_LOCALES / "messages.pot"))
    ids = {e.msgid for e in pot}
    for old, new in (
        ("A game needs at least one person.", "A game needs at least one human player."),
        ("It is not your decision now.", "It's not your turn to decide."),
        (
            "{name}, open the bot and press Start, then you are in.",
            "{name}, open the bot and press Start, and you're in.",
        ),
    ):
        assert old not in ids and new in ids
        assert EN.gettext(new) == new and KA.gettext(new) != new
    assert not [i for i in ids if "their decisions" in i or "I cannot write" in i]


def test_records_read_as_sentences() -> None:
    """/stats, /top, /claims, the bluff summary and the replay's header (issue 19)."""
    names = {1: "ნინო", 2: "Levan"}
    claims = [(1, Character.DUKE, 1, True), (2, Character.CAPTAIN, 5, False)]
    assert history.bluff_summary(KA, claims, names).split("\n")[1:] == [
        "ნინო: ✅ ჰერცოგი (1-ლი სვლა)",
        "Levan: ❌ კაპიტანი (მე-5 სვლა)",
    ]
    assert (
        history.claims_line(KA, {"1": {"duke": 2}}, names)
        == "🗣 აქამდე დაიბრალეს — ნინო: ჰერცოგი ×2"
    )
    assert history.replay_header(KA, "ab12", "2026-12-01") == (
        "📜 თამაში ab12, 2026-12-01. რაც მაგიდაზე მოხდა:"
    )
    stats = history.stats_text(KA, {"played": 4, "won": 1, "claim:duke": 3, "bluff:duke": 1},
                               None)  # fmt: skip
    assert "ჰერცოგი: 3 დაბრალება, მათგან 1 ბლეფი (33%)" in stats
    lobby = tabletop.lobby_screen(KA, "g", "ნინო", ["ნინო"], 90).text
    assert lobby.endswith("თუ თამაშში 2 ან მეტი მოთამაშე იქნება, ის 2 წუთში ავტომატურად დაიწყება.")
