// What a secret's target field looks like, for the plausibility rules of the secret scope
// check (stagehand_py/_secret_scope.py): its tag, type, labels and so on, read in one call.
// Run on the element's handle, (element) => facts, or on a locator's matches with
// evaluate_all, (elements) => [facts of each] (one round trip, no handle). This runs in the page's own world, so a
// page script could disguise these facts; that cannot send a value anywhere new (the page's
// own script can read its fields anyway). Where a value may GO (the frame's origin, the form's
// targets) is read by secret_guard.py through Playwright's isolated world instead, never here.
(target) => {
  if (Array.isArray(target)) return target.map((element) => factsOf(element));
  return factsOf(target);
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

