"""The redactor on its own: derived forms of a value, short values, the package's markup."""

from __future__ import annotations

import html
import json
import logging
import re
import traceback
from urllib.parse import quote, quote_plus, urlencode

import pytest

from stagehand_py import Secret
from stagehand_py._redaction import SHORT_VALUE_CHARS, Redactor
from stagehand_py._secret import SecretText
from stagehand_py._session_secrets import SecretRegistry
from stagehand_py._variables import Variables
from tests import secret_values

EMAIL, PASSWORD, PHONE = secret_values.EMAIL, secret_values.PASSWORD, secret_values.PHONE


def _variables() -> Variables:
    return Variables({"email": EMAIL, "password": PASSWORD, "phone": PHONE})


@pytest.mark.parametrize(
    "form",
    [
        EMAIL,
        EMAIL.upper(),
        quote(EMAIL, safe=""),  # ada.lovelace%40analytical.test
        quote(EMAIL, safe="").lower(),
        quote(quote(EMAIL, safe=""), safe=""),  # encoded twice (a redirect's ?next=)
        html.escape(EMAIL).replace("@", "&#64;"),
        EMAIL.replace("@", "&commat;"),
        EMAIL.replace("@", "&#x40;"),
        json.dumps(EMAIL, ensure_ascii=True)[1:-1],
    ],
)
def test_every_derived_form_of_an_email_is_redacted(form: str) -> None:
    text = f"Page: https://shop.test/account?user={form}&step=2"
    redacted = _variables().redact(text)
    assert "<|EMAIL|>" in redacted
    assert form not in redacted


@pytest.mark.parametrize(
    "form",
    [
        PASSWORD,
        quote_plus(PASSWORD),
        urlencode({"p": PASSWORD})[2:],
        json.dumps(PASSWORD)[1:-1],
        PASSWORD.replace("!", "&excl;"),
        PHONE,
        PHONE.replace(" ", ""),  # a field that strips spaces echoes it without them
        quote_plus(PHONE),  # a GET form: "+44+20+7946+0958" with the plus itself as %2B
        PHONE.replace(" ", "&nbsp;"),
        PHONE.replace(" ", "\n   "),  # the serializer and HTML collapse whitespace
    ],
)
def test_url_html_json_and_whitespace_variants(form: str) -> None:
    redacted = _variables().redact(f"<p>you typed {form} here</p>")
    assert form not in redacted
    assert "<|" in redacted


# Escaped for a regular expression, as Playwright prints the pattern of a failed expect():
# once (re.escape) and in the pattern's repr (backslashes doubled), spaces included.
@pytest.mark.parametrize(
    "form",
    [
        re.escape(EMAIL),
        repr(re.compile(re.escape(EMAIL))),
        re.escape(PASSWORD),
        re.escape(PHONE),
        repr(re.compile(re.escape(PHONE))),
    ],
)
def test_a_value_escaped_for_a_regular_expression_is_redacted(form: str) -> None:
    redacted = _variables().redact(f"Expected pattern: {form}\nReceived: https://shop.test/")
    assert "<|" in redacted
    assert not [v for v in (EMAIL, PASSWORD, PHONE) if re.escape(v) in redacted]
    assert form not in redacted


def test_quote_variants_of_a_value_with_a_quote() -> None:
    variables = Variables({"motto": 'say "open sesame" twice'})
    for form in [
        'say "open sesame" twice',
        "say 'open sesame' twice",  # the serializer turns " into '
        "say &quot;open sesame&quot; twice",
        'say \\"open sesame\\" twice',
        "say \u201copen sesame\u201d twice",
    ]:
        assert variables.redact(f"title={form}!") == "title=<|MOTTO|>!", form


def test_a_long_token_is_redacted_anywhere_even_inside_markup_text() -> None:
    token = "tok_" + "a1B2c3D4" * 16  # 132 characters
    variables = Variables({"token": token})
    line = f'3:<a href="https://api.test/cb?token={token}&x=1">Continue</a>'
    assert (
        variables.redact(line) == '3:<a href="https://api.test/cb?token=<|TOKEN|>&x=1">Continue</a>'
    )


def test_short_values_only_as_whole_tokens_never_in_numbering_or_markup() -> None:
    assert SHORT_VALUE_CHARS > 2
    variables = Variables({"pin": "7", "qty": "1", "tag": "h1"})
    rendered = "\n".join(
        [
            '7:<input id="pin" type="password" value="7">',
            "1:<h1>Step 1 of 17</h1>",
            "17:Your quantity is 1.",
            "fill('<|PIN|>') on 7:<input id=\"pin\"> — typed 7",
        ]
    )
    assert variables.redact(rendered).splitlines() == [
        '7:<input id="pin" type="password" value="<|PIN|>">',
        "1:<h1>Step <|QTY|> of 17</h1>",
        "17:Your quantity is <|QTY|>.",
        "fill('<|PIN|>') on 7:<input id=\"pin\"> — typed <|PIN|>",
    ]


