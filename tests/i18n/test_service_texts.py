"""The service speaks no language: no gettext call and no translatable string in
tgbot/service/; every refusal and notice it raises or returns has words in ka and en."""

from __future__ import annotations

import ast
import gettext
from pathlib import Path

import pytest
from babel.messages.extract import extract_from_file

from tgbot.config import DEFAULT_LOCALES
from tgbot.contract.outcomes import Notice, Refusal, Said, engine_refusal
from tgbot.engine import Reason
from tgbot.rendering import notices
from tgbot.rendering.i18n import Catalogs, Translator

ROOT = Path(__file__).resolve().parents[2]
# The rooms that speak no language.
SPEECHLESS = [ROOT / "tgbot" / room for room in ("service", "storage", "engine", "ai")]
# tgbot/telegram makes no text either (tests/i18n/test_edge_has_no_gettext.py), but its
# command table carries the help lines as N_ markers, which rendering translates.
SOURCES = sorted(path for folder in SPEECHLESS for path in folder.glob("*.py"))
SPEAKING_NAMES = {"gettext", "ngettext", "pgettext", "npgettext", "dgettext", "_", "N_", "NC_"}
KEYWORDS = {"N_": None, "NC_": ((1, "c"), 2), "gettext": None, "ngettext": (1, 2)}
KEYWORDS["pgettext"] = ((1, "c"), 2)
CATALOGS = Catalogs(DEFAULT_LOCALES)
GEORGIAN = range(0x10A0, 0x1100)


