"""The .env reader: the common dialect, quoting, comments, and errors that never show values."""

from __future__ import annotations

import pytest

from stagehand_py._dotenv import DotenvError, parse_dotenv
from tests import secret_values


def test_the_common_dialect() -> None:
    text = (
        "# shop credentials\n"
        "\n"
        "SHOP_USER=ada\n"
        "export SHOP_PASSWORD = 'Hunter2-Sup3r-S3cret!'\n"
        'GREETING="line one\\nline \\"two\\""\n'
        "PLAIN=some value   # a comment\n"
        "HASH=abc#def\n"
        "EMPTY=\n"
        "KEPT=${SHOP_USER}\n"
        "MULTI='first\n"
        "second'\n"
        "SHOP_USER=grace\n"
    )
    assert parse_dotenv(text) == {
        "SHOP_USER": "grace",
        "SHOP_PASSWORD": secret_values.PASSWORD,
        "GREETING": 'line one\nline "two"',
        "PLAIN": "some value",
        "HASH": "abc#def",
        "EMPTY": "",
        "KEPT": "${SHOP_USER}",
        "MULTI": "first\nsecond",
    }


@pytest.mark.parametrize(
    ("text", "line", "reason"),
    [
        (f"OK=1\n{secret_values.PASSWORD}\n", 2, "expected NAME=value"),
        (f"1BAD={secret_values.PASSWORD}\n", 1, "the name must be letters"),
        (f'A=1\nPW="{secret_values.PASSWORD}\nB=2\n', 2, "quote is never closed"),
        (f"PW='{secret_values.PASSWORD}' trailing\n", 1, "unexpected text after"),
        ('A="x\ny\nz"\nB=1\nno equals sign\n', 5, "expected NAME=value"),
    ],
)
def test_errors_name_the_line_and_never_the_value(text: str, line: int, reason: str) -> None:
    with pytest.raises(DotenvError) as raised:
        parse_dotenv(text)
    assert raised.value.line == line and reason in str(raised.value)
    assert secret_values.PASSWORD not in str(raised.value)


@pytest.mark.parametrize(
    "text",
    [
        f"\ufeff# shop account\nSHOP_PASSWORD='{secret_values.PASSWORD}'\r\n",
        f"\ufeffSHOP_PASSWORD={secret_values.PASSWORD}\r\n# the end\r\n",
    ],
    ids=["bom-then-comment", "bom-then-value"],
)
def test_a_byte_order_mark_at_the_start_is_skipped(text: str) -> None:
    assert parse_dotenv(text) == {"SHOP_PASSWORD": secret_values.PASSWORD}
