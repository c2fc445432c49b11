"""The user-facing locator Playwright's own codegen picks for an element, read when an action
is recorded (before it runs, while the element is as the model saw it).

Playwright's selector generator (``Locator.normalize()``) ranks test id, role and accessible
name, placeholder, label, alt text, title and text, and returns a selector that finds exactly
that element, adding a position (``nth=``) or a parent only when none does alone. One call
into the page; what it returns is kept only when it is one ``get_by_*`` call (no position, no
chain), quotes no value of a variable and holds no placeholder. Anything else, and an element
Playwright cannot see (inside a closed shadow root), gives None: the generated code falls
back to the step's most durable selector.
"""

from __future__ import annotations

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Locator as AsyncLocator

from ..._variables import Variables
from ...codegen import user_facing_call

# How a located element's selector names its frames: "<iframe> >> internal:control=enter-frame
# >> <inside>"; the step keeps its frames apart, so only the part inside the last one counts.
_ENTER_FRAME = " >> internal:control=enter-frame >> "


async def user_facing_selector(locator: AsyncLocator, variables: Variables) -> str | None:
    """The user-facing selector for ``locator``'s element (see the module docstring)."""
    if not hasattr(locator, "_impl_obj"):  # our own locator for a closed shadow root
        return None
    try:
        normalized = await locator.normalize()
    except PlaywrightError:  # gone, or more than one element: nothing to name
        return None
    # Playwright keeps a locator's selector string private (its repr shows it).
    selector = getattr(normalized._impl_obj, "_selector", None)
    if not isinstance(selector, str):
        return None
    inside = selector.rsplit(_ENTER_FRAME, 1)[-1]
    if user_facing_call(inside) is None or not variables.without_secrets([inside]):
        return None
    return inside
