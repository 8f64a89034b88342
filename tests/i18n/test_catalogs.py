"""The catalogues: complete Georgian, in sync with the code, glossary terms, fallback."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import polib
import pytest

from tgbot.config import DEFAULT_LOCALES
from tgbot.engine import Action, Character
from tgbot.rendering.i18n import Catalogs, pick_language
from tgbot.rendering.texts import ACTION_NAMES, CHARACTER_NAMES

ROOT = Path(__file__).resolve().parents[2]
KA = DEFAULT_LOCALES / "ka" / "LC_MESSAGES" / "messages.po"
EN = DEFAULT_LOCALES / "en" / "LC_MESSAGES" / "messages.po"
POT = DEFAULT_LOCALES / "messages.pot"
PLACEHOLDER = re.compile(r"\{(\w*)\}")

GLOSSARY_CHARACTERS = {
    Character.DUKE: "ჰერცოგი",
    Character.ASSASSIN: "ასასინი",
    Character.CAPTAIN: "კაპიტანი",
    Character.AMBASSADOR: "ელჩი",
    Character.CONTESSA: "კონტესა",
}
GLOSSARY_ACTIONS = {
    Action.INCOME: "შემოსავალი",
    Action.FOREIGN_AID: "საგარეო დახმარება",
    Action.COUP: "აჯანყება",
    Action.TAX: "გადასახადი",
    Action.ASSASSINATE: "მოკვლა",
    Action.STEAL: "მოპარვა",
    Action.EXCHANGE: "გაცვლა",
}


def test_georgian_is_complete_and_not_fuzzy() -> None:
    po = polib.pofile(str(KA))
    assert po.percent_translated() == 100
    assert po.fuzzy_entries() == []
    assert po.untranslated_entries() == []
    assert po.metadata["Plural-Forms"].startswith("nplurals=2;")
    for entry in po:
        if entry.msgid_plural:
            assert sorted(entry.msgstr_plural) == [0, 1], entry.msgid


@pytest.mark.parametrize("path", [KA, EN], ids=["ka", "en"])
def test_translations_keep_the_placeholders(path: Path) -> None:
    for entry in polib.pofile(str(path)):
        wanted = set(PLACEHOLDER.findall(entry.msgid))
        if entry.msgid_plural:
            wanted |= set(PLACEHOLDER.findall(entry.msgid_plural))
            forms = list(entry.msgstr_plural.values())
        else:
            forms = [entry.msgstr]
        for form in forms:
            assert set(PLACEHOLDER.findall(form)) == wanted, (entry.msgid, form)


@pytest.mark.skipif(shutil.which("msgfmt") is None, reason="GNU gettext is not installed")
@pytest.mark.parametrize("path", [KA, EN], ids=["ka", "en"])
def test_msgfmt_check_format_passes(path: Path) -> None:
    result = subprocess.run(
        ["msgfmt", "--check-format", "--statistics", "-o", "/dev/null", str(path)],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr
    assert "untranslated" not in result.stderr and "fuzzy" not in result.stderr


def test_catalogues_are_in_sync_with_the_code(tmp_path: Path) -> None:
    """A string added to the code without updating the catalogues fails here."""
    fresh = tmp_path / "messages.pot"
    subprocess.run(
        [sys.executable, "-m", "babel.messages.frontend", "extract", "-o", str(fresh)],
        cwd=ROOT,
        check=True,
        capture_output=True,
    )
    in_code = {e.msgid for e in polib.pofile(str(fresh))}
    assert in_code == {e.msgid for e in polib.pofile(str(POT))}, "run: pybabel extract"
    for path in (KA, EN):
        assert {e.msgid for e in polib.pofile(str(path)) if not e.obsolete} == in_code, (
            f"run: pybabel update ({path.parent.parent.name})"
        )


def test_glossary_terms_name_the_characters_and_actions() -> None:
    ka = Catalogs(DEFAULT_LOCALES).get("ka")
    for character, word in GLOSSARY_CHARACTERS.items():
        assert ka.gettext(CHARACTER_NAMES[character]) == word
    for action, word in GLOSSARY_ACTIONS.items():
        assert ka.gettext(ACTION_NAMES[action]) == word


def test_a_string_missing_from_georgian_reads_in_english(tmp_path: Path) -> None:
    po = polib.pofile(str(KA))
    entry = po.find("Duke")
    assert entry is not None
    entry.msgstr = ""
    (tmp_path / "ka" / "LC_MESSAGES").mkdir(parents=True)
    po.save(str(tmp_path / "ka" / "LC_MESSAGES" / "messages.po"))
    ka = Catalogs(tmp_path, ("ka",)).get("ka")
    assert ka.gettext("Duke") == "Duke"
    assert ka.gettext("Assassin") == "ასასინი"


def test_fuzzy_entries_are_not_used(tmp_path: Path) -> None:
    po = polib.pofile(str(KA))
    entry = po.find("Captain")
    assert entry is not None
    entry.flags.append("fuzzy")
    (tmp_path / "ka" / "LC_MESSAGES").mkdir(parents=True)
    po.save(str(tmp_path / "ka" / "LC_MESSAGES" / "messages.po"))
    assert Catalogs(tmp_path, ("ka",)).get("ka").gettext("Captain") == "Captain"


def test_language_choice() -> None:
    assert pick_language(None, None) == "ka"
    assert pick_language(None, "en-GB") == "en"
    assert pick_language(None, "ru") == "ka"
    assert pick_language("en", "ka") == "en"
    assert pick_language("ka", "en") == "ka"
    catalogs = Catalogs(DEFAULT_LOCALES)
    assert catalogs.get("xx").language == "ka"
    assert catalogs.get("en").gettext("Duke") == "Duke"


def test_georgian_plural_forms_keep_the_noun_singular() -> None:
    ka = Catalogs(DEFAULT_LOCALES).get("ka")
    for n in (1, 3):
        assert ka.ngettext("{n} coin", "{n} coins", n).format(n=n) == f"{n} მონეტა"