def test_placeholders_already_written_are_never_matched_again() -> None:
    variables = Variables({"email": "EMAIL", "password": "password123"})
    text = "fill <|EMAIL|> then %password% then password123"
    assert variables.redact(text) == "fill <|EMAIL|> then %password% then <|PASSWORD|>"
    assert variables.redact(variables.redact(text)) == variables.redact(text)


def test_a_huge_value_is_still_redacted_exactly_and_quickly() -> None:
    blob = "x" * 3_000_000 + "END"
    variables = Variables({"blob": blob})
    assert variables.redact("before " + blob + " after") == "before <|BLOB|> after"


def test_redaction_is_session_wide_per_page() -> None:
    registry = SecretRegistry()

    class FakePage:
        pass

    page, other = FakePage(), FakePage()
    registry.for_call(page, {"email": EMAIL})
    later = registry.for_call(page, None)  # e.g. an extract() with no variables
    assert later.redact(f"welcome back {EMAIL}") == "welcome back <|EMAIL|>"
    assert later.names == []  # remembered values are redacted, not offered to the model
    unrelated = registry.for_call(other, None)
    assert unrelated.redact(EMAIL) == EMAIL
    registry.carry_over(page, other)
    assert registry.for_call(other, None).redact(EMAIL) == "<|EMAIL|>"


def test_values_used_on_one_tab_are_redacted_on_every_tab_of_its_context_live() -> None:
    class FakeContext:
        pass

    class FakePage:
        def __init__(self, context: FakeContext) -> None:
            self.context = context

    shared, elsewhere = FakeContext(), FakeContext()
    first, second, apart = FakePage(shared), FakePage(shared), FakePage(elsewhere)
    one, two = SecretRegistry(), SecretRegistry()  # two sessions on one context
    running = one.for_call(first, {"email": EMAIL})
    other_run = two.for_call(second, None)  # started before the next value was used
    apart_run = one.for_call(apart, None)
    assert other_run.redact(f"tab 0: {EMAIL}") == "tab 0: <|EMAIL|>"
    two.for_call(second, {"password": PASSWORD})  # learnt while both runs go on
    assert running.redact(f"[1] {PASSWORD}") == "[1] <|PASSWORD|>"
    assert running.names == ["EMAIL"]  # another run's value is redacted, never offered
    assert apart_run.redact(EMAIL) == EMAIL  # another context is another memory


def test_registry_does_not_keep_closed_pages_alive() -> None:
    import gc
    import weakref

    registry = SecretRegistry()

    class FakePage:
        pass

    page = FakePage()
    registry.for_call(page, {"email": EMAIL})
    gone = weakref.ref(page)
    del page
    gc.collect()
    assert gone() is None
    assert registry.all_values() == []


def test_values_never_show_in_repr_str_format_or_a_traceback() -> None:
    secret = Secret(PASSWORD, domains=["*.example.com"])
    variables = Variables({"password": secret, "email": EMAIL})
    typed = variables.substitute("<|PASSWORD|>")
    shown = [repr(secret), str(secret), f"{secret}", repr(variables), repr(typed), f"{typed}"]
    logged = "%s" % (typed,)  # noqa: UP031 (what logging does with an argument)
    shown += [repr(variables.items()), logged, repr(Redactor(variables.items()))]
    assert not any(PASSWORD in s or EMAIL in s for s in shown), shown
    assert secret.get_secret_value() == PASSWORD
    assert str.__str__(typed) == PASSWORD  # what Playwright is handed

    def fails(value: str) -> None:
        raise RuntimeError("boom")

    try:
        fails(typed)
    except RuntimeError as exc:
        shown_tb = traceback.TracebackException.from_exception(exc, capture_locals=True)
        rendered = "".join(shown_tb.format())
    assert "value = '<secret>'" in rendered
    assert PASSWORD not in rendered


def test_log_records_of_the_package_are_redacted_with_live_secrets(
    caplog: pytest.LogCaptureFixture,
) -> None:
    registry = SecretRegistry()

    class FakePage:
        pass

    page = FakePage()
    registry.for_call(page, {"email": EMAIL})
    with caplog.at_level(logging.INFO, logger="stagehand_py"):
        logging.getLogger("stagehand_py").info("following new tab %s", f"https://x/?u={EMAIL}")
    assert caplog.records[-1].getMessage() == "following new tab https://x/?u=<|EMAIL|>"
    del page


def test_secret_text_is_a_plain_string_to_code_that_joins_it() -> None:
    typed = SecretText("abc")
    assert "x" + typed == "xabc" and "".join([typed]) == "abc"
    with pytest.raises(TypeError, match="cannot be pickled"):
        __import__("pickle").dumps(typed)
