"""The Mini App's edge: its API (api.py), checked by Telegram's signature (auth.py), and its
page (page.py)."""

from __future__ import annotations

from starlette.routing import BaseRoute

from ..config import Config
from .api import api_routes
from .page import page_routes


def routes(config: Config) -> list[BaseRoute]:
    """Every route the Mini App adds to the webhook app; they call the service that the
    app's lifespan puts in its state (`api.service_of`)."""
    return [*api_routes(config), *page_routes()]
