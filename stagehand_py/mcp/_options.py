"""What ``pystagehand mcp`` was started with: the model, the browser, the cache, the bounds."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal
from urllib.parse import urlsplit

from .._errors import ConfigurationError
from .._spans import page_origin

View = Literal["dom", "aria"]
CacheMode = Literal["read-write", "read-only", "require"]

# Characters one snapshot answer holds at most: a section is cut there, never the page sent.
DEFAULT_MAX_CHARS = 12_000


@dataclass(frozen=True)
class McpOptions:
    """The server's options; the command line builds one, a test may build its own."""

    model: str | None = None
    base_url: str | None = None
    cache_dir: str | None = None
    cache_mode: CacheMode | None = None
    view: View = "aria"
    max_cost_usd: float | None = None
    allowed_origins: tuple[str, ...] = ()
    cdp_url: str | None = None
    headed: bool = False
    channel: str | None = None  # an installed browser (chrome, msedge) instead of Chromium
    storage_state: str | None = None  # a saved login (Playwright's context.storage_state)
    viewport: tuple[int, int] = (1280, 720)
    timeout_s: float = 60.0
    max_chars: int = DEFAULT_MAX_CHARS
    screenshot_dir: str | None = None
    variables: Mapping[str, object] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        if not self.timeout_s > 0:
            raise ConfigurationError(f"--timeout must be above 0 seconds, got {self.timeout_s}.")
        if self.max_chars < 500:
            raise ConfigurationError(f"--max-chars must be at least 500, got {self.max_chars}.")
        for origin in self.allowed_origins:
            if page_origin(origin) != origin.rstrip("/").lower():
                raise ConfigurationError(
                    f"--allowed-origins: {origin!r} is not an origin. Give scheme://host[:port],"
                    " for example https://shop.example or http://127.0.0.1:8000."
                )

    def allows(self, url: str) -> bool:
        """Whether navigation may go to ``url`` (any http(s) URL when no origin is listed)."""
        if urlsplit(url).scheme not in ("http", "https"):
            return not self.allowed_origins and url == "about:blank"
        if not self.allowed_origins:
            return True
        wanted = {o.rstrip("/").lower() for o in self.allowed_origins}
        return page_origin(url) in wanted
