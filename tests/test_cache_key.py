"""Cache keys: URL and instruction normalisation, the user hook, names-not-values."""

from __future__ import annotations

import pytest

from stagehand_py._errors import CacheError
from stagehand_py._variables import Variables
from stagehand_py.cache import ActionCache, CacheKey
from stagehand_py.cache._key import CACHE_FORMAT_VERSION, normalize_url


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("HTTPS://Shop.Example/Cart", "https://shop.example/Cart"),  # path case kept
        ("https://shop.example:443/a", "https://shop.example/a"),  # default port dropped
        ("http://shop.example:8080/a", "http://shop.example:8080/a"),
        ("https://shop.example/a?b=2&a=1&c=", "https://shop.example/a?a=1&b=2&c="),
        ("https://shop.example/a?x=2&x=1", "https://shop.example/a?x=2&x=1"),  # repeats keep order
        ("https://shop.example/a#section-3", "https://shop.example/a"),
        ("https://user:pw@shop.example/", "https://shop.example/"),  # credentials never keyed
        ("https://shop.example", "https://shop.example/"),
        ("about:blank", "about:blank"),
        ("file:///tmp/page.html#x", "file:///tmp/page.html"),
    ],
)
def test_normalize_url(url: str, expected: str) -> None:
    assert normalize_url(url) == expected


def test_equivalent_urls_share_a_key_and_different_pages_do_not() -> None:
    a = CacheKey.create("click  login", "HTTPS://Shop.Example/login?b=2&a=1#top")
    b = CacheKey.create(" click login\n", "https://shop.example:443/login?a=1&b=2")
    other_path = CacheKey.create("click login", "https://shop.example/Login?a=1&b=2")
    other_query = CacheKey.create("click login", "https://shop.example/login?a=1&b=3")
    assert a.digest == b.digest
    assert len({a.digest, other_path.digest, other_query.digest}) == 3


def test_url_hook_runs_after_builtin_normalisation() -> None:
    seen: list[str] = []

    def drop_session(url: str) -> str:
        seen.append(url)
        return url.replace("/s/123/", "/s/_/").replace("/s/456/", "/s/_/")

    cache = ActionCache("unused", url_normalizer=drop_session)
    first = cache.key_for("open cart", "HTTPS://Shop.Example/s/123/cart#x")
    second = cache.key_for("open cart", "https://shop.example/s/456/cart")
    assert first.digest == second.digest
    assert first.url == "https://shop.example/s/_/cart"
    assert seen[0] == "https://shop.example/s/123/cart"  # the hook sees the normalised URL
    without_hook = ActionCache("unused").key_for("open cart", "https://shop.example/s/456/cart")
    assert without_hook.digest != first.digest


def test_a_failing_hook_is_a_cache_error_naming_the_hook() -> None:
    def broken(url: str) -> str:
        raise KeyError("session")

    with pytest.raises(CacheError, match="normalize_url hook raised KeyError"):
        CacheKey.create("x", "https://a.example/", normalize_url=broken)
    with pytest.raises(CacheError, match="returned NoneType"):
        CacheKey.create("x", "https://a.example/", normalize_url=lambda u: None)  # type: ignore[arg-type,return-value]


def test_key_holds_variable_names_never_values() -> None:
    first = Variables({"email": "ada@example.test", "password": "one-secret"})
    second = Variables({"Password": "another-secret", "EMAIL": "grace@example.test"})
    key_one = CacheKey.create("log in", "https://a.example/", first.names)
    key_two = CacheKey.create("log in", "https://a.example/", second.names)
    assert key_one.digest == key_two.digest
    assert key_one.variable_names == ("EMAIL", "PASSWORD")
    assert "secret" not in repr(key_one) and "example.test" not in repr(key_one)
    fewer = CacheKey.create("log in", "https://a.example/", ["email"])
    assert fewer.digest != key_one.digest  # a different set of variables is a different act


def test_format_version_is_part_of_the_key() -> None:
    key = CacheKey.create("log in", "https://a.example/")
    older = CacheKey(key.instruction, key.url, key.variable_names, version=CACHE_FORMAT_VERSION - 1)
    assert key.version == CACHE_FORMAT_VERSION
    assert older.digest != key.digest
    assert len(key.digest) == 64 and key.short == key.digest[:12]


@pytest.mark.parametrize(
    "origin",
    [
        "http://127.0.0.1:53117",
        "http://127.8.9.10:8000",
        "http://localhost:4000",
        "https://app.localhost:9443",
        "http://[::1]:8080",
    ],
)
def test_a_loopback_origin_is_keyed_by_path_and_query(origin: str) -> None:
    # A test server's port changes every run: it must not make every run a miss.
    run_one = CacheKey.create("add the mug", f"{origin}/shop.html?b=2&a=1#cart")
    run_two = CacheKey.create("add the mug", "http://127.0.0.1:40001/shop.html?a=1&b=2")
    assert run_one.url == "/shop.html?a=1&b=2"
    assert run_one.digest == run_two.digest
    other_page = CacheKey.create("add the mug", f"{origin}/cart.html?a=1&b=2")
    assert other_page.digest != run_one.digest


def test_other_origins_keep_the_full_url_unless_path_mode_is_chosen() -> None:
    one = CacheKey.create("add the mug", "https://shop.example/cart")
    two = CacheKey.create("add the mug", "https://staging.shop.example/cart")
    assert one.url == "https://shop.example/cart" and one.digest != two.digest
    assert CacheKey.create("x", "http://10.0.0.5:8000/a").url == "http://10.0.0.5:8000/a"
    path_one = CacheKey.create("add the mug", "https://shop.example/cart", url_mode="path")
    path_two = CacheKey.create("add the mug", "https://staging.shop.example/cart", url_mode="path")
    assert path_one.url == "/cart" and path_one.digest == path_two.digest
    full = CacheKey.create("x", "http://127.0.0.1:53117/a", url_mode="full")
    assert full.url == "http://127.0.0.1:53117/a"
    # URLs without an origin are keyed as they are in every mode.
    assert CacheKey.create("x", "about:blank", url_mode="path").url == "about:blank"
    with pytest.raises(CacheError, match="Unknown cache URL mode 'origin'"):
        CacheKey.create("x", "https://a.example/", url_mode="origin")  # type: ignore[arg-type]


def test_the_user_hook_sees_the_loopback_path() -> None:
    cache = ActionCache("unused", url_normalizer=lambda url: url.split("?")[0])
    key = cache.key_for("open item", "http://127.0.0.1:5555/item.html?id=7")
    assert key.url == "/item.html"
    assert key.digest == cache.key_for("open item", "http://localhost:1/item.html?id=8").digest


def test_act_keys_keep_their_recipe_and_observe_keys_differ() -> None:
    act = CacheKey.create("the search box", "https://a.example/")
    observe = CacheKey.create("the search box", "https://a.example/", kind="observe")
    assert observe.digest != act.digest
    assert act.digest == CacheKey("the search box", "https://a.example/", ()).digest
