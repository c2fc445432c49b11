"""Cache keys: what makes two act() calls "the same" for the action cache.

A key is built from four parts, each normalised so that harmless differences do not cause
a miss:

- the instruction, with runs of whitespace collapsed to one space;
- the page URL: scheme and host lower-cased, default ports and credentials dropped, path
  kept, query parameters sorted by name, fragment dropped. By default (``url_mode="auto"``) a
  loopback origin (127.0.0.0/8, ::1, localhost) is then reduced to its path and query: a test
  server's random port must not make every run a miss. ``"path"`` does that on every origin,
  ``"full"`` on none. Then an optional user hook (``normalize_url``) runs on the result, e.g.
  to drop session ids;
- the variable *names*, upper-cased and sorted (never their values);
- :data:`CACHE_FORMAT_VERSION`, so a format change never reads old files as new ones.

The key's :attr:`~CacheKey.digest` (sha256, hex) is the entry's file name.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Literal, get_args
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from .._errors import CacheError
from .._loopback import is_loopback_name

CACHE_FORMAT_VERSION = 1
"""Bumped whenever the on-disk format or the key recipe changes."""

UrlNormalizer = Callable[[str], str]
"""A user hook: takes our normalised URL, returns the URL to key on."""

EntryKind = Literal["act", "observe", "check", "extract", "agent", "workflow"]
"""What an entry replays: an act()'s steps, an observe()'s found elements, a check()'s
compiled assertions, an extract()'s compiled reads, an agent() run's element actions, or a
workflow()'s checklist with each item's element actions."""

UrlMode = Literal["auto", "full", "path"]
"""Which part of a page URL keys an entry (see the module docstring)."""
URL_MODES: tuple[str, ...] = get_args(UrlMode)

_DEFAULT_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443, "ftp": 21}
_DIGEST = re.compile(r"^[0-9a-f]{64}$")


def normalize_instruction(instruction: str) -> str:
    """Collapse every run of whitespace to one space and strip the ends."""
    return " ".join(instruction.split())


def is_loopback_host(host: str) -> bool:
    """True for ``localhost`` (and its subdomains), 127.0.0.0/8 and ``::1``."""
    return is_loopback_name(host.strip("[]").lower().rstrip("."))


def normalize_url(url: str, hook: UrlNormalizer | None = None, *, mode: UrlMode = "auto") -> str:
    """Normalise ``url`` for keying, then apply ``hook`` (if any) to the result.

    >>> normalize_url("HTTPS://Shop.Example:443/Cart?b=2&a=1#top")
    'https://shop.example/Cart?a=1&b=2'
    >>> normalize_url("http://127.0.0.1:53117/cart?b=2&a=1", mode="auto")
    '/cart?a=1&b=2'
    """
    return _normalize_then_hook(url, hook, mode)


def _normalize_then_hook(url: str, hook: UrlNormalizer | None, mode: UrlMode = "full") -> str:
    if mode not in URL_MODES:
        raise CacheError(f"Unknown cache URL mode {mode!r}: use one of {', '.join(URL_MODES)}.")
    normalised = _normalize_url(url.strip())
    if mode != "full":
        normalised = _origin_dropped(normalised, loopback_only=mode == "auto")
    if hook is None:
        return normalised
    try:
        hooked = hook(normalised)
    except Exception as exc:
        raise CacheError(
            f"The cache's normalize_url hook raised {type(exc).__name__} for {normalised!r}: "
            f"{exc}. Fix the hook so it accepts every URL the page can have."
        ) from exc
    if not isinstance(hooked, str):
        raise CacheError(
            f"The cache's normalize_url hook returned {type(hooked).__name__}, not str, "
            f"for {normalised!r}. It must return the URL to key on."
        )
    return hooked


def _normalize_url(url: str) -> str:
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        # Not a URL we understand (e.g. a bad port): key on it as written, minus fragment.
        return url.split("#", 1)[0]
    scheme = parts.scheme.lower()
    if not parts.netloc:
        # about:blank, data:, file:///path ... keep everything but the fragment.
        return urlunsplit((scheme, "", parts.path, _sorted_query(parts.query), ""))
    host = (parts.hostname or "").lower()
    if ":" in host:  # IPv6 literal
        host = f"[{host}]"
    # Credentials (user:password@) are dropped: they identify nobody's page and are secrets.
    netloc = host if port is None or _DEFAULT_PORTS.get(scheme) == port else f"{host}:{port}"
    path = parts.path or "/"
    return urlunsplit((scheme, netloc, path, _sorted_query(parts.query), ""))


def _origin_dropped(normalised: str, *, loopback_only: bool) -> str:
    """``/path?query`` of a normalised URL with an origin (loopback ones only, if asked)."""
    parts = urlsplit(normalised)
    if not parts.netloc or (loopback_only and not is_loopback_host(parts.hostname or "")):
        return normalised
    return urlunsplit(("", "", parts.path or "/", parts.query, ""))


def _sorted_query(query: str) -> str:
    if not query:
        return ""
    pairs = parse_qsl(query, keep_blank_values=True)
    # Stable sort by name only: repeated names keep their relative order (a=1&a=2 != a=2&a=1).
    pairs.sort(key=lambda pair: pair[0])
    return urlencode(pairs)


def normalize_variable_names(names: Iterable[str]) -> tuple[str, ...]:
    """Upper-cased, de-duplicated, sorted (variable names are case-insensitive)."""
    return tuple(sorted({name.strip().upper() for name in names}))


def is_digest(text: str) -> bool:
    """True if ``text`` looks like a :attr:`CacheKey.digest` (64 lower-case hex digits)."""
    return bool(_DIGEST.match(text))


@dataclass(frozen=True)
class CacheKey:
    """The normalised parts of an act() call, and their digest.

    Build keys with :meth:`create` (or ``ActionCache.key_for``), which normalises the parts;
    the constructor takes them as they are.
    """

    instruction: str
    url: str
    variable_names: tuple[str, ...] = ()
    version: int = CACHE_FORMAT_VERSION
    kind: EntryKind = "act"

    @classmethod
    def create(
        cls,
        instruction: str,
        url: str,
        variable_names: Iterable[str] = (),
        *,
        normalize_url: UrlNormalizer | None = None,
        url_mode: UrlMode = "auto",
        kind: EntryKind = "act",
    ) -> CacheKey:
        """Normalise the parts (see the module docstring) and build the key."""
        return cls(
            instruction=normalize_instruction(instruction),
            url=_normalize_then_hook(url, normalize_url, url_mode),
            variable_names=normalize_variable_names(variable_names),
            kind=kind,
        )

    @property
    def digest(self) -> str:
        """sha256 hex digest of the parts: stable across runs, machines and Python versions."""
        parts: list[object] = [self.version, self.instruction, self.url, list(self.variable_names)]
        if self.kind != "act":  # act keys keep the recipe they always had
            parts.insert(1, self.kind)
        canonical = json.dumps(
            parts,
            ensure_ascii=True,
            separators=(",", ":"),
        )
        return hashlib.sha256(canonical.encode("ascii")).hexdigest()

    @property
    def short(self) -> str:
        """The first 12 hex digits of the digest, for display."""
        return self.digest[:12]
