"""Where a variable may be typed: the origins it is bound to and the fields that fit it.

A variable is bound by default to the origin (scheme, host, port) of the page the call
started on; ``Secret(value, domains=[...])`` or the ``secret_domains`` setting binds it to
listed domain patterns instead (``*.example.com`` is example.com and its subdomains;
without a scheme a pattern means ``https://``; without a port, the scheme's default port).

Before a value goes into a field, :func:`refusal` checks what Playwright reports about the
field (never what page script says): the origin of the field's frame, the origin its form
submits to, and whether the field is a plausible target at all (a secret never goes into a
search box; a password only into a password field or one whose name, label or
autocomplete says so; a file path given to ``set_input_files`` never into a text field, only
into an ``<input type=file>`` or the button or label that opens its chooser). A refusal is
a message for the model, naming what was wrong.

A stored step (a cached act, a workflow history flow) is a file, and its fingerprint only says
what the file claims the element was: it is no proof of where a value belongs. Replayed, a
step that types a variable must pass :func:`stored_step_refusal`: the checks above, against
the live page, and the live field itself must name the variable (its name, id, label,
placeholder, autocomplete or type: ``e-mail`` for ``email``, ``Postcode`` for ``zip``...).
A field that does not is left to the model, which sees the page as it is.

Pure functions: no browser, no I/O.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import urljoin, urlsplit

from ._errors import ConfigurationError

_DEFAULT_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443}
_PASSWORD_VARIABLE = re.compile(
    r"password|passwd|passphrase|passcode|(?:^|_)(?:pass|pwd|pw)(?:_|$)", re.IGNORECASE
)
_PASSWORD_FIELD_WORDS = (
    "password",
    "passwd",
    "pwd",
    "passphrase",
    "passcode",
    "passwort",
    "contraseña",
    "contrasena",
    "mot de passe",
    "senha",
    "wachtwoord",
    "parola",
    "пароль",
    "パスワード",
    "密码",
    "密碼",
    "비밀번호",
)
_PASSWORD_AUTOCOMPLETE = {"current-password", "new-password"}
_TEXT_METHODS = {"fill", "type", "press", "select_option"}
_FILE_METHOD = "set_input_files"  # a variable holding a file path, for a file input only
_NON_TEXT_INPUTS = {"file", "button", "submit", "reset", "image"}


@dataclass(frozen=True)
class DomainPattern:
    """One entry of ``Secret(domains=...)`` / ``secret_domains``, parsed."""

    text: str
    scheme: str
    host: str  # lower case; "*.example.com" matches example.com and its subdomains
    port: int

    def matches(self, url: str) -> bool:
        parts = _url_parts(url)
        if parts is None:
            return False
        scheme, host, port = parts
        if scheme != self.scheme or port != self.port:
            return False
        if self.host.startswith("*."):
            base = self.host[2:]
            return host == base or host.endswith("." + base)
        return host == self.host


def _url_parts(url: str) -> tuple[str, str, int] | None:
    """(scheme, host, port) of a URL with a tuple origin; None for opaque ones (about:,
    data:, javascript:). ``blob:`` URLs take the origin of the URL inside them."""
    if url.startswith("blob:"):
        url = url[len("blob:") :]
    try:
        split = urlsplit(url)
        port = split.port
    except ValueError:
        return None
    scheme = split.scheme.lower()
    host = (split.hostname or "").lower()
    if scheme not in _DEFAULT_PORTS or not host:
        return None
    return scheme, host, port if port is not None else _DEFAULT_PORTS[scheme]


# Schemes whose URLs a browser parses with backslashes as slashes (WHATWG URL "special").
_SPECIAL_SCHEMES = {"http", "https", "ws", "wss", "ftp", "file"}
# What a browser's URL parser strips from both ends of a URL: C0 controls and the space.
_URL_EDGE = "".join(chr(code) for code in range(0x21))


def _as_parsed(value: str) -> str:
    """``value`` as a browser's URL parser reads it: ends stripped, tabs and newlines gone."""
    cleaned = value.strip(_URL_EDGE)
    for dropped in "\t\n\r":
        cleaned = cleaned.replace(dropped, "")
    return cleaned


def is_absolute_url(value: str) -> bool:
    """Whether ``value`` names its own scheme, so no base URL takes part in resolving it."""
    try:
        return bool(urlsplit(_as_parsed(value)).scheme)
    except ValueError:
        return True  # resolve_url returns it as it is, with no origin


