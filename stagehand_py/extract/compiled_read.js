// Browser side of a compiled extract(): every read of an entry in one call.
//
// Called as `frame.evaluate(src, spec)` with
//   spec = {fields: [read], lists: [{container, fields: [read]}], probe: [xpath]}
//   read = {xpath, read: "text" | "attribute" | "value" | "checked", attribute}
// Paths are positional XPaths (absolute; below a list container they are relative, "" being
// the container itself). Returns one JSON string:
//   {base, fields: [cell], lists: [[[cell] per field] per container match], probe: [facts]}
// where a cell is null (no element there) or {tag, raw}; `probe` gives, for each path, what
// the compiler may read from that element (its text, value, checked state, attributes).
(spec) => {
  const byPath = (path, context) => {
    const found = document.evaluate(
      path, context, null, XPathResult.ORDERED_NODE_SNAPSHOT_TYPE, null,
    );
    const nodes = [];
    for (let i = 0; i < found.snapshotLength; i += 1) nodes.push(found.snapshotItem(i));
    return nodes;
  };
  const first = (path, context) => {
    const nodes = byPath(path, context);
    return nodes.length ? nodes[0] : null;
  };
  const textOf = (el) => {
    const shown = typeof el.innerText === "string" ? el.innerText : "";
    return shown.trim() ? shown : el.textContent || "";
  };
  const checkedOf = (el) =>
    el instanceof HTMLInputElement && (el.type === "checkbox" || el.type === "radio")
      ? el.checked
      : null;
  const valueOf = (el) =>
    el instanceof HTMLInputElement && el.type === "password"
      ? null
      : "value" in el && typeof el.value === "string" ? el.value : null;
  const readOf = (el, read) => {
    if (read.read === "text") return textOf(el);
    if (read.read === "value") return valueOf(el);
    if (read.read === "checked") return checkedOf(el);
    return el.getAttribute(read.attribute);
  };
  const cell = (el, read) =>
    el === null || el.nodeType !== 1
      ? null
      : { tag: el.localName, classes: [...el.classList], raw: readOf(el, read) };
  const facts = (el) => {
    if (el === null || el.nodeType !== 1) return null;
    const attrs = {};
    for (const attr of el.attributes) attrs[attr.name] = attr.value;
    return {
      tag: el.localName, text: textOf(el), value: valueOf(el), checked: checkedOf(el), attrs,
    };
  };
  const relative = (path) => (path ? "." + path : ".");
  const out = {
    base: document.baseURI,
    fields: (spec.fields || []).map((read) => cell(first(read.xpath, document), read)),
    lists: (spec.lists || []).map((list) =>
      byPath(list.container, document).map((item) =>
        list.fields.map((read) => cell(first(relative(read.xpath), item), read)),
      ),
    ),
    probe: (spec.probe || []).map((path) => facts(first(path, document))),
  };
  return JSON.stringify(out);
}
