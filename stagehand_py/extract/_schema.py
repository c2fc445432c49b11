"""From the user's schema to what each chunk's model call must return, and back.

The user's model becomes a *partial* model (every top-level and nested-object field
optional, since one chunk rarely holds everything), wrapped with a ``complete`` flag. List
items keep the user's own class, validators included, so an incomplete item is re-asked.

URL fields never take a URL from the model: a field typed as a pydantic URL, marked
``format: uri``, or a ``str`` whose name ends in url/href/link (``product_url``, ``link``,
``homepageUrl``) asks for the *number* of a ``[link N: ...]`` shown in the page text
instead (an explicit ``json_schema_extra={"format": "text"}`` opts a field out); the
answer is checked against the links of that chunk (an unknown number is a
validation error, so it is re-asked) and replaced by the link's absolute href.
"""

from __future__ import annotations

import re
import types
from collections.abc import Callable, Iterator
from typing import Annotated, Any, Literal, Optional, Union, get_args, get_origin

from pydantic import AnyUrl, BaseModel, ConfigDict, Field, create_model, model_validator
from pydantic.fields import FieldInfo

URL_NAME_TOKENS = frozenset({"url", "urls", "uri", "href", "hrefs", "link", "links", "website"})
URL_FORMATS = frozenset({"uri", "url", "iri", "uri-reference", "iri-reference"})
LinkShape = Literal["one", "many"]
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_SEQUENCES = (list, set, frozenset, tuple)
_LINK_HINT = "Write the number N of a link shown as [link N: ...] in the page text, not a URL."

COMPLETE_DESCRIPTION = (
    "true only when everything the instruction asks for has now been found (here or in "
    "earlier parts) and later parts of the page cannot add anything; false otherwise."
)
SOURCES_DESCRIPTION = (
    "For every value in data, the number(s) of the element(s) it was read from, keyed by the "
    'value\'s JSON pointer in data: {"/name": [3], "/items/0/price": [12]}.'
)


def strip_optional(annotation: Any) -> tuple[Any, bool]:
    """``X | None`` -> (X, True); anything else -> (annotation, False)."""
    while get_origin(annotation) is Annotated:
        annotation = get_args(annotation)[0]
    if get_origin(annotation) in (Union, types.UnionType):
        args = [a for a in get_args(annotation) if a is not type(None)]
        if len(args) == 1 and len(get_args(annotation)) == 2:
            return args[0], True
    return annotation, False


def subclass_of(annotation: Any, base: type) -> bool:
    """Whether ``annotation`` is a class derived from ``base``. False for generic aliases such
    as ``list[Row]``: Python 3.10 calls them types, but ``issubclass`` refuses them."""
    return (
        isinstance(annotation, type)
        and get_origin(annotation) is None
        and issubclass(annotation, base)
    )


def _is_model(annotation: Any) -> bool:
    return subclass_of(annotation, BaseModel)


def _names_a_url(name: str) -> bool:
    tokens = re.split(r"[_\-\s]+", _CAMEL.sub("_", name).lower())
    return tokens[-1] in URL_NAME_TOKENS


def _url_leaf(annotation: Any, name: str, info: FieldInfo) -> bool:
    core, _ = strip_optional(annotation)
    if subclass_of(core, AnyUrl):
        return True
    extra = info.json_schema_extra if isinstance(info.json_schema_extra, dict) else {}
    if core is str and "format" in extra:  # an explicit format decides, either way
        return str(extra["format"]).lower() in URL_FORMATS
    return core is str and _names_a_url(name)


def url_shape(name: str, info: FieldInfo) -> LinkShape | None:
    """Whether a field holds one URL, a list of URLs, or none (then None)."""
    core, _ = strip_optional(info.annotation)
    if get_origin(core) in _SEQUENCES and get_args(core):
        return "many" if _url_leaf(get_args(core)[0], name, info) else None
    return "one" if _url_leaf(core, name, info) else None