def resolve_url(base: str, value: str) -> str:
    """``value`` (a form's action, a base href) resolved against ``base`` as a browser does,
    where :func:`urllib.parse.urljoin` alone would name another host: C0 controls and spaces
    are stripped from both ends, tabs and newlines dropped anywhere, and in a URL of a special
    scheme a backslash before the query reads as a slash (``/\\collect.test`` is a host, not
    a path). A value no parser can resolve is returned as it is: it has no origin, so no
    scope allows it."""
    cleaned = _as_parsed(value)
    try:
        scheme = urlsplit(cleaned).scheme or urlsplit(base).scheme
        if scheme.lower() in _SPECIAL_SCHEMES:
            ends = [i for i in (cleaned.find("?"), cleaned.find("#")) if i >= 0]
            cut = min(ends, default=len(cleaned))
            cleaned = cleaned[:cut].replace("\\", "/") + cleaned[cut:]
        return urljoin(base, cleaned)
    except ValueError:  # an unclosed IPv6 bracket, a port out of range
        return value


def origin_of(url: str) -> str | None:
    """``scheme://host:port`` of ``url``; None when the URL has no tuple origin."""
    parts = _url_parts(url)
    if parts is None:
        return None
    scheme, host, port = parts
    return f"{scheme}://{host}:{port}"


def origin_key(url: str) -> str:
    """What "the same origin" compares: the tuple origin, or for a page without one
    (``about:blank`` after ``set_content``, ``data:``) the URL itself without its fragment."""
    return origin_of(url) or url.split("#", 1)[0]


def _is_ip(host: str) -> bool:
    try:
        ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return False
    return True


def parse_pattern(text: str) -> DomainPattern:
    """Parse one domain pattern; :class:`ConfigurationError` when it is malformed or would
    allow too much (``*``, ``*.com``)."""
    if not isinstance(text, str) or not text.strip():
        raise ConfigurationError(f"A secret domain must be a non-empty string, not {text!r}.")
    raw = text.strip()
    with_scheme = raw if "://" in raw else "https://" + raw
    try:
        split = urlsplit(with_scheme)
        port = split.port
    except ValueError as exc:
        raise ConfigurationError(f"Secret domain {text!r} is not valid: {exc}.") from None
    scheme = split.scheme.lower()
    host = (split.hostname or "").lower()
    if scheme not in _DEFAULT_PORTS:
        raise ConfigurationError(
            f"Secret domain {text!r}: only http(s) sites can receive secrets (got {scheme!r})."
        )
    labels = host[2:].split(".") if host.startswith("*.") else host.split(".")
    if not host or "*" in host[1:] or (host.startswith("*") and not host.startswith("*.")):
        raise ConfigurationError(
            f"Secret domain {text!r} is not a host pattern: write 'example.com', "
            "'*.example.com' or 'https://login.example.com:8443'."
        )
    if host.startswith("*.") and len(labels) < 2 and not _is_ip(host[2:]):
        raise ConfigurationError(
            f"Secret domain {text!r} would match every site under a top-level domain; "
            "name the site, e.g. '*.example.com'."
        )
    return DomainPattern(text=raw, scheme=scheme, host=host, port=port or _DEFAULT_PORTS[scheme])


def parse_patterns(patterns: Iterable[str]) -> tuple[DomainPattern, ...]:
    return tuple(parse_pattern(p) for p in patterns)


@dataclass(frozen=True)
class SecretScope:
    """Where one variable may be used: the call's starting origin, or listed patterns."""

    origin: str = ""  # origin_key() of the page the call started on
    patterns: tuple[DomainPattern, ...] | None = None

    @classmethod
    def for_variable(
        cls, start_url: str, domains: Iterable[str] | None, default_domains: Iterable[str] = ()
    ) -> SecretScope:
        listed = tuple(domains) if domains is not None else tuple(default_domains)
        if listed:
            return cls(patterns=parse_patterns(listed))
        return cls(origin=origin_key(start_url))

    def allows(self, url: str) -> bool:
        if self.patterns is not None:
            return any(p.matches(url) for p in self.patterns)
        return bool(self.origin) and origin_key(url) == self.origin

    def describe(self) -> str:
        if self.patterns is not None:
            return ", ".join(p.text for p in self.patterns)
        return self.origin


# Submit buttons with their own target (``formaction``) read per form at most; a form with
# more is refused (a page could hide one that sends elsewhere behind many harmless ones).
MAX_FORM_ACTIONS = 10
UNCHECKED_TARGETS = "unchecked:too-many-formaction-buttons"


@dataclass(frozen=True)
class FieldFacts:
    """What the DOM says about a target element (read by ``_async/browser/secret_guard.py``)."""

    frame_url: str
    tag: str = ""
    type: str = ""
    role: str = ""
    autocomplete: str = ""
    name: str = ""
    id: str = ""
    placeholder: str = ""
    aria_label: str = ""
    labels: tuple[str, ...] = ()
    in_search_form: bool = False
    # Absolute URLs its form submits to (action, and any submit button's formaction).
    form_targets: tuple[str, ...] = ()

    def words(self) -> str:
        parts = [self.name, self.id, self.placeholder, self.aria_label, *self.labels]
        return " ".join(parts).lower()

    def is_file_input(self) -> bool:
        return self.tag == "input" and self.type == "file"

    def takes_text(self) -> bool:
        """A field that holds typed text or a choice (not a file input, not a button)."""
        if self.tag == "input":
            return self.type not in _NON_TEXT_INPUTS
        return self.tag in ("textarea", "select") or self.type == "contenteditable"

    def is_search_box(self) -> bool:
        return self.type == "search" or self.role == "searchbox" or self.in_search_form

    def is_password_field(self) -> bool:
        if self.type == "password":
            return True
        tokens = set(self.autocomplete.lower().split())
        if tokens & _PASSWORD_AUTOCOMPLETE:
            return True
        words = self.words()
        return any(word in words for word in _PASSWORD_FIELD_WORDS)


