"""Where a variable may be typed: origins, domain patterns and plausible fields (pure rules)."""

from __future__ import annotations

import pytest

from stagehand_py import ConfigurationError, Secret, Settings
from stagehand_py._secret_scope import (
    FieldFacts,
    SecretScope,
    is_absolute_url,
    is_password_variable,
    origin_of,
    parse_pattern,
    refusal,
    resolve_url,
    stored_step_refusal,
)
from stagehand_py._variables import Variables

START = "https://shop.example.com/login?next=/cart"
SAME = SecretScope.for_variable(START, None)


def _field(url: str = "https://shop.example.com/account", **facts: object) -> FieldFacts:
    return FieldFacts(frame_url=url, **facts)  # type: ignore[arg-type]


def test_origins_compare_scheme_host_and_port() -> None:
    assert origin_of("https://Shop.Example.com/x?y#z") == "https://shop.example.com:443"
    assert origin_of("http://127.0.0.1:8000/a") == "http://127.0.0.1:8000"
    assert origin_of("blob:https://example.com/uuid") == "https://example.com:443"
    assert origin_of("about:blank") is None and origin_of("data:text/html,x") is None
    assert SAME.allows("https://shop.example.com:443/other")
    assert not SAME.allows("http://shop.example.com/")  # another scheme
    assert not SAME.allows("https://shop.example.com:8443/")  # another port
    assert not SAME.allows("https://shop.example.com.evil.test/")  # a look-alike
    assert not SAME.allows("https://login.example.com/")  # a sibling needs listing


def test_a_page_without_origin_binds_to_itself_only() -> None:
    blank = SecretScope.for_variable("about:blank", None)
    assert blank.allows("about:blank")
    assert not blank.allows("https://example.com/")


@pytest.mark.parametrize(
    ("pattern", "url", "allowed"),
    [
        ("*.example.com", "https://example.com/", True),
        ("*.example.com", "https://login.example.com/", True),
        ("*.example.com", "https://a.b.example.com/x", True),
        ("*.example.com", "https://example.com.evil.test/", False),
        ("*.example.com", "https://notexample.com/", False),
        ("*.example.com", "http://login.example.com/", False),  # no scheme means https
        ("example.com", "https://login.example.com/", False),
        ("http://127.0.0.1:8123", "http://127.0.0.1:8123/form.html", True),
        ("http://127.0.0.1:8123", "http://127.0.0.1:9999/form.html", False),
        ("https://login.example.org/path/ignored", "https://login.example.org/other", True),
    ],
)
def test_domain_patterns(pattern: str, url: str, allowed: bool) -> None:
    scope = SecretScope.for_variable(START, [pattern])
    assert scope.allows(url) is allowed


@pytest.mark.parametrize("bad", ["*", "*.com", "ftp://example.com", "exa*mple.com", "", "*foo.com"])
def test_patterns_that_are_malformed_or_too_wide_are_refused(bad: str) -> None:
    with pytest.raises(ConfigurationError):
        parse_pattern(bad)
    with pytest.raises(ConfigurationError):
        Secret("x", domains=[bad])
    with pytest.raises(ConfigurationError):
        Settings(secret_domains=(bad,))


def test_secret_domains_must_be_a_list_not_a_string() -> None:
    with pytest.raises(ConfigurationError, match="list of domain patterns"):
        Secret("x", domains="example.com")  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError, match="list of domain patterns"):
        Settings.checked({"secret_domains": "example.com"})


def test_listed_domains_replace_the_starting_origin() -> None:
    variables = Variables(
        {"password": Secret("pw-123456", domains=["*.example.org"]), "email": "a@b.example"}
    ).bound_to(START, ["*.example.com"])
    password, email = variables.scope("password"), variables.scope("email")
    assert password is not None and email is not None
    assert password.allows("https://login.example.org/") and not password.allows(START)
    assert email.allows("https://login.example.com/") and not email.allows("https://x.example.org/")
    assert Variables({"email": "a@b.example"}).scope("email") is None  # not bound to a call


def test_a_field_on_another_origin_is_refused() -> None:
    reason = refusal(
        "password", "fill", _field("http://127.0.0.1:5001/login", type="password"), SAME
    )
    assert reason is not None and "may be used only on https://shop.example.com:443" in reason
    assert "http://127.0.0.1:5001" in reason


def test_a_form_that_submits_elsewhere_is_refused() -> None:
    facts = _field(type="email", form_targets=("https://collect.evil.test/steal",))
    reason = refusal("email", "fill", facts, SAME)
    assert reason is not None and "sends its data to https://collect.evil.test:443" in reason
    assert refusal("email", "fill", _field(type="email", form_targets=(START,)), SAME) is None


@pytest.mark.parametrize(
    "facts",
    [
        _field(type="search"),
        _field(role="searchbox"),
        _field(type="text", in_search_form=True),
    ],
)
def test_no_variable_ever_goes_into_a_search_box(facts: FieldFacts) -> None:
    for name in ("password", "email", "card_number", "query"):
        reason = refusal(name, "type", facts, SAME)
        assert reason is not None and "search box" in reason


@pytest.mark.parametrize(
    ("facts", "allowed"),
    [
        (_field(type="password"), True),
        (_field(type="text", autocomplete="current-password"), True),
        (_field(type="text", name="user_pwd"), True),
        (_field(type="text", labels=("Mot de passe",)), True),
        (_field(type="text", aria_label="Passwort"), True),
        (_field(type="email", name="email"), False),
        (_field(type="text", name="comment", labels=("Your message",)), False),
        (_field(tag="textarea"), False),
    ],
)
def test_a_password_goes_only_into_a_password_field(facts: FieldFacts, allowed: bool) -> None:
    assert (refusal("password", "fill", facts, SAME) is None) is allowed
    assert refusal("email", "fill", facts, SAME) is None  # other secrets: any text field


