"""Type checking and lint run with the tests, so CI (`python -m pytest`) enforces them."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True, timeout=600
    )


def test_mypy_is_clean(tmp_path: Path) -> None:
    # The settings are pyproject.toml's [tool.mypy] (strict, two documented overrides).
    result = run("mypy", "--cache-dir", str(tmp_path / "mypy-cache"), "tgbot")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Success: no issues found" in result.stdout


def test_ruff_is_clean() -> None:
    result = run("ruff", "check", "--no-cache", ".")
    assert result.returncode == 0, result.stdout + result.stderr
