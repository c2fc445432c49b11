"""Secret values the suite passes as variables; the log scan in conftest checks none leaks."""

from urllib.parse import quote, quote_plus

EMAIL = "ada.lovelace@analytical.test"
PASSWORD = "Hunter2-Sup3r-S3cret!"
PHONE = "+44 20 7946 0958"

ALL = (EMAIL, PASSWORD, PHONE)


def derived_forms(value: str) -> set[str]:
    """The value as a URL, a form body or a case-folding page would carry it."""
    encoded = {quote(value, safe=""), quote(value), quote_plus(value)}
    return {value, value.lower(), value.upper(), *encoded, *(e.lower() for e in encoded)}


# Every form of every value, for scans of logs, requests and artefacts.
FORMS = tuple(sorted({form for value in ALL for form in derived_forms(value)}))
