"""OpenTelemetry spans for the SDK's work: one per public call, one per model request and one
per page action, nested as they run.

Spans go through ``opentelemetry-api`` when it is installed (the ``otel`` extra). The
application's tracer provider decides where they go; with none configured, the API records
nothing. Without the package, nothing is imported and nothing is emitted: every span here is
then an object that does nothing.

Every string attribute, the status and the error event pass the call's ``redact`` before they
leave, so no value given as a variable reaches a collector. A page is named by its origin
only, never its full URL (a GET form puts what was typed into the query string).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import TracebackType
from typing import Any
from urllib.parse import urlsplit

from ._error_line import first_line

TRACER_NAME = "stagehand_py"
# Characters kept of a string attribute: spans are for dashboards, not transcripts.
MAX_ATTRIBUTE_CHARS = 300

AttributeValue = str | bool | int | float

_api: Any = None  # the ``opentelemetry.trace`` module once looked up, False when absent


def _trace_api() -> Any:
    """``opentelemetry.trace``, or None when the package is not installed (looked up once)."""
    global _api
    if _api is None:
        try:
            from opentelemetry import trace
        except ImportError:
            _api = False
        else:
            _api = trace
    return _api or None


def page_origin(url: str) -> str:
    """``https://shop.example:8443`` for any URL of that origin; ``""`` when it has none."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return ""
    host = parts.netloc.rsplit("@", 1)[-1].lower()  # never the user name or password
    return f"{parts.scheme}://{host}" if parts.scheme and host else ""


class Span:
    """``with Span("stagehand.act", redact, attributes):`` one span while the block runs.

    :meth:`set` adds attributes as they become known and :meth:`fail` marks the span failed.
    An exception that leaves the block fails the span too, if :meth:`fail` did not."""

    def __init__(
        self,
        name: str,
        redact: Callable[[str], str],
        attributes: Mapping[str, AttributeValue | None] | None = None,
    ) -> None:
        self.name = name
        self._redact = redact
        self._attributes = dict(attributes or {})
        self._opened: Any = None  # the API's context manager, while the span is current
        self._span: Any = None
        self._failed = False

    def __enter__(self) -> Span:
        trace = _trace_api()
        if trace is not None:
            tracer = trace.get_tracer(TRACER_NAME)
            self._opened = tracer.start_as_current_span(
                self.name, record_exception=False, set_status_on_exception=False
            )
            self._span = self._opened.__enter__()
            self.set(self._attributes)
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if self._opened is None:
            return
        if exc is not None and not self._failed:
            self.fail(exc)
        opened, self._opened = self._opened, None
        opened.__exit__(None, None, None)

    @property
    def recording(self) -> bool:
        return self._span is not None and bool(self._span.is_recording())

    def set(self, attributes: Mapping[str, AttributeValue | None]) -> None:
        """Add ``attributes``: strings redacted and cut, ``None`` left out."""
        if not self.recording:
            return
        for key, value in attributes.items():
            if value is None:
                continue
            self._span.set_attribute(key, self._text(value) if isinstance(value, str) else value)

    def fail(self, error: BaseException) -> None:
        """Mark the span failed: the error's type, its code when it has one, and its first
        line, redacted (the traceback is not recorded: it can hold the page's text)."""
        self.failed(type(error).__name__, first_line(error), getattr(error, "code", None))

    def failed(self, kind: str, message: str, code: object = None) -> None:
        """Mark the span failed by a ``kind`` of failure (an error's type), saying
        ``message`` (redacted), with a machine-readable ``code`` when there is one."""
        self._failed = True
        if not self.recording:
            return
        from opentelemetry.trace import Status, StatusCode

        line = self._text(message)
        self.set({"error.type": kind, "stagehand.error.code": _code(code)})
        self._span.add_event("exception", {"exception.type": kind, "exception.message": line})
        self._span.set_status(Status(StatusCode.ERROR, line))

    def _text(self, value: str) -> str:
        line = " ".join(self._redact(value).split())
        return line if len(line) <= MAX_ATTRIBUTE_CHARS else line[: MAX_ATTRIBUTE_CHARS - 1] + "…"


def _code(code: object) -> str | None:
    return code if isinstance(code, str) and code else None
