"""docs/GLOSSARY.md keeps the Georgian as the reviews left it: its terms are the catalogue's,
its rejected wordings are in no Georgian text, and no code upper-cases rendered text."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import polib
import pytest

from tgbot.config import DEFAULT_LOCALES

ROOT = Path(__file__).resolve().parents[2]
GLOSSARY = (ROOT / "docs" / "GLOSSARY.md").read_text(encoding="utf-8")
PO = DEFAULT_LOCALES / "ka" / "LC_MESSAGES" / "messages.po"


def section(title: str) -> str:
    """The text of one `## title` section of the glossary."""
    start = GLOSSARY.index(f"## {title}")
    end = GLOSSARY.find("\n## ", start + 1)
    return GLOSSARY[start : end if end != -1 else None]


def table_rows(text: str) -> list[list[str]]:
    """The body rows of the markdown table in `text`, as lists of cells."""
    rows = []
    for line in text.splitlines():
        if line.startswith("|") and not line.startswith("|---"):
            rows.append([cell.strip() for cell in line.strip().strip("|").split("|")])
    return rows[1:]  # without the header


def georgian_msgstrs() -> list[str]:
    """Every Georgian translation (both plural forms)."""
    out: list[str] = []
    for entry in polib.pofile(str(PO)):
        out += list(entry.msgstr_plural.values()) if entry.msgid_plural else [entry.msgstr]
    return out


VARIANT_TERMS = [
    term
    for row in table_rows(section("Terms of the variants"))
    for term in [row[1], *(form.strip() for form in row[2].split(",") if form.strip())]
]
REJECTED = [row[0] for row in table_rows(section("Rejected wordings"))]


def test_the_glossary_tables_are_read() -> None:
    """The parsing above finds the rows (it cannot pass on an empty table)."""
    assert len(VARIANT_TERMS) > 30 and "ყულაბა" in VARIANT_TERMS and "დაკითხვა" in VARIANT_TERMS
    assert len(REJECTED) >= 29 and "დაბლოკვა ძალაშია" in REJECTED


@pytest.mark.parametrize("term", VARIANT_TERMS)
def test_every_variant_term_and_form_is_in_the_catalogue(term: str) -> None:
    assert any(term in s for s in georgian_msgstrs()), term


@pytest.mark.parametrize("phrase", REJECTED)
def test_no_rejected_wording_in_the_catalogue(phrase: str) -> None:
    hits = [s for s in georgian_msgstrs() if phrase in s]
    assert not hits, hits


def test_the_reserve_is_never_the_treasury() -> None:
    """Every text of the Reserve says ყულაბა; the treasury's words never stand for it."""
    po = polib.pofile(str(PO))
    reserve = [e for e in po if re.search(r"\bReserve\b", e.msgid)]
    assert len(reserve) > 10
    for entry in reserve:
        forms = list(entry.msgstr_plural.values()) if entry.msgid_plural else [entry.msgstr]
        for text in forms:
            assert "ყულაბ" in text, (entry.msgid, text)
            if "Treasury" not in entry.msgid and "treasury" not in entry.msgid:
                assert "განძ" not in text and "საგანძურ" not in text, (entry.msgid, text)


def test_translating_points_at_the_glossary() -> None:
    text = (ROOT / "TRANSLATING.md").read_text(encoding="utf-8")
    assert "docs/GLOSSARY.md" in text and "Rejected wordings" in text


# ---- no Mtavruli ------------------------------------------------------------------------

CASE_CHANGES = {"upper", "title", "capitalize", "swapcase"}
# Calls that never touch a rendered text: (file, the call's source).
NOT_RENDERED = {("tgbot/config.py", 'env.get("LOG_LEVEL", defaults.log_level).upper()')}


def case_changes_in(path: Path, root: Path = ROOT) -> list[tuple[str, str]]:
    """Every `.upper()` / `.title()` / ... call in one source file (path relative to root)."""
    source = path.read_text(encoding="utf-8")
    found = []
    for node in ast.walk(ast.parse(source)):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in CASE_CHANGES
        ):
            found.append((str(path.relative_to(root)), ast.get_source_segment(source, node) or ""))
    return found


def test_no_code_upper_cases_a_text() -> None:
    """str.upper() turns Georgian (Mkhedruli) into Mtavruli, which many phones cannot show."""
    calls = [c for p in sorted((ROOT / "tgbot").rglob("*.py")) for c in case_changes_in(p)]
    assert set(calls) <= NOT_RENDERED, set(calls) - NOT_RENDERED
    assert calls, "the scan found not even the known call: it is not searching"


def test_the_scan_finds_an_upper_call(tmp_path: Path) -> None:
    probe = tmp_path / "probe.py"
    probe.write_text(
        'def f(t, name):\n    return t.gettext("x").upper() + name.title()\n', encoding="utf-8"
    )
    assert case_changes_in(probe, tmp_path) == [
        ("probe.py", 't.gettext("x").upper()'),
        ("probe.py", "name.title()"),
    ]
    assert "ნინო".upper() != "ნინო"  # the reason: Python does turn it into Mtavruli
