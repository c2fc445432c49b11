// What a secret's target field is, for the secret scope check (stagehand_py/_secret_scope.py).
// Run on the element's handle: (element) => facts. Only page-written facts come from here
// (attributes, labels, form targets); the field's origin comes from Playwright's frame.
(element) => {
  const attr = (name) => (element.getAttribute && element.getAttribute(name)) || "";
  const text = (node) => ((node && (node.innerText || node.textContent)) || "").trim().slice(0, 200);
  const labels = [];
  if (element.labels) {
    for (const label of element.labels) labels.push(text(label));
  }
  for (const id of attr("aria-labelledby").split(/\s+/).filter(Boolean)) {
    labels.push(text(element.ownerDocument.getElementById(id)));
  }
  const form = element.form || (element.closest && element.closest("form"));
  // Where the form sends its data: its action and any submit button's formaction, resolved
  // against the document (a form without an action submits to the document's own URL).
  const targets = [];
  const resolve = (value) => {
    try {
      return new URL(value, element.ownerDocument.baseURI).href;
    } catch (error) {
      return "invalid:" + value;
    }
  };
  if (form) {
    targets.push(resolve(form.getAttribute("action") || element.ownerDocument.URL));
    for (const button of form.querySelectorAll("[formaction]")) {
      targets.push(resolve(button.getAttribute("formaction")));
    }
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
    formTargets: targets,
  };
}