def speaking_calls(source: str) -> list[tuple[int, str]]:
    """Every call of a translating (or marking) function, as (line, name)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if name in SPEAKING_NAMES:
                found.append((node.lineno, name))
        elif isinstance(node, ast.ImportFrom) and node.module == "gettext":
            found.append((node.lineno, "from gettext import"))
        elif isinstance(node, ast.Import) and any(a.name == "gettext" for a in node.names):
            found.append((node.lineno, "import gettext"))
    return sorted(found)


def test_the_scan_finds_what_it_looks_for() -> None:
    assert len(SOURCES) >= 10  # the folder was found
    # The check below must be able to fail: a translating call in any of its shapes is seen.
    sample = 't.gettext("Hi")\nn = N_("Nino")\nt.ngettext("a", "b", 2)\nimport gettext\n'
    assert [name for _, name in speaking_calls(sample)] == [
        "gettext",
        "N_",
        "ngettext",
        "import gettext",
    ]
    assert speaking_calls('text = "plain"\nsay(t, said)\n') == []


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_service_calls_no_gettext(path: Path) -> None:
    assert speaking_calls(path.read_text(encoding="utf-8")) == [], path


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_service_holds_no_translatable_string(path: Path) -> None:
    # What `pybabel extract` (the project's keywords) would take from the file: nothing.
    found = list(extract_from_file("python", str(path), keywords=KEYWORDS))
    assert found == [], [(line, msg) for line, msg, _, _ in found]


def composed_texts(source: str) -> list[tuple[int, str]]:
    """Where code puts text together: a string with a line break in it (a docstring
    aside), or an f-string, as (line, what)."""
    tree = ast.parse(source)
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            found.append((node.lineno, "f-string"))
        elif (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and "\n" in node.value
            and id(node) not in docstrings
        ):
            found.append((node.lineno, repr(node.value)))
    return sorted(set(found))


# The f-strings the service may make: keys, ids, seeds and links, which no one reads as a
# sentence (file, the f-string's text with its fields as {}).
NOT_TEXT = {
    ("archive.py", "{}{}"),
    ("core.py", "{}:{}"),
    ("core.py", "j{}"),  # the pattern of a lobby's deep link
    ("deadlines.py", "{}:{}:{}"),
    ("fairness.py", "{}:{}"),
    ("fairness.py", "no deal: {}"),  # `coup-bot verify`'s own English (cli.py), no player's
    ("history.py", "ai{}"),
    ("history.py", "{}:{}"),
    ("lobby.py", "https://t.me/{}?start=hi"),
    ("lobby.py", "https://t.me/{}?start=j{}"),
}


def f_strings(source: str) -> list[str]:
    """Each f-string of a source, its fields written as {}; those of an error raised or a
    log line (a developer's English) aside."""
    tree = ast.parse(source)
    aside = {
        id(inner)
        for node in ast.walk(tree)
        if isinstance(node, ast.Raise)
        or (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id == "log"
        )
        for inner in ast.walk(node)
    }
    return [
        "".join(v.value if isinstance(v, ast.Constant) else "{}" for v in node.values)
        for node in ast.walk(tree)
        if isinstance(node, ast.JoinedStr) and id(node) not in aside
    ]


def test_the_composition_scan_finds_what_it_looks_for() -> None:
    sample = 'def f():\n    """Doc\n    more."""\n    a = "x\\ny"\n    b = f"{a}!"\n'
    assert composed_texts(sample) == [(4, "'x\\ny'"), (5, "f-string")]
    assert f_strings(sample) == ["{}!"]
    assert f_strings('raise ValueError(f"bad {x}")\nlog.info(f"{y}")\n') == []
    assert composed_texts('"""Doc\nmore."""\nkey = "a:" + b\n') == []


@pytest.mark.parametrize(
    "path", sorted((ROOT / "tgbot" / "service").glob("*.py")), ids=lambda p: p.name
)
def test_the_service_puts_no_text_together(path: Path) -> None:
    # Rooms return facts; rendering/ makes every word and joins every line (ui.then,
    # ui.lines): the service only passes along what rendering made.
    source = path.read_text(encoding="utf-8")
    breaks = [(line, what) for line, what in composed_texts(source) if what != "f-string"]
    assert breaks == [], path
    assert {(path.name, f) for f in f_strings(source)} <= NOT_TEXT, path


def test_every_refusal_and_notice_has_a_text() -> None:
    assert set(notices.REFUSALS) == set(Refusal) - {Refusal.NO_RECORD_KEPT}
    assert set(notices.NOTICES) == set(Notice)


# Says every msgid as it is: the source (English) text, to compare a translation with.
SOURCE = Translator("en", gettext.NullTranslations())


@pytest.mark.parametrize("what", [*Refusal, *Notice], ids=lambda w: f"{type(w).__name__}.{w.name}")
def test_each_renders_in_georgian_and_english(what: Refusal | Notice) -> None:
    said = Said(what, days=30)
    msgid = notices.say(SOURCE, said)
    ka = notices.say(CATALOGS.get("ka"), said)
    en = notices.say(CATALOGS.get("en"), said)
    assert ka and en and msgid
    assert ka != msgid, what
    assert any(ord(ch) in GEORGIAN for ch in ka), ka
    assert not any(ord(ch) in GEORGIAN for ch in en), en
    assert "{" not in ka + en


def test_record_days_are_counted_in_words() -> None:
    en = CATALOGS.get("en")
    one = notices.say(en, Said(Refusal.NO_RECORD_KEPT, days=1))
    many = notices.say(en, Said(Refusal.NO_RECORD_KEPT, days=30))
    assert "1 day)" in one and "30 days)" in many


def test_engine_reasons_are_carried_through() -> None:
    named = {
        Reason.MUST_COUP: Refusal.MUST_COUP,
        Reason.CANNOT_AFFORD: Refusal.CANNOT_AFFORD,
        Reason.BAD_TARGET: Refusal.BAD_TARGET,
        Reason.NOT_YOUR_DECISION: Refusal.NOT_YOUR_DECISION,
        Reason.NOT_IN_VARIANT: Refusal.NOT_IN_VARIANT,
        Reason.SAME_ALLEGIANCE: Refusal.SAME_ALLEGIANCE,
        Reason.RESERVE_EMPTY: Refusal.RESERVE_EMPTY,
    }
    for reason in Reason:
        assert engine_refusal(reason) is named.get(reason, Refusal.NOT_ALLOWED_NOW), reason


def test_ai_names_are_said_in_the_groups_language() -> None:
    assert notices.ai_name(CATALOGS.get("en"), -1) == "🤖 Nino"
    assert notices.ai_name(CATALOGS.get("en"), -6) == "🤖 Nino"  # five names for six seats
    assert notices.ai_name(CATALOGS.get("ka"), -2) == "🤖 " + CATALOGS.get("ka").gettext("Levan")
    assert notices.ai_name(CATALOGS.get("ka"), -2) != "🤖 Levan"
