"""The secret guard: no variable value ever reaches the cache directory."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import quote, quote_plus

import pytest

from stagehand_py._errors import CacheError
from stagehand_py._variables import Variables
from stagehand_py.cache import ActionCache, CachedAction, CacheEntry, ElementFingerprint
from tests import secret_values

VARIABLES = Variables({"email": secret_values.EMAIL, "password": secret_values.PASSWORD})


def _directory_bytes(directory: Path) -> bytes:
    """Everything under ``directory``: file names and contents, temp files included."""
    if not directory.exists():
        return b""
    parts = []
    for path in sorted(directory.rglob("*")):
        parts.append(path.name.encode())
        if path.is_file():
            parts.append(path.read_bytes())
    return b"\n".join(parts)


def _assert_no_value_on_disk(directory: Path) -> None:
    data = _directory_bytes(directory)
    for value in secret_values.ALL:
        for form in {value, quote(value, safe=""), quote_plus(value), value.lower()}:
            assert form.encode() not in data, "a variable value reached the cache directory"


def _entry(
    cache: ActionCache,
    *,
    instruction: str = "log in with %email% and %password%",
    url: str = "https://a.example/login",
    arguments: tuple[str, ...] = ("<|EMAIL|>",),
    name: str = "Email",
) -> CacheEntry:
    key = cache.key_for(instruction, url, VARIABLES.names)
    action = CachedAction(
        method="fill",
        selectors=["xpath=//*[@id='email']"],
        arguments=list(arguments),
        description="fill the email field",
        fingerprint=ElementFingerprint(tag="input", role="textbox", name=name),
    )
    return CacheEntry.create(key, [action])


def test_placeholders_are_written_and_values_are_not(tmp_path: Path) -> None:
    cache = ActionCache(tmp_path)
    cache.put(_entry(cache), secret_values=VARIABLES.secret_values())
    written = _directory_bytes(tmp_path)
    assert b"<|EMAIL|>" in written and b'"PASSWORD"' in written  # names are stored
    _assert_no_value_on_disk(tmp_path)


@pytest.mark.parametrize(
    ("overrides", "where"),
    [
        ({"arguments": (secret_values.PASSWORD,)}, "action 1 arguments"),  # model typed it
        ({"arguments": (f"user {secret_values.EMAIL}!",)}, "action 1 arguments"),
        ({"instruction": f"log in as {secret_values.EMAIL}"}, "instruction"),
        ({"url": f"https://a.example/?u={quote(secret_values.EMAIL)}"}, "url"),
        ({"url": f"https://a.example/?p={quote_plus(secret_values.PASSWORD)}"}, "url"),
        ({"name": f"Signed in as {secret_values.EMAIL}"}, "action 1 fingerprint.name"),
        # The forms a page gives a value back in (the stores share one scanner).
        ({"name": f"SIGNED IN AS {secret_values.EMAIL.upper()}"}, "action 1 fingerprint.name"),
        ({"name": "Welcome back, Ada.Lovelace"}, "action 1 fingerprint.name"),  # local part
        ({"instruction": "log in as ADA.LOVELACE@analytical.TEST"}, "instruction"),
        ({"arguments": (secret_values.PASSWORD.upper(),)}, "action 1 arguments"),
    ],
)
def test_entry_holding_a_value_is_refused_and_nothing_is_written(
    tmp_path: Path, overrides: dict[str, object], where: str
) -> None:
    cache = ActionCache(tmp_path / "cache")
    entry = _entry(cache, **overrides)  # type: ignore[arg-type]
    with pytest.raises(CacheError) as raised:
        cache.put(entry, secret_values=VARIABLES.secret_values())
    message = str(raised.value)
    assert where in message and "contains the value of a variable" in message
    assert message.startswith("Refusing to cache the act ")
    assert not any(value in message for value in secret_values.ALL)
    _assert_no_value_on_disk(tmp_path)
    assert not (tmp_path / "cache").exists()
    assert cache.stats.writes == 0


def test_a_refused_rewrite_keeps_the_old_entry(tmp_path: Path) -> None:
    cache = ActionCache(tmp_path)
    good = _entry(cache)
    cache.put(good, secret_values=VARIABLES.secret_values())
    leaky = good.with_actions(
        [CachedAction(method="fill", selectors=["#pw"], arguments=[secret_values.PASSWORD])]
    )
    with pytest.raises(CacheError):
        cache.put(leaky, secret_values=VARIABLES.secret_values())
    assert cache.get(good.cache_key) == good
    _assert_no_value_on_disk(tmp_path)


def test_timestamps_and_digest_do_not_trip_the_guard(tmp_path: Path) -> None:
    # A short value can occur by chance in our own generated fields; those hold no secret.
    cache = ActionCache(tmp_path)
    entry = _entry(cache)
    short_values = [entry.key[:2], str(entry.created_at.year)]
    cache.put(entry, secret_values=short_values)
    assert cache.get(entry.cache_key) == entry


def _short_entry(
    cache: ActionCache, *, selector: str, name: str, tag: str = "button"
) -> CacheEntry:
    key = cache.key_for("confirm the order", "https://shop.example/basket", ["QTY"])
    action = CachedAction(
        method="click",
        selectors=[selector],
        description="click the confirm button",
        fingerprint=ElementFingerprint(tag=tag, name=name),
    )
    return CacheEntry.create(key, [action])


@pytest.mark.parametrize(
    ("value", "overrides", "where"),
    [
        ("3", {"name": "Confirm 3 items"}, "action 1 fingerprint.name"),
        ("Al", {"name": "Ship to AL"}, "action 1 fingerprint.name"),  # another letter case
        ("12345", {"selector": "#zip-12345"}, "action 1 selectors[0]"),
        (secret_values.EMAIL, {"name": f"Hi {secret_values.EMAIL.upper()}"}, "fingerprint.name"),
    ],
)
def test_a_value_in_any_case_or_length_is_refused(
    tmp_path: Path, value: str, overrides: dict[str, str], where: str
) -> None:
    cache = ActionCache(tmp_path)
    parts = {"selector": "xpath=/html/body[1]/button[1]", "name": "Confirm", **overrides}
    with pytest.raises(CacheError) as raised:
        cache.put(_short_entry(cache, **parts), secret_values=[value])
    assert where in str(raised.value) and not list(tmp_path.glob("*.json"))


@pytest.mark.parametrize(
    ("value", "selector", "name", "tag"),
    [
        ("3", "xpath=/html/body[1]/button[1]", "Confirm 36 items", "button"),  # inside a number
        ("Al", "xpath=//*[@id='alert']", "Alert all", "button"),  # inside words
        ("a", "#continue", "Continue", "a"),  # the tag is ours, not page text
        ("12345", "xpath=/html/body[1]/button[1]", "Confirm", "button"),
    ],
)
def test_a_short_value_counts_only_as_a_whole_word_of_page_text(
    tmp_path: Path, value: str, selector: str, name: str, tag: str
) -> None:
    cache = ActionCache(tmp_path)
    entry = _short_entry(cache, selector=selector, name=name, tag=tag)
    cache.put(entry, secret_values=[value])
    assert cache.get(entry.cache_key) == entry


def test_a_position_that_reads_as_a_short_value_is_written_as_a_difference() -> None:
    variables = Variables({"qty": "3", "code": "2"})
    kept = variables.without_secrets(
        [
            "xpath=/html/body[1]/main[1]/div[3]/input[2]",
            "xpath=//*[@id='qty-3']",  # quotes page text holding the value: cannot be kept
            "#zip-2",
            "xpath=//*[@id='qty']",
        ]
    )
    assert kept == ["xpath=/html/body[1]/main[1]/div[7-4]/input[6-4]", "xpath=//*[@id='qty']"]
    assert not any(variables.contains_secret(selector) for selector in kept)


def test_a_fingerprint_showing_a_value_is_stored_and_compared_as_its_placeholder() -> None:
    variables = Variables({"name": "Al"})
    live = ElementFingerprint(tag="button", role="button", name="Ship to Al")
    stored = live.redacted(variables.redact)
    assert stored.name == "Ship to <|NAME|>" and stored.has_placeholder
    assert not live.has_placeholder and not stored.matches(live)
    assert stored.matches(live.redacted(variables.redact))
    other = ElementFingerprint(tag="button", role="button", name="Ship to Bo")
    assert not stored.matches(other.redacted(variables.redact))
