"""Credential sources (pure): the environment, a ``.env`` file and the OS keychain give
``Secret`` values that mask themselves, that ``variables=`` accepts and redacts, and whose
errors name the source and the variable, never a value."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from stagehand_py import ConfigurationError, Secret
from stagehand_py._variables import Variables
from stagehand_py.credentials import from_dotenv, from_env, from_keyring
from tests import secret_values
from tests.memory_keyring import MemoryKeyring, memory_keyring  # noqa: F401 (the fixture)

ENV = {
    "SHOP_EMAIL": secret_values.EMAIL,
    "SHOP_PASSWORD": secret_values.PASSWORD,
    "OTHER_PHONE": secret_values.PHONE,
}


def assert_masked(values: dict[str, Secret]) -> None:
    shown = f"{values!r} {values} {[str(v) for v in values.values()]} " + " ".join(
        f"{v}" for v in values.values()
    )
    assert not any(s in shown for s in secret_values.ALL), shown
    assert all(isinstance(v, Secret) for v in values.values())


def test_from_env_by_prefix_or_by_names() -> None:
    by_prefix = from_env("SHOP_", environ=ENV)
    assert {n: v.get_secret_value() for n, v in by_prefix.items()} == {
        "EMAIL": secret_values.EMAIL,
        "PASSWORD": secret_values.PASSWORD,
    }
    by_names = from_env(["SHOP_EMAIL", "OTHER_PHONE"], environ=ENV)
    assert by_names["OTHER_PHONE"].get_secret_value() == secret_values.PHONE
    assert_masked(by_prefix)
    assert_masked(by_names)


@pytest.mark.parametrize(
    ("argument", "message"),
    [
        ("NONE_", "has no names starting with 'NONE_'"),
        ("", "from_env() needs a prefix"),
        (["SHOP_EMAIL", "SHOP_PIN"], "The environment has no SHOP_PIN"),
        (["not a name"], "letters, digits and underscores"),
        ("SHOP_", "SHOP_1PIN does not give a variable name"),
    ],
)
def test_from_env_errors_say_what_is_missing(argument: object, message: str) -> None:
    env = {**ENV, "SHOP_1PIN": "1234"} if "1PIN" in message else ENV
    with pytest.raises(ConfigurationError) as caught:
        from_env(argument, environ=env)  # type: ignore[arg-type]
    text = str(caught.value)
    assert message in text, text
    assert not any(s in text for s in secret_values.ALL)


def test_from_env_reads_the_process_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("G18_SHOP_EMAIL", secret_values.EMAIL)
    assert from_env("G18_SHOP_")["EMAIL"].get_secret_value() == secret_values.EMAIL


def test_a_dotenv_file_all_names_some_names_or_a_prefix(tmp_path: Path) -> None:
    env = tmp_path / ".env"
    env.write_text(
        "# shop account\n"
        f"export SHOP_EMAIL={secret_values.EMAIL}\n"
        f'SHOP_PASSWORD="{secret_values.PASSWORD}"  # quoted\n'
        f"PHONE='{secret_values.PHONE}'\n",
        "utf-8",
    )
    everything = from_dotenv(env)
    assert sorted(everything) == ["PHONE", "SHOP_EMAIL", "SHOP_PASSWORD"]
    assert everything["SHOP_PASSWORD"].get_secret_value() == secret_values.PASSWORD
    assert from_dotenv(env, names=["PHONE"])["PHONE"].get_secret_value() == secret_values.PHONE
    shop = from_dotenv(env, prefix="SHOP_")
    assert sorted(shop) == ["EMAIL", "PASSWORD"]
    assert_masked(everything)


@pytest.mark.parametrize(
    "first_line",
    ["# written by a Windows editor", f"SHOP_EMAIL={secret_values.EMAIL}"],
    ids=["bom-then-comment", "bom-then-value"],
)
def test_a_dotenv_file_saved_with_a_byte_order_mark(tmp_path: Path, first_line: str) -> None:
    env = tmp_path / ".env"
    env.write_text(f"{first_line}\nSHOP_PASSWORD={secret_values.PASSWORD}\n", "utf-8-sig")
    assert env.read_bytes().startswith(b"\xef\xbb\xbf")
    shop = from_dotenv(env, prefix="SHOP_")
    assert shop["PASSWORD"].get_secret_value() == secret_values.PASSWORD
    assert sorted(shop) == (["EMAIL", "PASSWORD"] if "=" in first_line else ["PASSWORD"])


def test_dotenv_errors_name_the_file_and_line_never_the_value(tmp_path: Path) -> None:
    broken = tmp_path / "broken.env"
    broken.write_text(f'OK=1\nPASSWORD="{secret_values.PASSWORD}\n', "utf-8")
    with pytest.raises(ConfigurationError) as caught:
        from_dotenv(broken)
    assert "broken.env, line 2: the value's \" quote is never closed" in str(caught.value)
    assert secret_values.PASSWORD not in str(caught.value)
    with pytest.raises(ConfigurationError, match=r"No \.env file at"):
        from_dotenv(tmp_path / "missing.env")
    with pytest.raises(ConfigurationError, match="has no EMAIL"):
        from_dotenv(_ok(tmp_path), names=["EMAIL"])
    with pytest.raises(ConfigurationError, match="not both"):
        from_dotenv(_ok(tmp_path), names=["OK"], prefix="O")
    binary = tmp_path / "binary.env"
    binary.write_bytes(b"A=\xff\xfe\n")
    with pytest.raises(ConfigurationError, match="not UTF-8"):
        from_dotenv(binary)


def _ok(tmp_path: Path) -> Path:
    path = tmp_path / "ok.env"
    path.write_text("OK=1\n", "utf-8")
    return path


def test_the_keychain_through_keyring(memory_keyring: MemoryKeyring) -> None:  # noqa: F811
    memory_keyring.set_password("shop.test", "EMAIL", secret_values.EMAIL)
    memory_keyring.set_password("shop.test", "PASSWORD", secret_values.PASSWORD)
    values = from_keyring("shop.test", ["EMAIL", "PASSWORD"])
    assert values["PASSWORD"].get_secret_value() == secret_values.PASSWORD
    assert_masked(values)
    with pytest.raises(
        ConfigurationError, match=r"no 'PHONE' for service 'shop\.test'.*keyring set"
    ):
        from_keyring("shop.test", ["PHONE"])
    memory_keyring.locked = True
    with pytest.raises(ConfigurationError, match=r"could not give 'EMAIL'.*KeyringLocked"):
        from_keyring("shop.test", ["EMAIL"])
    with pytest.raises(ConfigurationError, match="a list of variable names"):
        from_keyring("shop.test", "EMAIL")  # type: ignore[arg-type]


def test_without_keyring_installed_the_error_names_the_extra(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "keyring", None)  # import keyring -> ImportError
    with pytest.raises(ConfigurationError, match=r'pip install "pystagehand\[keyring\]"'):
        from_keyring("shop.test", ["EMAIL"])


def test_variables_take_secrets_and_redact_their_values() -> None:
    variables = Variables({**from_env("SHOP_", environ=ENV), "plain": "visible-value"})
    assert variables.names == ["EMAIL", "PASSWORD", "PLAIN"]
    assert variables.substitute("<|EMAIL|>") == secret_values.EMAIL
    said = f"typed {secret_values.EMAIL} and {secret_values.PASSWORD}"
    assert variables.redact(said) == "typed <|EMAIL|> and <|PASSWORD|>"
    assert secret_values.EMAIL not in repr(variables)


def test_a_source_secret_keeps_its_domains_and_counts_as_a_credential() -> None:
    bound = Secret(secret_values.PASSWORD, domains=["*.example.com"])
    variables = Variables({"login": bound, **from_env("SHOP_", environ=ENV)})
    assert variables.domains("login") == ("*.example.com",)
    assert variables.domains("email") is None  # bound to the page the call starts on
