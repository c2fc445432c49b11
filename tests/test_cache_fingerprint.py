"""Element fingerprints from serialized elements, and when two count as the same element."""

from __future__ import annotations

import pytest

from stagehand_py import Element
from stagehand_py.cache import ElementFingerprint
from stagehand_py.cache._fingerprint import fingerprint_from_element

fp = ElementFingerprint.from_element_fields


def test_from_serializer_element_keeps_identity_and_drops_values() -> None:
    element = Element(
        index=3,
        tag="INPUT",
        text="ada@example.test",  # what the serializer saw typed in
        attributes={"id": "email", "type": "email", "value": "ada@example.test", "class": "x"},
        selectors=["xpath=/html/body/input[1]"],
    )
    found = fingerprint_from_element(element)
    assert found == ElementFingerprint(
        tag="input", role="textbox", name="", attributes={"id": "email", "type": "email"}
    )
    assert "ada@example.test" not in found.model_dump_json()


@pytest.mark.parametrize(
    ("tag", "attributes", "text", "role", "name"),
    [
        ("button", {}, "  Sign\n in ", "button", "Sign in"),
        ("a", {"href": "/cart"}, "Cart", "link", "Cart"),
        ("a", {}, "Not a link", "", "Not a link"),
        ("input", {"type": "checkbox", "aria-label": "Agree"}, "", "checkbox", "Agree"),
        ("input", {"placeholder": "Search"}, "", "textbox", "Search"),
        ("div", {"role": "tab button"}, "Prices", "tab", "Prices"),
        ("img", {"alt": "Logo"}, "", "img", "Logo"),
        ("select", {"id": "size"}, "S M L", "combobox", ""),
        ("div", {"contenteditable": "true"}, "typed by the user", "", ""),
    ],
)
def test_role_and_name(
    tag: str, attributes: dict[str, str], text: str, role: str, name: str
) -> None:
    found = fp(tag, attributes, text)
    assert (found.role, found.name) == (role, name)


def test_long_and_capped_names_are_cut_between_words() -> None:
    words = " ".join(f"word{n}" for n in range(40))  # ~270 characters
    full = fp("button", {}, words)
    assert len(full.name) <= 100 and words.startswith(full.name + " ")
    capped = fp("button", {}, words[:57] + "…")  # the serializer cut inside a word
    assert words.startswith(capped.name + " ") and not capped.name.endswith("…")
    assert full.matches(capped) and capped.matches(full)


def test_same_element_after_small_changes_matches() -> None:
    stored = fp("button", {"id": "submit", "type": "submit"}, "Sign up")
    assert stored.matches(fp("button", {"id": "submit", "type": "submit"}, "Sign up now"))
    assert stored.matches(fp("button", {"id": "submit"}, "Create account"))  # id decides
    plain = fp("a", {"href": "/login"}, "Sign in")
    assert plain.matches(fp("a", {"href": "/login?next=/"}, "sign in!"))
    label = fp("input", {"aria-label": "E-mail address"})
    assert label.matches(fp("input", {"aria-label": "e-mail  Address"}))


def test_framework_generated_ids_do_not_decide() -> None:
    # React, Ember and friends renumber ids on every render: the element is still the same.
    for old, new in [(":r3:", ":r7:"), ("ember123", "ember456"), ("mui-4711", "mui-4812")]:
        stored = fp("input", {"id": old, "type": "text", "placeholder": "Email"})
        assert stored.matches(fp("input", {"id": new, "type": "text", "placeholder": "Email"}))
        assert not stored.matches(fp("input", {"id": new, "type": "text", "placeholder": "City"}))
        bare = fp("input", {"id": old, "type": "text"})
        assert bare.matches(fp("input", {"id": new, "type": "text"}))
    # Ids people write still decide, numbered ones too: they name data.
    assert not fp("button", {"id": "save"}, "Go").matches(fp("button", {"id": "delete"}, "Go"))
    add_123 = fp("button", {"id": "product-123"}, "Add to cart")
    assert not add_123.matches(fp("button", {"id": "product-456"}, "Add to cart"))


def test_a_different_element_does_not_match() -> None:
    stored = fp("button", {"id": "submit"}, "Sign up")
    assert not stored.matches(fp("button", {"id": "cancel"}, "Sign up"))  # identity differs
    assert not stored.matches(fp("a", {"id": "submit", "href": "#"}, "Sign up"))  # tag differs
    ok = fp("button", {}, "OK")
    assert not ok.matches(fp("button", {}, "Book now"))  # no whole-word overlap
    assert not fp("input", {"type": "checkbox", "name": "a"}).matches(
        fp("input", {"type": "radio", "name": "a"})
    )  # role differs
    assert not fp("div", {}, "").matches(fp("div", {}, "Warning"))
