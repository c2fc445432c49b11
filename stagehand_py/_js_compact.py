"""Shrink a browser-side script before it is sent: drop comment lines and indentation.

The scripts are written to be read (long comments, nested indentation); the page needs
neither, and a Playwright trace records every byte sent. Only whole-line ``//`` comments and
leading whitespace go, which cannot change what the code does, as long as no string spans
lines: a script with a line that opens a template literal without closing it, or that ends
in a backslash continuation, is left as it is.
"""

from __future__ import annotations


def compact_js(source: str) -> str:
    """``source`` without whole-line ``//`` comments, blank lines and indentation."""
    lines = source.splitlines()
    code = [line for line in lines if not line.lstrip().startswith("//")]
    if any(line.count("`") % 2 or line.rstrip().endswith("\\") for line in code):
        return source  # a string spans lines: stripping could change it
    return "\n".join(line.strip() for line in code if line.strip())
