"""Plain Playwright code for a compiled extract(): the same reads as locator calls.

:func:`extraction_code` writes a module defining ``run(page)`` that returns the data as a
dict, sync or async, with no model and no stagehand_py. Each field uses a unique id or test
id locator where the compiler found one (``get_by_test_id``), else its positional XPath; a list
loops over its container's matches. The transforms are written out as small helpers. Pure
functions, no browser.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from .cache._extraction import CompiledExtraction, FieldRead
from .codegen import CodeOptions, CodeShape
from .codegen_locator import locator_expression, py_string

if TYPE_CHECKING:
    from typing_extensions import Unpack

_HELPERS = """\
def _text(raw: str | None, prefix: str = "", suffix: str = "") -> str:
    text = " ".join((raw or "").split())
    if not (text.startswith(prefix) and text.endswith(suffix)):
        raise ValueError("the page no longer has the text around this field")
    return text[len(prefix) : len(text) - len(suffix)]


def _number(raw: str | None, comma: bool = False) -> int | float:
    pattern = _COMMA if comma else _DOT
    found = pattern.search(" ".join((raw or "").split()))
    if found is None:
        raise ValueError("no number where this field is read")
    whole, _, fraction = found.group(0).partition("," if comma else ".")
    whole = re.sub(r"[.\\s]" if comma else ",", "", whole)
    return float(f"{whole}.{fraction}") if fraction else int(whole)


_DOT = re.compile(r"-?\\d{1,3}(?:,\\d{3})+(?:\\.\\d+)?|-?\\d+(?:\\.\\d+)?")
_COMMA = re.compile(r"-?\\d{1,3}(?:[.\\s]\\d{3})+(?:,\\d+)?|-?\\d+(?:,\\d+)?")
"""
_READS = {
    "text": "inner_text()",
    "value": "input_value()",
    "checked": "is_checked()",
}


def _read_call(read: FieldRead, locator: str, wait: str) -> str:
    call = _READS.get(read.read) or f"get_attribute({py_string(read.attribute)})"
    raw = f"{wait}{locator}.{call}"
    if read.transform == "boolean":
        return raw
    if read.transform == "url":
        return f'urljoin(page.url, ({raw} or "").strip())'
    affixes = ""
    if read.prefix or read.suffix:
        affixes = f", {py_string(read.prefix)}, {py_string(read.suffix)}"
    if read.transform in ("number", "number_comma"):
        comma = ", comma=True" if read.transform == "number_comma" else ""
        return f"_number(_text({raw}{affixes}){comma})"
    return f"_text({raw}{affixes})"


def _target(root: str, path: str) -> str:
    """Python that names the place of JSON pointer ``path`` below dict ``root``."""
    keys = [key.replace("~1", "/").replace("~0", "~") for key in path.split("/")[1:]]
    where = root
    for key in keys[:-1]:
        where = f"{where}.setdefault({py_string(key)}, {{}})"
    return f"{where}[{py_string(keys[-1])}]"


def _field_locator(read: FieldRead, root: str) -> str:
    if read.locator and root == "page":
        return locator_expression(read.locator)
    if root == "page":
        return locator_expression("xpath=" + read.xpath)
    relative = "." + read.xpath if read.xpath else "."
    return f"{root}.locator({py_string('xpath=' + relative)})"


def _body(compiled: CompiledExtraction, wait: str) -> list[str]:
    lines = ["data: dict[str, Any] = {}"]
    for read in compiled.fields:
        lines.append(
            f"{_target('data', read.path)} = {_read_call(read, _field_locator(read, 'page'), wait)}"
        )
    for listed in compiled.lists:
        container = locator_expression("xpath=" + listed.container)
        lines.append("items: list[Any] = []")
        lines.append(f"for item in {wait}{container}.all():")
        scalar = len(listed.fields) == 1 and not listed.fields[0].path
        if scalar:
            only = listed.fields[0]
            lines.append(
                f"    items.append({_read_call(only, _field_locator(only, 'item'), wait)})"
            )
        else:
            lines.append("    row: dict[str, Any] = {}")
            for read in listed.fields:
                value = _read_call(read, _field_locator(read, "item"), wait)
                lines.append(f"    {_target('row', read.path)} = {value}")
            lines.append("    items.append(row)")
        lines.append(f"{_target('data', listed.path)} = items")
    lines.append("return data")
    return lines


def extraction_code(
    extractions: Sequence[CompiledExtraction], **options: Unpack[CodeOptions]
) -> str:
    """A module whose ``run(page)`` reads what the compiled extraction reads, as a dict
    (``variables`` is accepted for the shared signature: an extraction has none)."""
    shape = CodeShape.of(options)
    body = shape.opening()
    for compiled in extractions:
        body.extend(_body(compiled, shape.wait))
    keyword = "async def" if shape.style == "async" else "def"
    header = [f"# {' '.join(shape.title.split())}"] if shape.title else []
    header += [
        "import re",
        "from typing import TYPE_CHECKING, Any",
        "from urllib.parse import urljoin",
        "",
        f"from playwright.{shape.style}_api import Page",
        "",
        "",
        _HELPERS,
        "",
        f"{keyword} {shape.function_name}(page: Page) -> dict[str, Any]:",
    ]
    return "\n".join([*header, *("    " + line for line in body)]) + "\n"
