"""A plain (non-editable) install carries the catalogues: the wheel speaks Georgian."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GEORGIAN = range(0x10A0, 0x1100)


def _run(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "LOCALES_DIR")}
    return subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=240)


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv, outside the checkout, with only the built wheel installed."""
    folder = tmp_path_factory.mktemp("wheel")
    built = _run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(folder / "dist"),
            str(ROOT),
        ],
        folder,
    )
    assert built.returncode == 0, built.stderr[-3000:]
    venv = folder / "venv"
    assert _run([sys.executable, "-m", "venv", "--without-pip", str(venv)], folder).returncode == 0
    wheel = next((folder / "dist").glob("coup_bot-*.whl"))
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
    assert "tgbot/locales/ka/LC_MESSAGES/messages.mo" in names
    assert "tgbot/locales/en/LC_MESSAGES/messages.mo" in names
    for asset in ("index.html", "app.js", "app.css"):  # the Mini App's page, in the package
        assert f"tgbot/webapp/static/{asset}" in names
    done = _run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(venv / "bin" / "python"),
            "install",
            "-q",
            "--no-deps",
            "--no-index",
            str(wheel),
        ],
        folder,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return venv / "bin" / "python"


def test_the_installed_wheel_reads_georgian_from_its_own_catalogues(installed: Path) -> None:
    cwd = installed.parent.parent.parent  # outside the checkout: no locales/ to find
    where = _run(
        [str(installed), "-c", "from tgbot.config import DEFAULT_LOCALES; print(DEFAULT_LOCALES)"],
        cwd,
    )
    assert where.returncode == 0, where.stderr
    assert "site-packages" in where.stdout and str(ROOT) not in where.stdout
    log = _run([str(installed), "-m", "tgbot", "simulate", "--games", "1", "--log"], cwd)
    assert log.returncode == 0, log.stderr
    first_line = log.stdout.splitlines()[0]
    assert any(ord(c) in GEORGIAN for c in first_line), first_line
    english = _run(
        [str(installed), "-m", "tgbot", "simulate", "--games", "1", "--log", "--lang", "en"], cwd
    )
    assert not any(ord(c) in GEORGIAN for c in english.stdout), english.stdout[:300]


def test_the_installed_wheel_carries_the_mini_app_page(installed: Path) -> None:
    cwd = installed.parent.parent.parent  # outside the checkout
    script = (
        "from importlib import resources; "
        "d = resources.files('tgbot') / 'webapp' / 'static'; "
        "print(d); print((d / 'index.html').read_text().count('static/app.'))"
    )
    read = _run([str(installed), "-c", script], cwd)
    assert read.returncode == 0, read.stderr
    where, names = read.stdout.split()
    assert "site-packages" in where and str(ROOT) not in where
    assert names == "2"  # the page names its script and its style
