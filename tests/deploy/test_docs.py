"""The project carries every document its files point to."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SKIP = {".git", ".venv", "build", "dist", ".hypothesis", ".pytest_cache", ".ruff_cache"}
TEXT = {".py", ".md", ".toml", ".yml", ".txt", ".in", ".cfg", ""}
MENTION = re.compile(r"(?<![\w/.-])((?:[\w-]+/)*[\w.-]+\.(?:md|txt))\b")


def _project_files() -> list[Path]:
    return [
        path
        for path in ROOT.rglob("*")
        if path.is_file()
        and not SKIP.intersection(path.relative_to(ROOT).parts)
        and not any(part.endswith(".egg-info") for part in path.parts)
        and path.suffix in TEXT
    ]


def test_every_document_mentioned_is_in_the_project() -> None:
    names = {path.name for path in ROOT.rglob("*.md")} | {p.name for p in ROOT.rglob("*.txt")}
    missing = []
    for path in _project_files():
        text = path.read_text(encoding="utf-8", errors="replace")
        outside = "../" + "shared"  # spelled in two parts, so this file does not match itself
        assert outside not in text, f"{path.relative_to(ROOT)} points outside the project"
        for mention in MENTION.findall(text):
            if Path(mention).name not in names:
                missing.append(f"{path.relative_to(ROOT)}: {mention}")
    assert not missing, missing


def test_the_docs_hold_the_rules_and_the_glossary() -> None:
    rules = (ROOT / "docs" / "RULES.md").read_text(encoding="utf-8")
    glossary = (ROOT / "docs" / "GLOSSARY.md").read_text(encoding="utf-8")
    assert "ჰერცოგი" in glossary and "Duke" in rules
    assert (ROOT / "LICENSE").read_text().startswith("MIT License")


# An absolute path on some machine (not a URL, not a command like /rules, not an API route).
MACHINE_PATH = re.compile(r"(?<![\w.:/<])/(?:work|home|tmp|root|Users|mnt|opt|srv|var)/[\w./-]+")


def test_the_documents_name_no_path_outside_the_project() -> None:
    """A document points only at files the repository holds: the review status once named
    four files that existed on one machine only (issue 41, 6)."""
    found = [
        f"{path.relative_to(ROOT)}: {match}"
        for path in ROOT.rglob("*.md")
        if not SKIP.intersection(path.relative_to(ROOT).parts)
        for match in MACHINE_PATH.findall(path.read_text(encoding="utf-8"))
    ]
    assert not found, found
