// Shared part: the role and name of an element inside a closed shadow root, which
// Playwright's accessibility tree does not see. The aria view lists such elements with this
// role and name (dom/aria_page), and its re-check of a located element compares them again
// (dom/closed_node, stagehand_py/_async/browser/closed_shadow.py): one definition for both.
// A plain subset of the ARIA rules: explicit role, else the implicit role of the common
// controls; name from aria-label, the element's own labels, its text, placeholder or title.

const CLOSED_IMPLICIT = {
  a: "link", button: "button", select: "combobox", textarea: "textbox", summary: "button",
  h1: "heading", h2: "heading", h3: "heading", h4: "heading", h5: "heading", h6: "heading",
};
const CLOSED_INPUT_ROLES = {
  checkbox: "checkbox", radio: "radio", button: "button", submit: "button", reset: "button",
  image: "button", range: "slider", number: "spinbutton", search: "searchbox",
};
// Roles whose name is their text (ARIA "name from content").
const CLOSED_NAMED_BY_TEXT = new Set(["button", "link", "heading", "checkbox", "radio", "tab",
  "menuitem", "option", "treeitem"]);

function closedRole(el) {
  const explicit = (el.getAttribute("role") || "").trim().split(/\s+/)[0];
  if (explicit) return explicit;
  const tag = el.localName;
  if (tag === "input") return el.type === "hidden" ? "" : CLOSED_INPUT_ROLES[el.type] || "textbox";
  if (tag === "a") return el.hasAttribute("href") ? "link" : "generic";
  return CLOSED_IMPLICIT[tag] || "generic";
}

function closedName(el) {
  const squash = (s) => (s || "").replace(/\s+/g, " ").trim();
  const label = squash(el.getAttribute("aria-label"));
  if (label) return label;
  const root = el.getRootNode();
  const id = el.getAttribute("id");
  const labels = [];
  if (id && root.querySelectorAll) {
    for (const l of root.querySelectorAll("label[for]")) if (l.htmlFor === id) labels.push(l);
  }
  const wrapping = el.closest("label");
  if (wrapping && !labels.includes(wrapping)) labels.push(wrapping);
  if (labels.length) return squash(labels.map((l) => l.textContent).join(" "));
  if (CLOSED_NAMED_BY_TEXT.has(closedRole(el))) {
    const text = squash(el.textContent);
    if (text) return text;
  }
  return squash(el.getAttribute("placeholder") || el.getAttribute("title") ||
    el.getAttribute("alt") || "");
}
