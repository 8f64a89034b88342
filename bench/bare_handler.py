"""The baseline for bench/webhook.py: python-telegram-bot answering a callback, nothing more."""

from __future__ import annotations

import json
import os
import sys

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse
from starlette.routing import Route
from telegram import Bot, Update


def build(api_url: str) -> Starlette:
    """A webhook that decodes the update and answers its callback query."""
    bot = Bot("123456:TEST-token", base_url=api_url)

    async def webhook(request: Request) -> PlainTextResponse:
        update = Update.de_json(json.loads(await request.body()), bot)
        if update.callback_query is not None:
            await bot.answer_callback_query(update.callback_query.id)
        return PlainTextResponse("ok")

    async def lifespan(_: Starlette):  # type: ignore[no-untyped-def]
        await bot.initialize()
        yield
        await bot.shutdown()

    return Starlette(routes=[Route("/telegram", webhook, methods=["POST"])], lifespan=lifespan)


if __name__ == "__main__":
    uvicorn.run(
        build(os.environ["TELEGRAM_API_URL"]),
        host="127.0.0.1",
        port=int(sys.argv[1]),
        log_level="warning",
    )