# Words a field may use for a variable named with the key (besides the name's own words).
_FIELD_SYNONYMS = {
    "email": ("mail", "username", "login"),
    "mail": ("username", "login"),
    "user": ("login", "mail", "account"),
    "login": ("user", "mail"),
    "phone": ("tel", "mobile"),
    "mobile": ("phone", "tel"),
    "zip": ("postcode", "postal"),
    "postcode": ("zip", "postal"),
    "card": ("ccnumber", "ccname"),
}
_NAME_WORD = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])")
_NOT_ALNUM = re.compile(r"[\W_]+")


def _variable_words(variable: str) -> set[str]:
    """``contactEmail`` / ``CONTACT_EMAIL`` -> {"contact", "email", "mail", ...}: the name's
    words of three letters or more, and what fields call the same thing."""
    words = {w.lower() for w in _NAME_WORD.findall(variable) if len(w) >= 3}
    return words.union(*(_FIELD_SYNONYMS.get(w, ()) for w in words))


def field_names_variable(variable: str, facts: FieldFacts) -> bool:
    """Whether the field's own attributes or labels name ``variable`` (case, spaces and
    punctuation ignored: "E-mail address" names ``email``)."""
    said = _NOT_ALNUM.sub("", f"{facts.words()} {facts.autocomplete} {facts.type}".lower())
    return any(word in said for word in _variable_words(variable))


def stored_step_refusal(
    variable: str, method: str, facts: FieldFacts, scope: SecretScope
) -> str | None:
    """:func:`refusal` for a replayed step, which must also find the variable named by the
    live field itself (see the module's docstring)."""
    reason = refusal(variable, method, facts, scope)
    if reason is not None or method not in _TEXT_METHODS or is_password_variable(variable):
        return reason  # a password already goes only into a password field
    if field_names_variable(variable, facts):
        return None
    return (
        f"Refused: a stored step types <|{variable.upper()}|> into a field whose name, label, "
        "placeholder and autocomplete do not name it; a stored step is no proof of where a "
        "value belongs, so the field is chosen on the page as it is now"
    )


def is_password_variable(name: str) -> bool:
    return bool(_PASSWORD_VARIABLE.search(name))


def refusal(variable: str, method: str, facts: FieldFacts, scope: SecretScope) -> str | None:
    """Why variable ``variable`` may not go into this field with ``method`` (a message for
    the model), or None when it may. Every variable is a secret: none ever goes into a
    search box (search terms are written in the instruction, where the model can see them)."""
    held = f"<|{variable.upper()}|>"
    if method not in _TEXT_METHODS and method != _FILE_METHOD:
        return (
            f"{held} can only be an argument of fill, type, press or select_option, or of "
            "set_input_files on a file input"
        )
    if method == _FILE_METHOD and facts.takes_text():
        return (
            f"Refused: set_input_files puts the file {held} only into an <input type=file> "
            "(or a button or label that opens its file chooser), and this is a text field; "
            "choose the file input"
        )
    where = origin_of(facts.frame_url) or facts.frame_url.split(":", 1)[0] + ":"
    if not scope.allows(facts.frame_url):
        return (
            f"Refused: {held} may be used only on {scope.describe()}, and this field is on "
            f"{where}; do not type it on this site"
        )
    if UNCHECKED_TARGETS in facts.form_targets:
        return (
            f"Refused: this field's form has more than {MAX_FORM_ACTIONS} submit buttons with "
            f"their own target (formaction), too many to check where {held} would be sent"
        )
    elsewhere = [url for url in facts.form_targets if not scope.allows(url)]
    if elsewhere:
        target = origin_of(elsewhere[0]) or "a page without an origin"
        return (
            f"Refused: this field's form sends its data to {target}, and {held} may be used "
            f"only on {scope.describe()}"
        )
    if facts.is_search_box():
        return (
            f"Refused: {held} is a secret and this field is a search box. Secrets are never "
            "typed into search fields; find the field the value belongs in"
        )
    if is_password_variable(variable) and not facts.is_password_field():
        return (
            f"Refused: {held} is a password, and this field is not a password field (its "
            "type, autocomplete, name and label do not say password). Choose the password "
            "field"
        )
    return None
