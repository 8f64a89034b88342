"""Our JSON-safe keyboards as python-telegram-bot markup."""

from __future__ import annotations

from typing import Any

from telegram import InlineKeyboardButton, InlineKeyboardMarkup


def markup(keyboard: list[list[dict[str, Any]]] | None) -> InlineKeyboardMarkup | None:
    """Inline keyboard markup for a keyboard, or None for no keyboard."""
    if not keyboard:
        return None
    return InlineKeyboardMarkup(
        [
            [
                InlineKeyboardButton(b["text"], url=b["url"])
                if "url" in b
                else InlineKeyboardButton(b["text"], callback_data=b["data"])
                for b in row
            ]
            for row in keyboard
        ]
    )
