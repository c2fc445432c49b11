"""What a compiled extract() entry holds: how to read each field of the schema from the page.

An entry stores, per leaf field, where its element is (a positional XPath, relative to a
repeated container for list items), what is read from it and how the text becomes the value
(a small closed set of transforms), plus the digest of the schema it was compiled for. It
never stores a value: the only page text kept is a short constant prefix or suffix around a
value (``Price: ``), and the compiler refuses one that holds any value it extracted.

Validated on load like every entry: read kinds, transforms and attributes come from closed
lists, paths are positional XPaths, sizes are bounded.
"""

from __future__ import annotations

import json
import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

ReadKind = Literal["text", "attribute", "value", "checked"]
Transform = Literal["text", "number", "number_comma", "url", "boolean"]
"""``text``: whitespace squashed (then a constant prefix/suffix cut off);
``number``: the first number, ``,`` as thousands separator (``number_comma``: ``,`` as the
decimal mark); ``url``: an href or src made absolute; ``boolean``: a checkbox's state."""

AFFIXED = frozenset({"text", "number", "number_comma"})
MAX_CLASSES = 10
MAX_FIELDS = 200
MAX_LISTS = 20
MAX_AFFIX_CHARS = 40
MAX_PATH_CHARS = 2000
MAX_POINTER_CHARS = 500
MAX_SCHEMA_CHARS = 50_000
ALLOWED_ATTRIBUTES = frozenset(
    {"href", "src", "alt", "title", "datetime", "content", "value", "aria-label", "label"}
)
_DATA_ATTRIBUTE = re.compile(r"^data-[a-z0-9-]{1,40}$")
_STEP = r"/[A-Za-z][A-Za-z0-9-]*"
ABSOLUTE_XPATH = re.compile(rf"^(?:{_STEP}(?:\[\d+\])?)+$")
"""``/html/body[1]/div[2]/span[1]``: tags and positions only, no text or attribute test."""
RELATIVE_XPATH = re.compile(rf"^(?:{_STEP}(?:\[\d+\])?)*$")
"""The same below a container (``""``: the container itself)."""
CONTAINER_XPATH = re.compile(rf"^(?:{_STEP}(?:\[\d+\])?)+$")
"""An absolute path whose repeated steps have no position (``/html/body[1]/ul[1]/li``)."""
_CLASS = re.compile(r"^-?[A-Za-z_][A-Za-z0-9_-]{0,60}$")
_POINTER = re.compile(r"^(?:/[^/]{1,200})*$")
USER_LOCATOR = re.compile(
    r'^(?:css=#[A-Za-z_][A-Za-z0-9_-]{0,100}|internal:testid=\[data-testid="[^"\\]{1,100}"s\])$'
)
"""A user-facing locator kept for generated code: an id or a test id, nothing that holds text."""


def attribute_allowed(name: str) -> bool:
    """Whether an entry may read attribute ``name`` (a closed list, plus ``data-*``)."""
    return name in ALLOWED_ATTRIBUTES or bool(_DATA_ATTRIBUTE.match(name))


