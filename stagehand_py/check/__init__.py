"""check(): a statement about the page, judged by the model once and compiled into Playwright
assertions that replay with no model call (pure: the models, the allow-list, the strength
rules; the browser side lives in ``stagehand_py._async.check``)."""

from ._assertions import ASSERTION_KINDS, AssertionKind, CheckAssertion
from ._result import CheckResult

__all__ = ["ASSERTION_KINDS", "AssertionKind", "CheckAssertion", "CheckResult"]
