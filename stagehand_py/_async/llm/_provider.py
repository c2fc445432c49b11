"""What the provider clients share: sending a body through the SDK's client (its own retries
off), one :class:`AsyncExchange` per call, reading the SDK's exceptions, and the token budget.

Each provider module names its SDK's exception classes and API path; no SDK is imported here.
"""

from __future__ import annotations

import os
from abc import abstractmethod
from collections.abc import Callable
from typing import Any, ClassVar

import httpx2

from ..._errors import MissingAPIKeyError
from ...llm._error_text import server_message
from ...llm._messages import ChatResponse, RequestOptions
from ...llm._reply import Reply
from ...llm._retry import Failure, failure_from_status
from ._exchange import AsyncExchange
from .base import AsyncModel

# Sent as the key to servers that need none (local, self-hosted, a proxy): the SDKs insist.
PLACEHOLDER_KEY = "not-needed"


class AsyncProviderLLM(AsyncModel):
    """The model contract over a provider SDK's client (see the subclasses)."""

    path: ClassVar[str]  # the API path requests are posted to
    api_error: ClassVar[type[Exception]]  # every error the SDK raises for a request
    timeout_error: ClassVar[type[Exception]]
    status_error: ClassVar[type[Exception]]  # an HTTP error status (with body and headers)
    truncation: ClassVar[str]  # how the API says "cut off", for messages
    provider_name: ClassVar[str]  # for messages
    key_variable: ClassVar[str]  # the environment variables of the API key and base URL
    base_url_variable: ClassVar[str]

    _client: Any  # the SDK's async client
    _timeout: float
    _max_retries: int
    _max_tokens: int | None

    def _connect(
        self,
        client: Callable[..., Any],
        model: str,
        *,
        api_key: str | None,
        base_url: str | None,
        timeout: float,
        max_retries: int,
        max_tokens: int | None,
    ) -> str | None:
        """Open the SDK's client with its own retries off (``max_retries`` are this package's).
        The key and base URL default to the provider's environment variables; a key is
        required by the provider's own host only. Returns the base URL (None: the SDK's)."""
        self.model = model
        self._max_tokens = max_tokens
        base = base_url or os.environ.get(self.base_url_variable) or None
        key = api_key or os.environ.get(self.key_variable)
        if not key:
            if base is None or self._own_host(base):
                raise MissingAPIKeyError(self.provider_name, self.key_variable)
            key = PLACEHOLDER_KEY
        self._client = client(api_key=key, base_url=base, timeout=timeout, max_retries=0)
        self._timeout = timeout
        self._max_retries = max_retries
        return base

    @staticmethod
    @abstractmethod
    def _own_host(base_url: str) -> bool:
        """Whether ``base_url`` is the provider's own service (which requires a key)."""

    @property
    def endpoint(self) -> str:
        return f"{str(self._client.base_url).rstrip('/')}{self.path}"

    def _exchange(self, options: RequestOptions | None) -> AsyncExchange:
        return AsyncExchange(
            model=self.model,
            endpoint=self.endpoint,
            timeout=self._timeout,
            max_retries=self._max_retries,
            options=options,
            api_errors=(self.api_error,),
            classify=self._failure,
            truncation=self.truncation,
        )

    def _failure(self, error: Exception) -> Failure:
        """What went wrong, from the SDK's exception."""
        if isinstance(error, self.timeout_error):
            return Failure("timeout")
        if isinstance(error, self.status_error):
            status: Any = error
            message = server_message(status.body, "")
            return failure_from_status(status.status_code, message, status.response.headers)
        return Failure("connection", message=str(error.__cause__ or error))

    async def _post(self, body: dict[str, Any], timeout: float) -> bytes:
        response = await self._client.post(
            self.path,
            cast_to=httpx2.Response,
            body=body,
            options={"timeout": timeout, "max_retries": 0},
        )
        content: bytes = response.content
        return content

    def _budget(self, options: RequestOptions | None) -> int | None:
        """The request's own token budget, else the client's."""
        return options.max_tokens if options and options.max_tokens else self._max_tokens

    def _chat_response(self, exchange: AsyncExchange, reply: Reply) -> ChatResponse:
        return ChatResponse(
            tool_calls=reply.tool_calls,
            text=reply.text,
            usage=exchange.total(),
            model=reply.model or self.model,
        )
