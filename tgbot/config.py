"""Configuration from environment variables (and an optional .env file)."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from .contract.settings import TIMING_SETTINGS, Timing
from .rendering.i18n import default_locales_dir

DEFAULT_LOCALES = default_locales_dir()
DEFAULT_PERSON_UPDATES_PER_10S = 30
DEFAULT_RECORD_DAYS = 30  # RECORD_DAYS: how long a finished game's record is kept
DAY_S = 24 * 3600
HIGHEST_PORT = 65535
# A webhook secret is guessed by trying it (a wrong one costs a 403): 32 characters at least.
MIN_SECRET_CHARS = 32
MAX_SECRET_CHARS = 256  # Telegram's limit
SERVE_ALL, SERVE_WEBHOOK, SERVE_APP = "all", "webhook", "app"
APP_PATH = "/app"  # where the webhook app serves the Mini App's page (tgbot/webapp/page.py)
# BotFather's short name of a Mini App: 3-30 letters, digits and underscores.
SHORT_NAME = re.compile(r"[A-Za-z0-9_]{3,30}")


class ConfigError(Exception):
    """A missing or invalid setting; the message names the variable."""


# The timing of new games (seconds per decision kind, the lobby's wait, the AFK limit):
# its defaults and variables are the settings table's (`contract/settings.py`).
Deadlines = Timing


def _check_redis_url(url: str) -> None:
    """REDIS_URL: one URL, or a Redis Cluster's seed nodes separated by commas, which
    share the first one's scheme, login, database and options (redis-py gives every node
    of a cluster the same connection settings)."""
    nodes = [part.strip() for part in url.split(",")]
    if len(nodes) == 1:
        if not url.startswith(("redis://", "rediss://", "unix://")):
            raise ConfigError("REDIS_URL must start with redis://, rediss:// or unix://")
        return
    for node in nodes:
        if not node.startswith(("redis://", "rediss://")):
            raise ConfigError(
                "REDIS_URL: with several nodes (a Redis Cluster's, separated by commas) "
                f"each must start with redis:// or rediss://, got {_hide_login(node)!r}"
            )
        try:
            parts = urlsplit(node)
            parts.port  # noqa: B018  # raises on a port that is not a number
        except ValueError:
            raise ConfigError(f"REDIS_URL: {_hide_login(node)!r} is not a valid URL") from None
        if not parts.hostname:
            raise ConfigError(f"REDIS_URL: {_hide_login(node)!r} names no host")
    first = urlsplit(nodes[0])
    for node in nodes[1:]:
        parts = urlsplit(node)
        same = (parts.scheme, parts.username, parts.password, parts.path, parts.query)
        if same != (first.scheme, first.username, first.password, first.path, first.query):
            raise ConfigError(
                f"REDIS_URL: {_hide_login(node)!r} differs from the first node in its scheme, "
                "login, database or options; the nodes of one cluster share them"
            )


def _hide_login(node: str) -> str:
    parts = urlsplit(node)
    if parts.password is None:
        return node
    return node.replace(f":{parts.password}@", ":***@", 1)


@dataclass(frozen=True, slots=True)
class Config:
    """Everything the bot needs to run."""

    bot_token: str
    redis_url: str | None = None
    webhook_url: str | None = None
    webhook_secret: str | None = None
    webhook_path: str = "/telegram"
    listen_host: str = "0.0.0.0"
    listen_port: int = 8080
    log_level: str = "INFO"
    api_base_url: str = "https://api.telegram.org/bot"
    data_dir: Path = Path(".data")
    locales_dir: Path = DEFAULT_LOCALES
    key_prefix: str = "coup"
    # Shards of the deadline and pending-delivery sets (REDIS_BUCKETS): each process polls
    # every bucket, and no bucket's key takes more than about 1/buckets of that traffic.
    # Every process of a bot must use the same number.
    redis_buckets: int = 8
    deadlines: Deadlines = field(default_factory=Deadlines)
    group_messages_per_minute: int = 20  # Telegram's limit; tests raise it to save time
    messages_per_second: int = 30  # Telegram's overall limit (paid broadcasts allow 1000)
    private_messages_per_second: int = 1  # about Telegram's pace per private chat; tests raise it
    ai_pause_ms: tuple[int, int] = (1500, 3500)  # how long an AI player "thinks"
    # How long an edit of the lobby's list of players waits for a newer one to replace it
    # (joins come in bursts). The turn message has no such edit any more (issue 38).
    answer_edit_hold_ms: int = 1200
    # Updates one person may send in 10 s; more are answered briefly and dropped. Tests
    # that press at machine speed raise it.
    person_updates_per_10s: int = DEFAULT_PERSON_UPDATES_PER_10S
    startup_wait_s: int = 10  # how long a start keeps trying to reach Redis and Telegram
    # The port of /metrics (0: none), apart from the public PORT in both modes.
    metrics_port: int = 0
    record_days: int = DEFAULT_RECORD_DAYS  # how long a finished game's record is kept
    # How old a Mini App's signed initData may be (WEBAPP_AUTH_MAX_AGE, seconds).
    webapp_auth_max_age_s: int = 86400
    # The Mini App's opening (issue 29): BotFather's short name (`/newapp`), for the group's
    # direct link t.me/<bot>/<short name>, and the public https address of the page
    # (`GET /app`). Neither set: no Mini App button anywhere (`mini_app_url`).
    webapp_short_name: str | None = None
    webapp_url: str | None = None
    # The Mini App's event streams: how many one person may hold in one process (a new one
    # ends their oldest), how many one process serves (more: 503), and how long one lasts
    # (the page reconnects). A stream also ends when its initData expires.
    webapp_streams_per_person: int = 3
    webapp_streams_per_process: int = 500
    webapp_stream_lifetime_s: int = 600
    # Asked in the page first (APP_FIRST_SECONDS): a player whose page has its event stream
    # open gets a new decision there, and its private prompt only this long after it was
    # queued if they have not decided by then (at once when the page closes); 0: never held.
    app_first_s: int = 5
    # Webhook mode: connections and requests served at once (uvicorn's limit_concurrency;
    # more are answered 503), above the streams so that updates still get through.
    max_connections: int = 1000
    header_timeout_s: float = 10.0  # a connection's request headers must be in by then
    # What this process's listener serves (SERVE): "all" (Telegram's updates and the Mini
    # App), "webhook" (updates only) or "app" (the Mini App only: no webhook is registered).
    # Split, a burst of page connections never shares the event loop the updates need.
    serve: str = SERVE_ALL

    @property
    def listens(self) -> bool:
        """Whether this process serves HTTP on PORT (else it polls for updates)."""
        return bool(self.webhook_url) or self.serve == SERVE_APP

    @property
    def serves_updates(self) -> bool:
        """Whether this process takes Telegram's updates (by webhook or polling)."""
        return self.serve != SERVE_APP

    @property
    def serves_app(self) -> bool:
        """Whether this process's listener serves the Mini App's page and API."""
        return self.serve != SERVE_WEBHOOK

    @property
    def mini_app_url(self) -> str | None:
        """The page's public address for the buttons: WEBAPP_URL, else (with a short name
        set) WEBHOOK_URL's origin + /app; None: the Mini App is not offered."""
        if self.webapp_url:
            return self.webapp_url
        if self.webapp_short_name and self.webhook_url:
            return webhook_origin(self.webhook_url) + APP_PATH
        return None

    @property
    def record_ttl_s(self) -> int:
        """How long a finished game's record is kept, in seconds."""
        return self.record_days * DAY_S

    def __repr__(self) -> str:
        redis = "set" if self.redis_url else None  # the token and secrets never get printed
        return f"Config(webhook_url={self.webhook_url!r}, redis_url={redis})"


