"""The site a URL belongs to: its registrable domain, worked out offline.

The public suffix list is not fetched (no network, no dependency). The rule, in order:

1. IP addresses, ``localhost`` and single-label hosts are their own site (no port: a local
   server on another port is the same site).
2. A host under a known shared suffix is cut one label below that suffix: the listed
   multi-part country suffixes (``co.uk``, ``co.jp``, ``com.au``...) and hosting suffixes where
   each customer has their own site (``github.io``, ``herokuapp.com``...).
3. A host whose last two labels are a generic second-level label (``co``, ``com``, ``net``,
   ``org``, ``gov``, ``edu``, ``ac``, ``or``, ``ne``, ``go``, ``gob``, ``mil``) followed by a
   two-letter country code is treated the same way (``www.shop.com.mx`` -> ``shop.com.mx``).
4. Otherwise the last two labels (``www.shop.example`` -> ``shop.example``).

Hosts are lower-cased and internationalised names kept as written (punycode stays punycode).
"""

from __future__ import annotations

import ipaddress
import re
from urllib.parse import urlsplit

_GENERIC_SECOND_LEVEL = frozenset(
    {"co", "com", "net", "org", "gov", "edu", "ac", "or", "ne", "go", "gob", "mil"}
)
KNOWN_SUFFIXES = frozenset(
    {
        # country suffixes whose second level is not generic
        "ltd.uk", "plc.uk", "me.uk", "sch.uk", "nhs.uk", "police.uk",
        "ad.jp", "ed.jp", "gr.jp", "lg.jp",
        "asn.au", "id.au",
        "govt.nz", "school.nz", "geek.nz", "gen.nz", "kiwi.nz", "maori.nz",
        "gen.in", "firm.in", "ind.in",
        "in.th",
        "idv.tw", "idv.hk",
        # hosting suffixes: every customer is a site of its own
        "github.io", "gitlab.io", "herokuapp.com", "blogspot.com", "appspot.com",
        "vercel.app", "netlify.app", "pages.dev", "workers.dev", "web.app", "firebaseapp.com",
        "azurewebsites.net", "cloudfront.net", "s3.amazonaws.com", "fly.dev", "onrender.com",
    }
)  # fmt: skip
_UNSAFE = re.compile(r"[^a-z0-9.\-]")
_OPAQUE = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.\-]*:(?!//)")
_HOST_PORT = re.compile(r"^[^:/]+:\d+(/|$)")


def host_of(url: str) -> str:
    """The lower-cased host of ``url`` (or of a bare host name), without port or final dot."""
    text = url.strip()
    if _OPAQUE.match(text) and not _HOST_PORT.match(text):
        return ""  # about:blank, data:..., mailto:... have no host
    if "//" not in text:
        text = "//" + text  # a bare host ("www.shop.example") as a person types it
    try:
        host = urlsplit(text).hostname or ""
    except ValueError:  # a malformed port or IPv6 literal
        host = ""
    return host.rstrip(".").lower()


def _is_ip(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


def registrable_domain(url: str) -> str:
    """The site of ``url`` by the rule in this module's docstring; ``""`` when it has no host
    (``about:blank``, ``data:`` and ``file:`` URLs)."""
    host = host_of(url)
    if not host or _is_ip(host) or "." not in host:
        return host
    labels = host.split(".")
    if len(labels) <= 2:
        return host
    last_two = ".".join(labels[-2:])
    last_three = ".".join(labels[-3:])
    if last_three in KNOWN_SUFFIXES:  # e.g. s3.amazonaws.com
        return ".".join(labels[-4:])
    shared = last_two in KNOWN_SUFFIXES or (
        labels[-2] in _GENERIC_SECOND_LEVEL and len(labels[-1]) == 2 and labels[-1].isalpha()
    )
    return last_three if shared else last_two


def file_name_for(domain: str) -> str:
    """A safe file name for ``domain``'s history (IPv6 colons and the like become ``_``)."""
    return (_UNSAFE.sub("_", domain.lower()) or "_no_host") + ".json"
