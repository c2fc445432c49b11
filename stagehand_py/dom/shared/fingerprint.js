// Shared part: the raw fields of a live element, in the shape the DOM serializer reports
// ({tag, text, attributes, role, name}). Python turns them into an ElementFingerprint with the
// same recipe it uses for serialized elements, so the two agree.
function fingerprintFields(el) {
  // Only what a fingerprint keeps (KEY_ATTRIBUTES in _fingerprint.py), plus contenteditable,
  // which tells Python to ignore user-typed text. `value` is never read: it may be a secret.
  const KEPT = [
    "id", "name", "type", "role", "placeholder", "aria-label", "title", "alt", "href",
    "data-testid", "data-test-id", "data-test", "data-qa", "data-cy", "contenteditable",
  ];
  const TEXT_LIMIT = 400; // Python trims the name to 100 characters at a word boundary
  const attributes = {};
  for (const name of KEPT) {
    const value = el.getAttribute(name);
    if (value !== null) attributes[name] = value;
  }
  const tag = el.localName.toLowerCase();
  // Inputs hold typed values, a select's text is all its options: Python ignores both.
  // The attribute, not isContentEditable: Python sees only attributes, and must agree.
  const editable = el.hasAttribute("contenteditable") &&
    el.getAttribute("contenteditable").trim().toLowerCase() !== "false";
  const userText = ["input", "textarea", "select"].includes(tag) || editable;
  const raw = userText ? "" : (el.textContent || "").slice(0, TEXT_LIMIT * 4);
  const text = raw.replace(/\s+/g, " ").trim().slice(0, TEXT_LIMIT);
  return {
    tag,
    text,
    attributes,
    role: (el.getAttribute("role") || "").trim().split(/\s+/)[0].toLowerCase(),
    name: (el.getAttribute("aria-label") || "").replace(/\s+/g, " ").trim(),
  };
}
