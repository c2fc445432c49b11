// The raw fields of live elements, in the shape the DOM serializer reports
// ({tag, text, attributes, role, name}). Python turns them into an ElementFingerprint with the
// same recipe it uses for serialized elements, so the two agree. Three ways to call it:
//   locator.evaluate(<this file>)      one element -> its fields;
//   locator.evaluate_all(<this file>)  all matches -> a list (count and fields in one trip);
//   page.evaluate(<this file>, {xpaths: [...]}) -> per XPath {count, fields} or {error}.
// The last is how a cache replay checks a step: plain page.evaluate needs only Playwright's
// small main-world helper, not its selector engine there (~25 ms to set up in each new
// document, on top of the utility-world one that fill/click use anyway).
(target) => {
  const one = (el) => {
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
  };
  if (Array.isArray(target)) return target.map(one);
  if (!Array.isArray(target.xpaths)) return one(target);
  return target.xpaths.map((xpath) => {
    let found;
    try {
      found = document.evaluate(xpath, document, null, XPathResult.ORDERED_NODE_SNAPSHOT_TYPE);
    } catch (error) {
      return { count: 0, error: String(error.message || error) };
    }
    // Playwright's XPath engine keeps only elements; so does this count.
    const elements = [];
    for (let i = 0; i < found.snapshotLength; i++) {
      const node = found.snapshotItem(i);
      if (node.nodeType === Node.ELEMENT_NODE) elements.push(node);
    }
    return { count: elements.length, fields: elements.length === 1 ? one(elements[0]) : null };
  });
}
