"""A button press's answer: sent in the webhook's HTTP response, or by a call when polling."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from telegram import Bot


@dataclass(frozen=True, slots=True)
class CallbackAnswer:
    """What answerCallbackQuery should say for one press (an empty answer stops the spinner)."""

    query_id: str
    text: str | None = None
    show_alert: bool = False
    url: str | None = None

    def webhook_reply(self) -> dict[str, Any]:
        """The JSON body that makes Telegram run answerCallbackQuery for us (no extra request)."""
        body: dict[str, Any] = {"method": "answerCallbackQuery", "callback_query_id": self.query_id}
        if self.text:
            body["text"] = self.text
        if self.show_alert:
            body["show_alert"] = True
        if self.url:
            body["url"] = self.url
        return body

    async def send(self, bot: Bot) -> None:
        """Answer with a Bot API call (polling mode has no HTTP response to carry it)."""
        await bot.answer_callback_query(
            self.query_id, text=self.text or None, show_alert=self.show_alert, url=self.url
        )
