"""Our JSON-safe keyboards as python-telegram-bot markup."""

from __future__ import annotations

from typing import Any

from telegram import InlineKeyboardButton, InlineKeyboardMarkup, WebAppInfo


def button(b: dict[str, Any]) -> InlineKeyboardButton:
    """One button: {"text", "data"} a callback, {"text", "url"} a link, {"text", "web_app"}
    the Mini App at that address (private chats only: Telegram refuses it in groups); with
    its `style` (Bot API 9.4: "danger", "success", "primary") when it has one, which apps
    that know no styles show plain."""
    style = b.get("style") or None
    if "url" in b:
        return InlineKeyboardButton(b["text"], url=b["url"], style=style)
    if "web_app" in b:
        return InlineKeyboardButton(b["text"], web_app=WebAppInfo(b["web_app"]), style=style)
    return InlineKeyboardButton(b["text"], callback_data=b["data"], style=style)


def markup(keyboard: list[list[dict[str, Any]]] | None) -> InlineKeyboardMarkup | None:
    """Inline keyboard markup for a keyboard, or None for no keyboard."""
    if not keyboard:
        return None
    return InlineKeyboardMarkup([[button(b) for b in row] for row in keyboard])
