"""`coup-bot simulate --variant ...`: every variant, both spellings of the combined one."""

from __future__ import annotations

import pytest

from tgbot.cli import main


@pytest.mark.parametrize(
    ("spelling", "name"),
    [
        ("base", None),
        ("inquisitor", "inquisitor"),
        ("reformation", "reformation"),
        ("reformation+inquisitor", "reformation_inquisitor"),
        ("reformation_inquisitor", "reformation_inquisitor"),
    ],
)
def test_simulate_takes_every_variant(
    spelling: str, name: str | None, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["simulate", "--games", "5", "--variant", spelling, "--log", "--lang", "en"]) == 0
    out = capsys.readouterr().out
    assert "games: 5" in out
    assert (f"variant: {name}" in out) == (name is not None)
    if name is not None and name.startswith("reformation"):
        assert "Loyalists:" in out


def test_simulate_refuses_an_unknown_variant(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["simulate", "--variant", "chaos"])
    assert "unknown variant" in capsys.readouterr().err
