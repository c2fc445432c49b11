"""Whether a host is this machine: ``localhost`` (and its subdomains), 127.0.0.0/8 or ``::1``."""

from __future__ import annotations

import ipaddress


def is_loopback_name(host: str) -> bool:
    """``host`` as a URL gives it (lower case, no brackets around an IPv6 address)."""
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
