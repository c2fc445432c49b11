// Serializer part 2 (see 10_setup.js): string, XPath and DOM helpers shared by every part.
// Most texts need no change: a regex test is far cheaper than replace + trim on them.
const collapse = (s) => (/[^\S ]| {2}|^ | $/.test(s) ? s.replace(/\s+/g, " ").trim() : s);
const capText = (s, n) => {
  const t = collapse(s.length > n * 4 ? s.slice(0, n * 4) : s);
  return t.length > n ? t.slice(0, n - 1) + "…" : t;
};
// A raw page string for the wire: itself, or [its first `bound` characters, how many were cut]
// when longer (parse_snapshot records the cut so the rendering can say how much is missing).
const wireString = (s, bound) => (s.length > bound ? [s.slice(0, bound), s.length - bound] : s);
// XPath's normalize-space only collapses these four characters.
const xpathSpace = (s) =>
  /[\t\r\n]| {2}|^ | $/.test(s) ? s.replace(/[ \t\r\n]+/g, " ").replace(/^ | $/g, "") : s;
const xpathLiteral = (v) => {
  if (!v.includes('"')) return `"${v}"`;
  if (!v.includes("'")) return `'${v}'`;
  return "concat(" + v.split('"').map((p) => `"${p}"`).join(`, '"', `) + ")";
};
const cssString = (v) => '"' + v.replace(/\\/g, "\\\\").replace(/"/g, '\\"') + '"';
const plainName = (el) => el.namespaceURI === XHTML && /^[a-z][a-z0-9-]*$/.test(el.localName);
const xpathNames = new Map();
const xpathName = (el) => {
  const key = el.namespaceURI === XHTML ? el.localName : "\u0002" + el.localName;
  let name = xpathNames.get(key);
  if (name === undefined) {
    name = plainName(el) ? el.localName : `*[local-name()="${el.localName}"]`;
    xpathNames.set(key, name);
  }
  return name;
};
const hostOf = (node) => {
  const root = node.getRootNode();
  return root instanceof ShadowRoot ? root.host : null;
};
const deepParent = (el) => el.parentElement || hostOf(el);
const deepContains = (outer, inner) => {
  for (let n = inner; n; n = deepParent(n)) if (n === outer) return true;
  return false;
};
const addTo = (map, key, el) => {
  const list = map.get(key);
  if (list) list.push(el);
  else map.set(key, [el]);
};
const isDisabled = (el, bits) =>
  (FORM_TAGS.has(el.localName) && el.matches(":disabled")) ||
  ((bits & 128) !== 0 && el.getAttribute("aria-disabled") === "true");

// `bits`: the element's FLAG_BITS (see buildIndex).
function isInteractive(el, tag, bits) {
  if (tag === "input") return el.type !== "hidden";
  if (tag === "button" || tag === "select" || tag === "textarea" || tag === "summary") {
    return true;
  }
  if (tag === "label" || (tag === "a" && (bits & 256) !== 0)) return true;
  if (bits === 0) return false;
  if ((bits & 8) !== 0 && INTERACTIVE_ROLES.has(el.getAttribute("role"))) return true;
  if ((bits & 16) !== 0) return true;
  if ((bits & 32) !== 0 && el.getAttribute("contenteditable") !== "false") return true;
  return (bits & 64) !== 0 && el.tabIndex >= 0;
}

// getComputedStyle bound once per document: going through the window proxy per call is slow.
const styleReader = (doc) => doc.defaultView.getComputedStyle.bind(doc.defaultView);