class SchemaPlan:
    """The partial and per-chunk answer models for one user model, and the way back."""

    def __init__(self, user_model: type[BaseModel]) -> None:
        self.user_model = user_model
        # For every model class built here: which of its fields hold link numbers.
        self.link_fields: dict[type[BaseModel], dict[str, LinkShape]] = {}
        self._partials: dict[type[BaseModel], type[BaseModel]] = {}
        self._items: dict[type[BaseModel], type[BaseModel]] = {}
        self._building: set[type[BaseModel]] = set()
        self.partial = self._partial(user_model)

    # ------------------------------------------------------------------ building models
    def _link_field(self, shape: LinkShape, info: FieldInfo, *, required: bool) -> Any:
        description = f"{info.description} {_LINK_HINT}" if info.description else _LINK_HINT
        annotation: Any = int if shape == "one" else list[int]
        if not required:
            annotation = Optional[annotation]  # noqa: UP045 (built at run time)
        return (annotation, Field(... if required else None, alias=info.alias,
                                  description=description))  # fmt: skip

    def _convert(self, annotation: Any, *, partial: bool) -> Any:
        """``annotation`` with nested models swapped for their partial/item versions."""
        core, optional = strip_optional(annotation)
        new: Any
        if _is_model(core):
            new = self._partial(core) if partial else self._item(core)
        elif get_origin(core) is list and get_args(core) and _is_model(get_args(core)[0]):
            new = list[self._item(get_args(core)[0])]  # type: ignore[misc]
        else:
            return annotation
        return Optional[new] if optional else new  # noqa: UP045

    def _partial(self, model: type[BaseModel]) -> type[BaseModel]:
        if model in self._partials or model in self._building:
            return self._partials.get(model, model)  # a recursive model validates as is
        self._building.add(model)
        fields, links = self._fields(model, self._partial_field, required_links=False)
        # Nested partials get their own name: the same class may also appear as a list item.
        name = model.__name__ if model is self.user_model else f"{model.__name__}Partial"
        partial: type[BaseModel] = create_model(
            name, __config__=ConfigDict(populate_by_name=True), __doc__=model.__doc__,
            **fields,
        )  # fmt: skip
        self._building.discard(model)
        self._partials[model] = partial
        self.link_fields[partial] = links
        return partial

    def _fields(
        self,
        model: type[BaseModel],
        other: Callable[[FieldInfo], tuple[Any, Any] | None],
        *,
        required_links: bool,
    ) -> tuple[dict[str, Any], dict[str, LinkShape]]:
        """The field definitions of a rebuilt ``model``, in its order: each URL field as a
        link field (its shape noted in the second dict), any other as ``other`` makes it
        (``None``: left as the model has it)."""
        fields: dict[str, Any] = {}
        links: dict[str, LinkShape] = {}
        for name, info in model.model_fields.items():
            shape = url_shape(info.alias or name, info)
            if shape is not None:
                links[name] = shape
                required = required_links and info.is_required()
                fields[name] = self._link_field(shape, info, required=required)
                continue
            definition = other(info)
            if definition is not None:
                fields[name] = definition
        return fields, links

    def _partial_field(self, info: FieldInfo) -> tuple[Any, Any]:
        """Optional, with the field's own name, alias and words (one chunk may lack it)."""
        annotation = self._convert(info.annotation, partial=True)
        return (
            Optional[annotation],  # noqa: UP045
            Field(None, alias=info.alias, description=info.description, title=info.title),
        )

    def _item_field(self, info: FieldInfo) -> tuple[Any, Any] | None:
        """A list item's field, changed only where a nested model holds URL fields."""
        converted = self._convert(info.annotation, partial=False)
        if converted is info.annotation:
            return None
        default = ... if info.is_required() else info.default
        return converted, Field(default, alias=info.alias, description=info.description)

    def _needs_change(self, model: type[BaseModel], seen: frozenset[type] = frozenset()) -> bool:
        if model in seen:
            return False
        for name, info in model.model_fields.items():
            if url_shape(info.alias or name, info) is not None:
                return True
            core, _ = strip_optional(info.annotation)
            inner = get_args(core)[0] if get_origin(core) is list and get_args(core) else core
            if _is_model(inner) and self._needs_change(inner, seen | {model}):
                return True
        return False

    def _item(self, model: type[BaseModel]) -> type[BaseModel]:
        """A list item model: the user's class itself unless it holds URL fields somewhere."""
        if not self._needs_change(model):
            return model
        if model in self._items:
            return self._items[model]
        overrides, links = self._fields(model, self._item_field, required_links=True)
        item: type[BaseModel] = create_model(model.__name__, __base__=model, **overrides)
        self._items[model] = item
        self.link_fields[item] = links
        return item

    def answer_model(
        self, shown_links: frozenset[int], *, sourced: bool = False
    ) -> type[BaseModel]:
        """The model one chunk's call must return: ``{"data": <partial>, "complete": bool}``;
        ``sourced``: also ``sources``, the element numbers each leaf was read from."""
        check_links = self._link_checker(shown_links)
        validators: dict[str, Any] = {"links_shown": model_validator(mode="after")(check_links)}
        extra: dict[str, Any] = {}
        if sourced:
            extra["sources"] = (
                dict[str, list[int]],
                Field(default_factory=dict, description=SOURCES_DESCRIPTION),
            )
        return create_model(
            "ExtractAnswer",
            __doc__="What this part of the page holds of the data asked for.",
            __validators__=validators,
            data=(self.partial, Field(description="The data found in this part of the page.")),
            complete=(bool, Field(False, description=COMPLETE_DESCRIPTION)),
            **extra,
        )

    def _link_checker(self, shown: frozenset[int]) -> Callable[[Any], Any]:
        def check_links(answer: Any) -> Any:
            unknown = sorted({n for n in self.link_numbers(answer.data) if n not in shown})
            if unknown:
                raise ValueError(
                    f"link number(s) {unknown} do not appear in this part of the page; use "
                    "only numbers N shown as [link N: ...], or leave the field empty."
                )
            return answer

        return check_links

    # ------------------------------------------------------------------ reading answers
    def _walk_links(self, value: Any) -> Iterator[tuple[BaseModel, str, LinkShape]]:
        if isinstance(value, BaseModel):
            links = self.link_fields.get(type(value), {})
            for name in type(value).model_fields:
                if name in links:
                    yield value, name, links[name]
                else:
                    yield from self._walk_links(getattr(value, name))
        elif isinstance(value, list | tuple):
            for item in value:
                yield from self._walk_links(item)

    def link_numbers(self, value: Any) -> Iterator[int]:
        for owner, name, shape in self._walk_links(value):
            found = getattr(owner, name)
            if found is not None:
                yield from ([found] if shape == "one" else found)

    def to_data(self, value: Any, links: dict[int, str]) -> Any:
        """Plain data (keys by alias) with every link number replaced by its absolute href."""
        if isinstance(value, BaseModel):
            link_fields = self.link_fields.get(type(value), {})
            out: dict[str, Any] = {}
            for name, info in type(value).model_fields.items():
                found = getattr(value, name)
                key = info.alias or name
                if name not in link_fields or found is None:
                    out[key] = self.to_data(found, links)
                elif link_fields[name] == "one":
                    out[key] = links.get(found)
                else:
                    out[key] = [links[n] for n in found if n in links]
            return out
        if isinstance(value, list | tuple):
            return [self.to_data(item, links) for item in value]
        if isinstance(value, dict):
            return {key: self.to_data(item, links) for key, item in value.items()}
        return value