class FieldRead(BaseModel):
    """How one leaf field is read: element, read kind, transform, constant affixes."""

    model_config = ConfigDict(extra="forbid")

    path: str = Field(max_length=MAX_POINTER_CHARS, description="JSON pointer of the field")
    xpath: str = Field(max_length=MAX_PATH_CHARS, description="positional XPath of the element")
    tag: str = Field(max_length=40, description="the element's tag, checked on replay")
    read: ReadKind
    attribute: str = Field(default="", max_length=60)
    transform: Transform
    prefix: str = Field(default="", max_length=MAX_AFFIX_CHARS)
    suffix: str = Field(default="", max_length=MAX_AFFIX_CHARS)
    classes: list[str] = Field(
        default_factory=list, max_length=MAX_CLASSES, description="its classes, checked on replay"
    )
    locator: str = Field(
        default="", max_length=200, description="a unique id or test-id locator, for codegen"
    )

    @field_validator("classes")
    @classmethod
    def _class_names(cls, classes: list[str]) -> list[str]:
        if not all(_CLASS.match(name) for name in classes):
            raise ValueError("a class is not a plain class name")
        return classes

    @field_validator("path")
    @classmethod
    def _pointer(cls, path: str) -> str:
        if not _POINTER.match(path):
            raise ValueError("path is not a JSON pointer")
        return path

    @model_validator(mode="after")
    def _allowed(self) -> FieldRead:
        if self.read == "attribute" and not attribute_allowed(self.attribute):
            raise ValueError(f"attribute {self.attribute!r} is not one an entry may read")
        if self.read != "attribute" and self.attribute:
            raise ValueError("only an attribute read names an attribute")
        if (self.read == "checked") != (self.transform == "boolean"):
            raise ValueError("a checked read goes with the boolean transform, and only it")
        if self.locator and not USER_LOCATOR.match(self.locator):
            raise ValueError("the locator is not an id or test-id locator")
        if (self.prefix or self.suffix) and self.transform not in AFFIXED:
            raise ValueError("only text and number transforms cut a prefix or suffix")
        return self


class ListRead(BaseModel):
    """A list field: one item per element the container matches, fields read below it."""

    model_config = ConfigDict(extra="forbid")

    path: str = Field(max_length=MAX_POINTER_CHARS, description="JSON pointer of the list")
    container: str = Field(max_length=MAX_PATH_CHARS)
    fields: list[FieldRead] = Field(min_length=1, max_length=MAX_FIELDS)

    @model_validator(mode="after")
    def _paths(self) -> ListRead:
        if not CONTAINER_XPATH.match(self.container):
            raise ValueError("the container is not a positional XPath")
        if not all(RELATIVE_XPATH.match(f.xpath) for f in self.fields):
            raise ValueError("a list field's path is not a relative positional XPath")
        return self


class CompiledExtraction(BaseModel):
    """The recipe of one extract(): the schema it was compiled for and how to read it."""

    model_config = ConfigDict(extra="forbid")

    schema_digest: str = Field(pattern=r"^[0-9a-f]{64}$")
    json_schema: dict[str, Any] = Field(description="the schema it was compiled for")
    fields: list[FieldRead] = Field(default_factory=list, max_length=MAX_FIELDS)
    lists: list[ListRead] = Field(default_factory=list, max_length=MAX_LISTS)

    @field_validator("json_schema")
    @classmethod
    def _bounded_schema(cls, schema: dict[str, Any]) -> dict[str, Any]:
        if len(json.dumps(schema)) > MAX_SCHEMA_CHARS:
            raise ValueError(f"the schema is longer than {MAX_SCHEMA_CHARS} characters")
        return schema

    @model_validator(mode="after")
    def _paths(self) -> CompiledExtraction:
        if not self.fields and not self.lists:
            raise ValueError("the extraction reads no field")
        if not all(ABSOLUTE_XPATH.match(f.xpath) for f in self.fields):
            raise ValueError("a field's path is not an absolute positional XPath")
        return self

    def describe(self) -> list[str]:
        """Readable lines, one per field (``cache show --diff``)."""
        lines = [_read_line(f.path, f) for f in self.fields]
        for listed in self.lists:
            lines.append(f"{listed.path or '/'}[*]  each {listed.container}")
            lines.extend("  " + _read_line(f.path or "(item)", f) for f in listed.fields)
        return lines

    @property
    def field_count(self) -> int:
        return len(self.fields) + sum(len(listed.fields) for listed in self.lists)


def _read_line(path: str, read: FieldRead) -> str:
    what = f"attribute {read.attribute}" if read.read == "attribute" else read.read
    affixes = "".join(
        f" {name}={text!r}" for name, text in (("prefix", read.prefix), ("suffix", read.suffix))
        if text
    )  # fmt: skip
    where = read.xpath or "(the item)"
    return f"{path}: {what} of <{read.tag}> {where} as {read.transform}{affixes}"
