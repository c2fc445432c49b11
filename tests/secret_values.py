"""Secret values the suite passes as variables; the log scan in conftest checks none leaks."""

EMAIL = "ada.lovelace@analytical.test"
PASSWORD = "Hunter2-Sup3r-S3cret!"
PHONE = "+44 20 7946 0958"

ALL = (EMAIL, PASSWORD, PHONE)
