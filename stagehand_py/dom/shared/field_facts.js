// Shared part: what a secret's target field looks like, for the plausibility rules of the
// secret scope check (stagehand_py/_secret_scope.py): its tag, type, labels and so on. Included
// by dom/field_facts (the check's own read) and dom/fingerprint (a cache replay's element
// check, which reads these in the same call).
//
// This runs in the page's own world, so a page script could disguise these facts; that cannot
// send a value anywhere new (the page's own script can read its fields anyway). Where a value
// may GO (the frame's origin, the form's targets) is read by secret_guard.py through
// Playwright's isolated world instead, never here.
function fieldFacts(element) {
  const attr = (name) => (element.getAttribute && element.getAttribute(name)) || "";
  const text = (node) => ((node && (node.innerText || node.textContent)) || "").trim().slice(0, 200);
  const labels = [];
  if (element.labels) {
    for (const label of element.labels) labels.push(text(label));
  }
  for (const id of attr("aria-labelledby").split(/\s+/).filter(Boolean).slice(0, 10)) {
    labels.push(text(element.ownerDocument.getElementById(id)));
  }
  const search = !!(element.closest && element.closest('search, [role="search" i]'));
  return {
    tag: (element.tagName || "").toLowerCase(),
    type: (attr("type") || (element.isContentEditable ? "contenteditable" : "")).toLowerCase(),
    role: attr("role").toLowerCase(),
    autocomplete: attr("autocomplete").toLowerCase(),
    name: attr("name"),
    id: attr("id"),
    placeholder: attr("placeholder"),
    ariaLabel: attr("aria-label"),
    labels,
    inSearchForm: search,
  };
}

// The elements an XPath finds in this document (Playwright's XPath engine keeps only
// elements; so does this). Throws on a malformed XPath.
function elementsByXPath(xpath) {
  const found = document.evaluate(xpath, document, null, XPathResult.ORDERED_NODE_SNAPSHOT_TYPE);
  const elements = [];
  for (let i = 0; i < found.snapshotLength; i++) {
    const node = found.snapshotItem(i);
    if (node.nodeType === Node.ELEMENT_NODE) elements.push(node);
  }
  return elements;
}
