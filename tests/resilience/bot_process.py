"""The bot's webhook app in a process of its own, for tests that kill it (-9) and restart it.

`bot_process run` instead runs the bot the way production does, through tgbot.run.run()
with every setting from the environment (logging set up, webhook registered).

`bot_process PORT --when-told` is a spare: it imports everything, then waits for a line on
its standard input before it starts (a restart after a kill -9 then takes what starting the
bot takes, not what importing Python's packages does).
"""

from __future__ import annotations

import logging
import os
import sys

import uvicorn

from tgbot.config import Config, load_config
from tgbot.run import run, webhook_app


def main() -> None:
    """Serve on the port given as the first argument (or `run`); settings from the environment."""
    os.environ.setdefault("PTB_TIMEDELTA", "1")
    if sys.argv[1] == "run":
        run(load_config())
        return
    if sys.argv[2:] == ["--when-told"] and not sys.stdin.readline():
        return  # the test ended without needing this spare
    # Without this, the test's bot.log (this process's stderr) stays empty.
    logging.basicConfig(
        level=logging.WARNING,
        format="%(asctime)s %(process)d %(levelname)s %(name)s: %(message)s",
    )
    logging.getLogger("tgbot").setLevel(os.environ.get("BOT_LOG_LEVEL", "INFO"))
    config = Config(
        bot_token="123456:TEST-token",
        redis_url=os.environ["REDIS_URL"],
        webhook_secret=os.environ["WEBHOOK_SECRET"],
        api_base_url=os.environ["TELEGRAM_API_URL"],
        key_prefix=os.environ["REDIS_KEY_PREFIX"],
        group_messages_per_minute=int(os.environ.get("GROUP_MESSAGES_PER_MINUTE", "6000")),
        # The test presses faster than any person (a bench may ask for the bot's own limit).
        person_updates_per_10s=int(os.environ.get("PERSON_UPDATES_PER_10S", "100000")),
        messages_per_second=int(os.environ.get("MESSAGES_PER_SECOND", "30")),
        private_messages_per_second=100_000,
        serve=os.environ.get("SERVE", "all"),
    )
    uvicorn.run(
        webhook_app(config, set_webhook=False),
        host="127.0.0.1",
        port=int(sys.argv[1]),
        log_level="warning",
    )


if __name__ == "__main__":
    main()
