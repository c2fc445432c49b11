"""One check of the model contract: ``chat()`` and ``structured()``, async or not."""

from __future__ import annotations

import inspect

from .._errors import ConfigurationError


def check_llm_flavour(llm: object, *, owner: str, wants_async: bool) -> None:
    """Refuse a sync model client in an async Stagehand and the reverse, up front.

    Otherwise the mistake shows much later as "object ChatResponse can't be used in 'await'
    expression" (or a coroutine where a response was expected). An object may declare its
    flavour with an ``is_async`` attribute; otherwise ``chat`` being ``async def`` decides.
    """
    chat = getattr(llm, "chat", None)
    if not callable(chat) or not callable(getattr(llm, "structured", None)):
        raise ConfigurationError(
            f"{owner}(llm=...) needs an object with chat() and structured() methods (the model "
            f"contract in stagehand_py.llm); got a {type(llm).__name__}."
        )
    declared = getattr(llm, "is_async", None)
    is_async = declared if isinstance(declared, bool) else inspect.iscoroutinefunction(chat)
    if is_async == wants_async:
        return
    name = type(llm).__name__
    if wants_async:
        twin = f"Async{name}" if not name.startswith("Async") else name
        raise ConfigurationError(
            f"{owner}(llm=...) got the synchronous model client {name}, whose chat() is not "
            f"async. Use its async twin ({twin}) with AsyncStagehand, or use Stagehand."
        )
    twin = name.removeprefix("Async") or name
    raise ConfigurationError(
        f"{owner}(llm=...) got the asynchronous model client {name}, whose chat() is async. "
        f"Use its sync twin ({twin}) with Stagehand, or use AsyncStagehand."
    )
