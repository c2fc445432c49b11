"""Pure checks on the elements a doAction targets, the same in both snapshot modes.

- :func:`offered`: the element numbers of a part of the page the model may act on. A disabled
  control, or an element without any selector (in accessibility-tree mode: no rung of its
  ladder resolved to exactly it), is shown but never offered, so choosing it is an unusable
  reply, never a guess; :func:`refused` says why, for the re-ask. A disabled element still
  takes ``scroll`` (:data:`~stagehand_py._act_decision.METHODS_ON_DISABLED`).
- :func:`canvas_choice`: a doAction on a ``<canvas>`` ends the act with CANVAS_UNSUPPORTED (the
  ADR forbids coordinate clicks and image recognition, so nothing inside one can be reached).
- :func:`same_element`: the element of a fresh snapshot that is the one the model chose in an
  older one (same tag, role, name and text, and the only such element), so an action whose
  element was re-rendered under it is retried without asking the model again (the ADR's
  "fallback without the LLM"). A changed name (a new price on a Pay button) is not the same
  element: that goes back to the model.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ._act_decision import DISABLED_REASON, METHODS_ON_DISABLED, Decision, DoAction
from ._snapshot import Element, Snapshot


def refusal(element: Element, method: str | None = None) -> str | None:
    """Why a shown element cannot be acted on (by ``method``, when given), or None when it can.

    A disabled element is refused every method but ``scroll``: a wheel still scrolls a
    disabled textarea, and that may be what enables its form."""
    if not element.selectors:
        return "has no locator that finds exactly it on the page"
    if element.disabled or "disabled" in element.attributes:
        return None if method in METHODS_ON_DISABLED else DISABLED_REASON
    return None


def _numbers(snapshot: Snapshot, chunk_indexes: Iterable[int]) -> list[int]:
    """The element numbers of the chunks ``chunk_indexes``."""
    wanted = set(chunk_indexes)
    return [i for c in snapshot.chunks if c.index in wanted for i in c.element_indexes]


def refused(snapshot: Snapshot, chunk_indexes: Iterable[int]) -> dict[int, str]:
    """The elements of ``chunk_indexes`` shown to the model but not offered, with the reason
    (fed back when the model picks one: a disabled control, or one with no unique locator)."""
    reasons = ((i, refusal(snapshot.element(i))) for i in _numbers(snapshot, chunk_indexes))
    return {i: reason for i, reason in reasons if reason is not None}


def offered(snapshot: Snapshot, chunk_indexes: Iterable[int]) -> set[int]:
    """Numbers of the elements of ``chunk_indexes`` the model may act on: enabled, with at
    least one selector."""
    numbers = _numbers(snapshot, chunk_indexes)
    return {i for i in numbers if refusal(snapshot.element(i)) is None}


def is_canvas(element: Element) -> bool:
    return element.tag == "canvas" or element.role == "canvas"


def canvas_choice(snapshot: Snapshot, decisions: Sequence[Decision]) -> Element | None:
    """The first canvas a doAction of the reply targets (element or drop target), if any."""
    for decision in decisions:
        if not isinstance(decision, DoAction):
            continue
        for index in (decision.element, decision.target):
            if index is not None and is_canvas(snapshot.element(index)):
                return snapshot.element(index)
    return None


def canvas_message(element: Element, url: str) -> str:
    size = element.attributes.get("size") or (
        f"{element.box.width:.0f}x{element.box.height:.0f}" if element.box else "unknown size"
    )
    name = f" {element.name!r}" if element.name else ""
    return (
        f"The target is drawn inside the canvas{name} ({size}) on {url}: what a canvas draws "
        "has no elements, and act() does not click coordinates or read images. Use the page's "
        "own controls or an API for this step."
    )


# Attributes that say what a control is (never its state, value or generated id).
_KIND_ATTRIBUTES = ("type", "name", "role", "placeholder", "aria-label", "href", "url")


def _identity(element: Element) -> tuple[object, ...]:
    kind = tuple(element.attributes.get(a, "") for a in _KIND_ATTRIBUTES)
    return (element.view, element.tag, element.role, element.name, element.text, kind)


def same_element(old: Element, fresh: Snapshot) -> int | None:
    """The number in ``fresh`` of the element ``old`` was, when exactly one element has the
    same tag, role, name, text and kind attributes (type, name, placeholder, label, link
    target); an element without a name or text is never matched (nothing tells two apart)."""
    if not (old.name or old.text):
        return None
    key = _identity(old)
    found = [e for e in fresh.elements if _identity(e) == key and e.selectors]
    return found[0].index if len(found) == 1 else None


__all__ = ["canvas_choice", "canvas_message", "is_canvas", "offered", "same_element"]
