"""Checks of a model object against the model contract: ``chat()`` and ``structured()``, async
or not, and which of the contract's keywords each method takes.

The contract as first published had no ``options=`` keyword (``chat(messages, tools, *,
tool_choice=...)``, ``structured(messages, schema, *, max_retries=...)``). A model object
written to it still works: :func:`contract_fit` says which keywords its methods take, and the
adapter calls them with those only. A method that cannot be called the contract's way (fewer
than two positional parameters, a parameter the contract never passes and that has no
default) is refused up front with a :class:`ConfigurationError` naming it.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass

from .._errors import ConfigurationError

# Each method's keywords, as the contract passes them.
CONTRACT_KEYWORDS = {
    "chat": ("tool_choice", "options"),
    "structured": ("max_retries", "options"),
}
_SECOND_ARGUMENT = {"chat": "tools", "structured": "schema"}
_POSITIONAL = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
_BY_KEYWORD = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)


@dataclass(frozen=True)
class ContractFit:
    """The contract keywords each of a model object's methods takes."""

    chat: frozenset[str]
    structured: frozenset[str]

    def missing(self) -> list[str]:
        """The keywords not taken, as ``chat(options=)``; [] for a full fit."""
        return [
            f"{name}({keyword}=)"
            for name, keywords in CONTRACT_KEYWORDS.items()
            for keyword in keywords
            if keyword not in getattr(self, name)
        ]


def check_llm_flavour(llm: object, *, owner: str, wants_async: bool) -> None:
    """Refuse a sync model client in an async Stagehand and the reverse, up front (``owner``
    says where it was given, e.g. ``AsyncStagehand(llm=...)``).

    Otherwise the mistake shows much later as "object ChatResponse can't be used in 'await'
    expression" (or a coroutine where a response was expected). An object may declare its
    flavour with an ``is_async`` attribute; otherwise ``chat`` being ``async def`` decides.
    """
    for name in CONTRACT_KEYWORDS:
        _method(llm, name, owner)
    chat = getattr(llm, "chat", None)
    declared = getattr(llm, "is_async", None)
    is_async = declared if isinstance(declared, bool) else inspect.iscoroutinefunction(chat)
    if is_async == wants_async:
        return
    name = type(llm).__name__
    if wants_async:
        twin = f"Async{name}" if not name.startswith("Async") else name
        raise ConfigurationError(
            f"{owner} got the synchronous model client {name}, whose chat() is not "
            f"async. Use its async twin ({twin}) with AsyncStagehand, or use Stagehand."
        )
    twin = name.removeprefix("Async") or name
    raise ConfigurationError(
        f"{owner} got the asynchronous model client {name}, whose chat() is async. "
        f"Use its sync twin ({twin}) with Stagehand, or use AsyncStagehand."
    )


def contract_fit(llm: object, *, owner: str) -> ContractFit:
    """Which contract keywords ``llm``'s methods take; :class:`ConfigurationError` naming the
    method and parameter when one cannot be called the contract's way."""
    taken = {name: _keywords_taken(llm, name, owner) for name in CONTRACT_KEYWORDS}
    return ContractFit(chat=taken["chat"], structured=taken["structured"])


def _method(llm: object, name: str, owner: str) -> object:
    kind = type(llm).__name__
    if not hasattr(llm, name):
        raise ConfigurationError(
            f"{owner} got a {kind} without a {name}() method. A model object needs "
            "chat() and structured() (the model contract in stagehand_py.llm)."
        )
    method = getattr(llm, name)
    if not callable(method):
        raise ConfigurationError(
            f"{owner} got a {kind} whose {name} is a {type(method).__name__}, not a "
            "method. A model object needs chat() and structured() methods (the model contract "
            "in stagehand_py.llm)."
        )
    return method


def _keywords_taken(llm: object, name: str, owner: str) -> frozenset[str]:
    method = _method(llm, name, owner)
    keywords = CONTRACT_KEYWORDS[name]
    try:
        parameters = list(inspect.signature(method).parameters.values())  # type: ignore[arg-type]
    except (TypeError, ValueError):  # no signature to read (a builtin): called as documented
        return frozenset(keywords)
    where = f"{owner}: {type(llm).__name__}.{name}()"
    positional = [p for p in parameters if p.kind in _POSITIONAL]
    if len(positional) < 2 and not any(p.kind is p.VAR_POSITIONAL for p in parameters):
        raise ConfigurationError(
            f"{where} takes {len(positional)} positional parameter(s); the model contract "
            f"calls it with two: {name}(messages, {_SECOND_ARGUMENT[name]}, ...)."
        )
    passed = {id(p) for p in positional[:2]}  # messages and tools (or schema)
    for parameter in parameters:
        variadic = parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD)
        if id(parameter) in passed or variadic or parameter.name in keywords:
            continue
        if parameter.default is parameter.empty:
            raise ConfigurationError(
                f"{where} requires the parameter {parameter.name!r}, which the model contract "
                f"never passes. Give it a default, or remove it (the contract: {name}("
                f"messages, {_SECOND_ARGUMENT[name]}, *, {'=..., '.join(keywords)}=...))."
            )
    if any(p.kind is p.VAR_KEYWORD for p in parameters):
        return frozenset(keywords)
    by_keyword = {p.name for p in parameters if p.kind in _BY_KEYWORD}
    return frozenset(k for k in keywords if k in by_keyword)
