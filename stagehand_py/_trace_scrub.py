"""Rewrite a Playwright trace archive without the secrets a test typed.

What Playwright records (a zip; checked on traces recorded with Playwright 1.65):

- ``trace.trace`` (JSON lines): every API call's ``params`` (``fill``'s ``value``,
  ``goto``'s ``url``), its ``log`` lines (``fill("...")``), and DOM snapshots
  (``frame-snapshot``) with each input's current value (``__playwright_value_``), the
  frame's URL and ``<base href>``;
- ``trace.network`` (JSON lines, HAR-like): request URLs with their query strings, headers
  and form bodies (``email=ada%40example.com``);
- ``resources/``: response bodies and snapshot resources, stored as received;
- ``src/``: the source files of the calling test (``tracing.start(sources=True)``), which
  hold any value written literally in the test;
- ``screencast/*.jpeg``: screenshots. They are pixels: a value shown on screen (an email
  field, not a password field's dots) is visible in them, and no byte search finds it.
  ``drop_screenshots=True`` removes them.

Text members (UTF-8) go through the same redactor as everything else (URL-, HTML- and
JSON-encoded forms, case, whitespace); binary members have each encoded form of a value
overwritten byte for byte. Values shorter than ``SHORT_VALUE_CHARS`` are replaced in text
as whole tokens only, and never in binary members (they would match image bytes at random).
The archive is rewritten to a temporary file next to it and renamed over it, so a reader
never sees half a file.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import zipfile
from collections.abc import Mapping
from pathlib import Path

from ._errors import ConfigurationError
from ._redaction import SHORT_VALUE_CHARS, Redactor, literal_forms
from ._secret import reveal
from ._variables import Variables

_SCREENSHOT_DIRS = ("screencast/",)


def _byte_forms(variables: Variables) -> list[bytes]:
    forms: set[bytes] = set()
    for value in variables.secret_values():
        raw = reveal(value).strip()
        if len(raw) < SHORT_VALUE_CHARS:
            continue
        for form in literal_forms(raw) | {raw.lower(), raw.upper()}:
            forms.add(form.encode("utf-8"))
    return sorted(forms, key=len, reverse=True)


def _scrub_member(data: bytes, redactor: Redactor, byte_forms: list[bytes]) -> bytes:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        text = None
    if text is not None:
        redacted = redactor.redact(text)
        return data if redacted == text else redacted.encode("utf-8")
    for form in byte_forms:
        if form in data:
            data = data.replace(form, b"*" * len(form))
    return data


def scrub_trace(
    path: str | os.PathLike[str],
    variables: Mapping[str, object] | Variables,
    *,
    drop_screenshots: bool = False,
) -> int:
    """Rewrite the Playwright trace at ``path`` with every value of ``variables`` replaced by
    its ``<|NAME|>`` placeholder (derived forms included), atomically.

    ``variables`` is what you passed to ``act()`` (plain values or :class:`Secret`).
    ``drop_screenshots`` also removes the screencast frames, which can show a typed value
    as pixels. Returns how many archive members were changed or removed."""
    trace = Path(path)
    if not zipfile.is_zipfile(trace):
        raise ConfigurationError(
            f"scrub_trace() needs a Playwright trace archive (a .zip file); {str(trace)!r} "
            "is not one."
        )
    values = Variables.of(variables)
    redactor = values.redactor
    if not redactor and not drop_screenshots:
        return 0
    byte_forms = _byte_forms(values)
    changed = 0
    handle, temporary = tempfile.mkstemp(prefix=f".{trace.name}.", dir=trace.parent)
    os.close(handle)
    try:
        with zipfile.ZipFile(trace) as source, zipfile.ZipFile(temporary, "w") as target:
            for info in source.infolist():
                if drop_screenshots and info.filename.startswith(_SCREENSHOT_DIRS):
                    changed += 1
                    continue
                data = source.read(info)
                scrubbed = _scrub_member(data, redactor, byte_forms) if redactor else data
                changed += scrubbed is not data
                target.writestr(info, scrubbed, compress_type=info.compress_type)
        shutil.copymode(trace, temporary)
        with open(temporary, "rb") as written:
            os.fsync(written.fileno())
        os.replace(temporary, trace)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return changed
