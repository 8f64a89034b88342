"""The Mini App's page: `GET /app` and its assets, with a strict Content-Security-Policy.

The three files in `static/` are read once, at the first request, and kept with their
gzip form and a content hash: the page names each asset with its hash (`?v=`), so an asset
is cached for a year (`immutable`) and a new release is a new address; the page itself is
revalidated by its ETag on every open. Nothing here knows a game: the page asks the API.
"""

from __future__ import annotations

import gzip
import hashlib
from dataclasses import dataclass
from functools import cache
from importlib import resources

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

PAGE_PATH = "/app"
STATIC_PATH = "/app/static"
# Only Telegram's own script comes from outside; no inline script or style anywhere.
CSP = "; ".join(
    [
        "default-src 'self'",
        "script-src 'self' https://telegram.org",
        "style-src 'self'",
        "img-src 'self' data:",
        "connect-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'none'",
        # Telegram Web shows a Mini App in an iframe of its own origin; the phone apps in a
        # web view, which frame-ancestors does not concern.
        "frame-ancestors 'self' https://telegram.org https://*.telegram.org",
    ]
)
SECURITY_HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}
TYPES = {
    "app.js": "text/javascript; charset=utf-8",
    "app.css": "text/css; charset=utf-8",
}
YEAR_S = 365 * 24 * 3600


@dataclass(frozen=True)
class Asset:
    """One file as served: its bytes, their gzip, its type and its ETag."""

    body: bytes
    gzipped: bytes
    media_type: str
    etag: str

    @classmethod
    def of(cls, body: bytes, media_type: str) -> Asset:
        """An asset from its bytes (gzip at the highest level: it is made once)."""
        digest = hashlib.sha256(body).hexdigest()[:16]
        return cls(body, gzip.compress(body, 9, mtime=0), media_type, f'"{digest}"')

    @property
    def version(self) -> str:
        """The hash the page puts in the asset's address."""
        return self.etag.strip('"')


def _read(name: str) -> bytes:
    return resources.files(__package__).joinpath("static", name).read_bytes()


@cache
def assets() -> dict[str, Asset]:
    """The page and its assets, read from the package once."""
    found = {name: Asset.of(_read(name), kind) for name, kind in TYPES.items()}
    page = _read("index.html").decode()
    for name, asset in found.items():
        # The page names its assets relative to /app, so a WEBAPP_URL under a path
        # prefix (behind a proxy) finds them too.
        page = page.replace(f'"static/{name}"', f'"app/static/{name}?v={asset.version}"')
    found["index.html"] = Asset.of(page.encode(), "text/html; charset=utf-8")
    return found


def _serve(request: Request, asset: Asset, cache_control: str) -> Response:
    headers = {
        **SECURITY_HEADERS,
        "ETag": asset.etag,
        "Cache-Control": cache_control,
        "Vary": "Accept-Encoding",
    }
    if asset.etag in request.headers.get("if-none-match", ""):
        return Response(status_code=304, headers=headers)
    body = asset.body
    if "gzip" in request.headers.get("accept-encoding", ""):
        body, headers["Content-Encoding"] = asset.gzipped, "gzip"
    if request.method == "HEAD":
        headers["Content-Length"] = str(len(body))
        body = b""
    return Response(body, media_type=asset.media_type, headers=headers)


async def page(request: Request) -> Response:
    """The Mini App's page (revalidated on each open, so a release shows at once)."""
    return _serve(request, assets()["index.html"], "no-cache")


async def static(request: Request) -> Response:
    """A script or style of the page: for a year when asked by its current hash."""
    name = request.path_params["name"]
    asset = assets().get(name) if name in TYPES else None
    if asset is None:
        return Response("not found", status_code=404, headers=SECURITY_HEADERS)
    current = request.query_params.get("v") == asset.version
    return _serve(request, asset, f"public, max-age={YEAR_S}, immutable" if current else "no-cache")


async def slash(_: Request) -> Response:
    """`/app/` is `/app`: the page's relative addresses are made for the latter."""
    return RedirectResponse("../app", status_code=308)


def page_routes() -> list[Route]:
    """The routes of the page and its assets, for the webhook app."""
    return [
        Route(PAGE_PATH, page, methods=["GET", "HEAD"]),
        Route(PAGE_PATH + "/", slash, methods=["GET", "HEAD"]),
        Route(STATIC_PATH + "/{name}", static, methods=["GET", "HEAD"]),
    ]
