"""A group's settings, typed: one reading of the stored hash, with the configured defaults."""

from __future__ import annotations

from tests.telegram_sim.harness import TgUser, running_bot
from tgbot.config import Deadlines
from tgbot.contract.settings import SETTINGS, TIMING_SETTINGS, ChatSettings, Timing
from tgbot.engine import Variant
from tgbot.rendering.settings_screens import SETTING_LABELS
from tgbot.rendering.ui import seconds_text

from .play import GROUP


def test_an_empty_hash_is_the_defaults() -> None:
    settings = ChatSettings.from_stored({})
    assert settings == ChatSettings()
    assert (settings.language, settings.answers, settings.variant) == ("ka", "table", Variant.BASE)
    assert (settings.turn, settings.afk_limit) == (Deadlines().turn, Deadlines().afk_limit)
    configured = ChatSettings.from_stored({}, Deadlines(turn=60, lobby=300))
    assert (configured.turn, configured.lobby, configured.response) == (60, 300, 30)


def test_what_was_stored_wins_and_what_cannot_be_read_counts_as_unset() -> None:
    stored = {"lang": "en", "turn": "180", "answers": "private", "variant": Variant.BASE.value}
    settings = ChatSettings.from_stored(stored, Deadlines(turn=60))
    assert (settings.language, settings.turn, settings.answers) == ("en", 180, "private")
    unreadable = {"lang": "fr", "turn": "soon", "answers": "x", "variant": "no such variant"}
    settings = ChatSettings.from_stored(unreadable, Deadlines(turn=60))
    assert settings == ChatSettings(turn=60)


def test_the_settings_table_is_the_one_source() -> None:
    """Every row of the table has its words, a field of ChatSettings, and a valid default;
    the timing a game keeps is the table's timing rows, in order."""
    keys = [s.key for s in SETTINGS]
    assert list(SETTING_LABELS) == keys
    assert [f for f in ChatSettings.__dataclass_fields__ if f != "language"] == keys[1:]
    assert list(Timing.__dataclass_fields__) == [s.key for s in TIMING_SETTINGS]
    assert all(s.default in s.choices for s in SETTINGS)
    assert ChatSettings().timing() == Timing() == Deadlines()


def test_each_setting_reads_back_as_it_is_stored() -> None:
    stored = {
        "lang": "en",
        "turn": "300",
        "response": "15",
        "lose_card": "20",
        "exchange": "120",
        "lobby": "60",
        "afk_limit": "3",
        "answers": "private",
        "variant": next(v for v in Variant if v is not Variant.BASE).value,
    }
    settings = ChatSettings.from_stored(stored)
    assert {key: settings.stored_value(key) for key in stored} == stored


async def test_settings_show_the_configured_defaults_and_survive_an_unreadable_value(
    redis_server_url: str,
) -> None:
    async with running_bot(redis_server_url, deadlines=Deadlines(turn=60)) as h:
        admin = TgUser(6100, "Admin")
        h.sim.admins.add((GROUP, admin.id))
        await h.store.prefs.set_chat_settings(GROUP, response="later")
        await h.say(admin, GROUP, "/settings")
        screen, t = h.sim.last(GROUP), h.catalogs.get("ka")
        turn = h.tr("▶️ Turn: {value}").format(value=seconds_text(t, 60))
        assert screen.button("▶️")["text"] == turn
        responses = screen.button("⏳")
        assert responses["text"] == h.tr("⏳ Responses: {value}").format(value=seconds_text(t, 30))
        # A press moves the unreadable value on from the default, like any other.
        await h.press(admin, GROUP, screen.message_id, responses["callback_data"])
        assert (await h.store.prefs.chat_settings(GROUP))["response"] == "60"
