// What a secret's target field looks like, for the plausibility rules of the secret scope
// check (stagehand_py/_secret_scope.py): its tag, type, labels and so on, read in one call.
// Three ways to run it:
//   on the element's handle, (element) => facts;
//   on a locator's matches with evaluate_all, (elements) => [facts of each] (no handle);
//   as an installed page script, ({xpath}) => facts of the one element the XPath finds in this
//   document, or null (none or several). This needs no Playwright selector engine in the page's
//   world, which Playwright sets up on first use in each document (15-25 ms).
// This runs in the page's own world, so a page script could disguise these facts; that cannot
// send a value anywhere new (the page's own script can read its fields anyway). Where a value
// may GO (the frame's origin, the form's targets) is read by secret_guard.py through
// Playwright's isolated world instead, never here.
(target) => {
  if (Array.isArray(target)) return target.map((element) => factsOf(element));
  if (!(target instanceof Element)) return factsOfOne(target.xpath);
  return factsOf(target);
  function factsOfOne(xpath) {
    let found;
    try {
      found = document.evaluate(xpath, document, null, XPathResult.ORDERED_NODE_SNAPSHOT_TYPE);
    } catch (error) {
      return null;
    }
    // Playwright's XPath engine keeps only elements; so does this.
    const elements = [];
    for (let i = 0; i < found.snapshotLength; i++) {
      const node = found.snapshotItem(i);
      if (node.nodeType === Node.ELEMENT_NODE) elements.push(node);
    }
    return elements.length === 1 ? factsOf(elements[0]) : null;
  }
  function factsOf(element) {
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
      form: attr("form"),
      placeholder: attr("placeholder"),
      ariaLabel: attr("aria-label"),
      labels,
      inSearchForm: search,
    };
  }
}

