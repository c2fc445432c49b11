"""Where the agent may go: http(s) only, and only to ``allowed_domains`` when they are given.

Patterns are shell-style globs, matched case-insensitively against the URL's host:
``example.com`` (that host, any port), ``*.example.com`` (the domain and its subdomains),
``127.0.0.1:8000`` (host and port), ``https://*.example.com`` (scheme too), ``*`` (anything).
"""

from __future__ import annotations

import fnmatch
from collections.abc import Sequence
from urllib.parse import urlsplit

ALLOWED_SCHEMES = ("http", "https")


def _host_and_port(url: str) -> tuple[str, str, str] | None:
    try:
        parts = urlsplit(url.strip())
        host = (parts.hostname or "").rstrip(".").lower()
        port = str(parts.port) if parts.port is not None else ""
    except ValueError:  # a malformed port or IPv6 literal
        return None
    return parts.scheme.lower(), host, port


def url_problem(url: str) -> str | None:
    """Why ``url`` may not be opened at all (scheme, missing host), or None when it may."""
    found = _host_and_port(url)
    if found is None:
        return f"{url!r} is not a valid URL"
    scheme, host, _ = found
    if scheme not in ALLOWED_SCHEMES:
        shown = f"{scheme}:" if scheme else "no scheme"
        return (
            f"only http and https URLs can be opened ({shown} given); write the full URL, "
            "e.g. https://example.com/page"
        )
    if not host:
        return f"{url!r} has no host"
    return None


def _matches(pattern: str, scheme: str, host: str, port: str) -> bool:
    if "://" in pattern:
        wanted_scheme, _, pattern = pattern.partition("://")
        if not fnmatch.fnmatchcase(scheme, wanted_scheme):
            return False
    pattern = pattern.rstrip("/")
    if ":" in pattern and not pattern.startswith("["):
        pattern, _, wanted_port = pattern.rpartition(":")
        if not fnmatch.fnmatchcase(port, wanted_port):
            return False
    if fnmatch.fnmatchcase(host, pattern):
        return True
    # "*.example.com" also covers example.com itself.
    return pattern.startswith("*.") and host == pattern[2:]


def domain_allowed(url: str, patterns: Sequence[str] | None) -> bool:
    """True when ``patterns`` is None or the URL's host matches one of them."""
    if patterns is None:
        return True
    found = _host_and_port(url)
    if found is None:
        return False
    scheme, host, port = found
    return any(_matches(p.lower(), scheme, host, port) for p in patterns)


def navigation_problem(url: str, patterns: Sequence[str] | None) -> str | None:
    """Why the agent may not navigate to ``url``, or None when it may."""
    problem = url_problem(url)
    if problem is not None:
        return problem
    if not domain_allowed(url, patterns):
        listed = ", ".join(patterns or ())
        return f"{urlsplit(url).hostname} is not in allowed_domains ({listed})"
    return None