def test_which_variable_names_are_passwords() -> None:
    assert all(map(is_password_variable, ["password", "new_password", "PWD", "user_pass"]))
    assert not any(map(is_password_variable, ["passport_number", "email", "compass", "pin"]))


def test_secrets_are_arguments_of_typing_methods_only() -> None:
    reason = refusal("email", "click", _field(type="email"), SAME)
    assert reason is not None and "fill, type, press or select_option" in reason
    assert "set_input_files on a file input" in reason


@pytest.mark.parametrize(
    "facts",
    [
        _field(tag="input", type="file", name="cv", form_targets=(START,)),
        # What opens a hidden file input's chooser: a styled button, the input's label.
        _field(tag="button", type="button"),
        _field(tag="label", labels=()),
    ],
)
def test_a_file_path_goes_into_a_file_input_on_the_allowed_origin(facts: FieldFacts) -> None:
    assert refusal("document", "set_input_files", facts, SAME) is None


@pytest.mark.parametrize(
    "facts",
    [
        _field(tag="input", type="text", name="cv"),
        _field(tag="input", type=""),  # an input without a type is a text field
        _field(tag="input", type="email"),
        _field(tag="textarea"),
        _field(tag="select"),
        _field(tag="div", type="contenteditable"),
    ],
)
def test_set_input_files_is_refused_into_a_text_field(facts: FieldFacts) -> None:
    reason = refusal("document", "set_input_files", facts, SAME)
    assert reason is not None and "only into an <input type=file>" in reason


def test_a_file_input_keeps_the_origin_and_form_target_checks() -> None:
    elsewhere = _field("http://127.0.0.1:5001/upload", tag="input", type="file")
    reason = refusal("document", "set_input_files", elsewhere, SAME)
    assert reason is not None and "may be used only on https://shop.example.com:443" in reason
    leaking = _field(tag="input", type="file", form_targets=("https://collect.evil.test/upload",))
    reason = refusal("document", "set_input_files", leaking, SAME)
    assert reason is not None and "sends its data to https://collect.evil.test:443" in reason


@pytest.mark.parametrize(
    ("variable", "facts"),
    [
        ("email", _field(type="email")),
        ("email", _field(type="text", labels=("E-mail address",))),
        ("contactEmail", _field(type="text", name="login")),
        ("ZIP", _field(type="text", placeholder="Post code / Postal code")),
        ("phone_number", _field(type="text", autocomplete="tel")),
        ("password", _field(type="password")),  # the password rule already placed it
        ("document", _field(tag="input", type="file", name="cv")),  # a file: its own rule
    ],
)
def test_a_stored_step_types_a_variable_into_a_field_that_names_it(
    variable: str, facts: FieldFacts
) -> None:
    method = "set_input_files" if facts.type == "file" else "fill"
    assert stored_step_refusal(variable, method, facts, SAME) is None


@pytest.mark.parametrize(
    "facts",
    [
        _field(tag="textarea", name="comment", labels=("Comment (shown to everyone)",)),
        _field(type="text", name="comment", labels=("Your message",)),
        _field(tag="div", type="contenteditable", aria_label="Write a reply"),
    ],
)
def test_a_stored_step_is_no_proof_a_field_that_does_not_name_the_variable_is_refused(
    facts: FieldFacts,
) -> None:
    assert refusal("email", "fill", facts, SAME) is None  # a model chose it: allowed live
    reason = stored_step_refusal("email", "fill", facts, SAME)
    assert reason is not None and "<|EMAIL|>" in reason and "no proof" in reason
    elsewhere = _field("https://evil.test/", type="email")  # the live checks come first
    reason = stored_step_refusal("email", "fill", elsewhere, SAME)
    assert reason is not None and "do not type it on this site" in reason


@pytest.mark.parametrize(
    ("base", "value", "resolved"),
    [
        # A backslash reads as a slash in http(s) URLs: these name another host.
        ("https://bank.test/login", "/\\collect.test/x", "https://collect.test/x"),
        ("https://bank.test/login", "\\\\collect.test/x", "https://collect.test/x"),
        ("http://bank.test/a/", "https:\\\\collect.test\\x", "https://collect.test/x"),
        # Tabs and newlines are dropped anywhere; controls and spaces stripped at the ends.
        ("https://bank.test/login", "/\t/collect.test/x", "https://collect.test/x"),
        ("https://bank.test/login", "\x01 //collect.test/x \n", "https://collect.test/x"),
        # Paths stay on the base's origin; a backslash after the query is the query's own.
        ("https://bank.test/a/b", "c\\d?next=\\e", "https://bank.test/a/c/d?next=\\e"),
        ("https://bank.test/a/b", "   ", "https://bank.test/a/b"),
        # Not a special scheme: a backslash is just a character there.
        ("about:blank", "/\\collect.test", "/\\collect.test"),
        # A URL no parser resolves is kept as it is: it has no origin.
        ("https://bank.test/", "https://[::1/x", "https://[::1/x"),
    ],
)
def test_a_form_target_resolves_as_a_browser_resolves_it(
    base: str, value: str, resolved: str
) -> None:
    assert resolve_url(base, value) == resolved


def test_a_target_is_absolute_when_it_names_a_scheme_however_it_is_spaced() -> None:
    assert is_absolute_url(" https://collect.test/x")
    assert is_absolute_url("ht\ttps://collect.test/x")
    assert is_absolute_url("javascript:void(0)")
    assert not is_absolute_url("/login") and not is_absolute_url("login?next=a")