def webhook_origin(url: str) -> str:
    """The scheme and host (and port) of a URL: https://bot.example.com."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def _mini_app(env: dict[str, str], webhook_url: str | None) -> tuple[str | None, str | None]:
    """WEBAPP_SHORT_NAME and WEBAPP_URL, checked: the page must be https, and a short name
    needs an address (WEBAPP_URL, or WEBHOOK_URL's origin)."""
    short_name = env.get("WEBAPP_SHORT_NAME", "").strip() or None
    url = env.get("WEBAPP_URL", "").strip() or None
    if short_name and not SHORT_NAME.fullmatch(short_name):
        raise ConfigError(
            "WEBAPP_SHORT_NAME must be the Mini App's short name from @BotFather's /newapp "
            f"(3-30 letters, digits or _), got {short_name!r}"
        )
    if url and not url.startswith("https://"):
        raise ConfigError("WEBAPP_URL must start with https:// (Telegram opens only https pages)")
    if short_name and not url and not webhook_url:
        raise ConfigError(
            "WEBAPP_SHORT_NAME needs the page's address: set WEBAPP_URL (or WEBHOOK_URL, "
            "whose origin + /app is the default)"
        )
    return short_name, url


def read_dotenv(path: Path) -> dict[str, str]:
    """Read KEY=VALUE lines from a .env file (no interpolation)."""
    values: dict[str, str] = {}
    if not path.is_file():
        return values
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if not line or line.startswith("#") or "=" not in line:
            continue
        key, _, value = line.partition("=")
        values[key.strip()] = value.strip().strip("'\"")
    return values


def _int(env: dict[str, str], name: str, default: int, low: int, high: int) -> int:
    raw = env.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ConfigError(f"{name} must be a whole number, got {raw!r}") from None
    if not low <= value <= high:
        raise ConfigError(f"{name} must be between {low} and {high}, got {value}")
    return value


def load_config(environ: dict[str, str] | None = None, dotenv: Path | None = None) -> Config:
    """Build the configuration; raise ConfigError naming the first bad variable."""
    env = read_dotenv(dotenv or Path(".env"))
    env.update(os.environ if environ is None else environ)
    token = env.get("BOT_TOKEN", "").strip()
    if not token:
        raise ConfigError("BOT_TOKEN is not set: get a token from @BotFather and set BOT_TOKEN")
    if ":" not in token:
        raise ConfigError("BOT_TOKEN does not look like a bot token (expected 123456:ABC...)")
    webhook_url = env.get("WEBHOOK_URL") or None
    if webhook_url and not webhook_url.startswith("https://"):
        raise ConfigError("WEBHOOK_URL must start with https://")
    secret = env.get("WEBHOOK_SECRET") or None
    if webhook_url and not secret:
        raise ConfigError("WEBHOOK_SECRET must be set when WEBHOOK_URL is set")
    if secret and (
        not all(c.isascii() and (c.isalnum() or c in "_-") for c in secret)
        or not MIN_SECRET_CHARS <= len(secret) <= MAX_SECRET_CHARS
    ):
        raise ConfigError(
            f"WEBHOOK_SECRET must be {MIN_SECRET_CHARS}-{MAX_SECRET_CHARS} characters of "
            "A-Z, a-z, 0-9, _ and - (make one with: openssl rand -hex 32)"
        )
    # Each default is written once, in the settings classes above.
    times, defaults = Deadlines(), Config(bot_token=token)
    level = env.get("LOG_LEVEL", defaults.log_level).upper()
    if level not in ("DEBUG", "INFO", "WARNING", "ERROR"):
        raise ConfigError(f"LOG_LEVEL must be DEBUG, INFO, WARNING or ERROR, got {level!r}")
    redis_url = env.get("REDIS_URL") or None
    if redis_url:
        _check_redis_url(redis_url)
    webapp_short_name, webapp_url = _mini_app(env, webhook_url)
    serve = env.get("SERVE", defaults.serve).strip().lower() or defaults.serve
    if serve not in (SERVE_ALL, SERVE_WEBHOOK, SERVE_APP):
        raise ConfigError(f"SERVE must be all, webhook or app, got {serve!r}")
    if serve == SERVE_WEBHOOK and not webhook_url:
        raise ConfigError("SERVE=webhook needs WEBHOOK_URL (polling serves no listener)")
    deadlines = Deadlines(
        **{
            s.key: _int(env, s.env, getattr(times, s.key), s.lowest, s.highest)
            for s in TIMING_SETTINGS
        }
    )
    return Config(
        bot_token=token,
        redis_url=redis_url,
        webhook_url=webhook_url,
        webhook_secret=secret,
        webhook_path=env.get("WEBHOOK_PATH", defaults.webhook_path),
        listen_host=env.get("LISTEN_HOST", defaults.listen_host),
        listen_port=_int(env, "PORT", defaults.listen_port, 1, HIGHEST_PORT),
        log_level=level,
        api_base_url=env.get("TELEGRAM_API_URL", defaults.api_base_url),
        data_dir=Path(env.get("DATA_DIR", str(defaults.data_dir))),
        locales_dir=Path(env.get("LOCALES_DIR", str(DEFAULT_LOCALES))),
        key_prefix=env.get("REDIS_KEY_PREFIX", defaults.key_prefix),
        redis_buckets=_int(env, "REDIS_BUCKETS", defaults.redis_buckets, 1, 1024),
        deadlines=deadlines,
        messages_per_second=_int(env, "MESSAGES_PER_SECOND", defaults.messages_per_second, 1, 1000),
        startup_wait_s=_int(env, "STARTUP_WAIT_SECONDS", defaults.startup_wait_s, 0, 600),
        metrics_port=_int(env, "METRICS_PORT", defaults.metrics_port, 0, HIGHEST_PORT),
        record_days=_int(env, "RECORD_DAYS", defaults.record_days, 1, 3650),
        webapp_auth_max_age_s=_int(
            env, "WEBAPP_AUTH_MAX_AGE", defaults.webapp_auth_max_age_s, 60, 30 * 86400
        ),
        webapp_short_name=webapp_short_name,
        webapp_url=webapp_url,
        app_first_s=_int(env, "APP_FIRST_SECONDS", defaults.app_first_s, 0, 60),
        serve=serve,
    )
