"""act()'s model requests: the model, made on first need; the act request, with emergency
mode's check before it; and the verifier's. Each is bounded by the run's deadline and counted
(see :func:`~..llm.accounting.ask_counted`); a model that fails for good, or runs out of time,
ends the run with what was done so far.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable

from ..._errors import (
    IncompleteOutputError,
    ProviderError,
    StructuredOutputError,
)
from ..._snapshot import Snapshot
from ..._types import Verification
from ...llm._messages import ChatResponse, Message
from ...llm._model_string import no_model_configured
from ...llm._options import request_options
from ...llm._request_context import RequestContext, request_context
from ...prompts.act import ACT_TOOLS, VerifyAnswer, build_verify_messages
from .._deadline import DeadlineExceeded, compute_in_time
from ..llm.accounting import AnswerT, ask_counted
from ..llm.base import AsyncLLM
from .state import ActState, StopAct

logger = logging.getLogger("stagehand_py")
# Model errors that end the run with a failed result; any other LLMError (a fake out of
# answers, real requests blocked in a test) propagates.
_FAILED_FOR_GOOD = (ProviderError, StructuredOutputError, IncompleteOutputError)


class ActAsking(ActState):
    """The model requests of one act() (the loop is :class:`~.loop.AsyncActRun`)."""

    async def _model(self) -> AsyncLLM:
        """The model, created on first need (a cache replay or an observed action needs none).

        Creating it can import the provider's SDK (1-3 s on a loaded machine): that runs in a
        thread under the deadline, never on the event loop where the deadline cannot end it."""
        source = self._llm_source
        if source is None:
            raise no_model_configured("act()")
        if not isinstance(source, AsyncLLM):
            asked = time.monotonic()
            try:
                source = await compute_in_time(source)
            except DeadlineExceeded:
                self._model_s += time.monotonic() - asked
                raise StopAct(self._timeout_message("model"), "TIMEOUT") from None
            self._model_s += time.monotonic() - asked
            self._llm_source = source
        return source

    async def _chat(self, messages: list[Message]) -> ChatResponse:
        self.check_time()
        llm = await self._model()
        self.escalate_if_due(llm.model)
        return await self._ask(
            lambda: llm.chat(
                messages,
                ACT_TOOLS,
                tool_choice="required",
                options=request_options(self.settings, "act", timeout_s=self._remaining_s()),
            ),
            failed=lambda reason: f"{reason} ({len(self.steps)} action(s) taken)",
        )

    async def _ask(
        self, request: Callable[[], Awaitable[AnswerT]], *, failed: Callable[[str], str]
    ) -> AnswerT:
        """``request``'s answer within the run's time, counted (see ``ask_counted``). A model
        that failed for good, or ran out of time, ends the run with what was done so far;
        ``failed`` words the failure's message."""
        asked = time.monotonic()
        try:
            answer = await ask_counted(self, request, self._remaining_s())
        except (DeadlineExceeded, *_FAILED_FOR_GOOD) as error:
            self._model_s += time.monotonic() - asked
            cause = None if isinstance(error, DeadlineExceeded) else error
            if cause is None or self._remaining_s() <= 0:
                raise StopAct(self._timeout_message("model"), "TIMEOUT") from cause
            reason = self.variables.redact(str(error))
            raise StopAct(failed(reason), "MODEL_ERROR") from error
        self._model_s += time.monotonic() - asked
        return answer

    async def _verify(self, snapshot: Snapshot) -> Verification:
        text = self.variables.redact(snapshot.render_all(redact=self.variables.redact))
        if len(text) > self.settings.max_prompt_chars:
            text = text[: self.settings.max_prompt_chars] + "\n(page text cut here)"
        messages = build_verify_messages(self._said, steps=self._step_lines(), page_text=text)
        self.check_time()
        llm = await self._model()
        context = RequestContext("verify", self._said, snapshot, step=len(self.steps))
        with request_context(context):
            answer = await self._ask(
                lambda: llm.structured(
                    messages,
                    VerifyAnswer,
                    max_retries=1,
                    options=request_options(self.settings, "verify", timeout_s=self._remaining_s()),
                ),
                failed=lambda reason: f"Checking the result failed: {reason}",
            )
        verification = Verification(
            completed=answer.value.completed, reason=self.variables.redact(answer.value.reason)
        )
        self.verifications.append(verification)
        logger.info(
            "stagehand_py: verify %s: %s",
            "done" if verification.completed else "not yet",
            verification.reason,
        )
        return verification

    @property
    def _said(self) -> str:
        return self.variables.redact(self.instruction)

    def _step_lines(self) -> list[str]:
        return [self.variables.redact(s.record.description) for s in self.steps]
