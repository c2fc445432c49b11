// The page side of the accessibility-tree view (stagehand_py/_async/aria/snapshot.py and
// aria_lists.py). The parts of this directory, in name order, are the body of ONE function,
// `(options) => {...}` (see dom._js.load_js), run with frame.evaluate in one frame at a time.
// `options` is one JSON string (a string crosses Playwright's client far faster than a large
// nested value): {task: "facts" | "lists", ...}. The function returns ONE JSON string.
//
// Part 1: every element (light DOM, then each shadow root, as Playwright's css engine walks
// the open ones; closed ones as DevTools found them, see dom/shared/clickable.js), and
// selectors built from an element itself. (Parts 05 and 06 are shared with other scripts.)
const opts = JSON.parse(options);
const doc = document;
const win = window;
const ANCHORS = ["data-test", "data-cy", "data-qa", "name", "aria-label", "title", "alt"];
const normalize = (s) => s.replace(/[\u200b\u00ad]/g, "").trim().replace(/\s+/g, " ");
const cssString = (v) => '"' + v.replace(/\\/g, "\\\\").replace(/"/g, '\\"') + '"';
const bump = (map, key) => map.set(key, (map.get(key) || 0) + 1);

const all = [];
const inShadow = new Set();
// Elements inside a closed root: no Playwright engine or tree node reaches them, so they are
// matched to no tree node and get closed-shadow selectors (part 2b lists them).
const inClosed = new Set();
const shadowRoots = [doc];
const shadowRootOf = shadowReader(doc);
for (let i = 0; i < shadowRoots.length; i++) {
  const closed = i > 0 && (shadowRoots[i].mode === "closed" || inClosed.has(shadowRoots[i].host));
  for (const el of shadowRoots[i].querySelectorAll("*")) {
    all.push(el);
    if (i > 0) inShadow.add(el);
    if (closed) inClosed.add(el);
    const root = shadowRootOf(el);
    if (root) shadowRoots.push(root);
  }
}
// Ids and anchor attributes, counted over the document and its shadow roots (what a css
// selector run by Playwright sees).
const ids = new Map();
const anchors = new Map();
for (const el of all) {
  if (!el.hasAttributes()) continue;
  const id = el.getAttribute("id");
  if (id) bump(ids, id);
  for (const attr of ANCHORS) {
    const v = el.getAttribute(attr);
    if (v) bump(anchors, el.localName + "\u0001" + attr + "\u0001" + v);
  }
}

const XHTML = "http://www.w3.org/1999/xhtml";
const names = new Map();
const xpathName = (el) => {
  const key = el.namespaceURI === XHTML ? el.localName : "\u0002" + el.localName;
  let name = names.get(key);
  if (name === undefined) {
    name = key === el.localName && /^[a-z][a-z0-9-]*$/.test(key) ? key
      : `*[local-name()="${el.localName}"]`;
    names.set(key, name);
  }
  return name;
};
// Per element, computed once per parent: [1-based position among its parent's children,
// position among same-name siblings, how many siblings share its tag].
const places = new Map();
const placeOf = (el) => {
  let place = places.get(el);
  if (place !== undefined) return place;
  const siblings = el.parentNode.children;
  const seen = new Map();
  for (let i = 0; i < siblings.length; i++) {
    const name = xpathName(siblings[i]);
    seen.set(name, (seen.get(name) || 0) + 1);
    places.set(siblings[i], [i + 1, seen.get(name), 0]);
  }
  for (let i = 0; i < siblings.length; i++) {
    places.get(siblings[i])[2] = seen.get(xpathName(siblings[i]));
  }
  return places.get(el);
};
function absXPath(el) {
  if (inShadow.has(el)) return null;
  const steps = [];
  for (let n = el; n && n.nodeType === 1; n = n.parentNode) {
    if (n === doc.documentElement) return "/" + xpathName(n) + steps.join("");
    steps.unshift("/" + xpathName(n) + "[" + placeOf(n)[1] + "]");
  }
  return null;
}
// A css path for Playwright's piercing engine (`>` also steps from a host into its shadow
// root): a step that could match a light child and a shadow child alike is refused.
function cssPath(el) {
  const steps = [];
  for (let n = el; n; ) {
    if (n === doc.documentElement) {
      steps.unshift(n.localName);
      return steps.join(" > ");
    }
    const parent = n.parentNode;
    const host = parent instanceof ShadowRoot ? parent.host : parent;
    if (!host || host.nodeType !== 1) return null;
    const other = parent instanceof ShadowRoot ? host.children
      : (host.shadowRoot ? host.shadowRoot.children : null);
    const tag = n.localName;
    const [position, , sameTag] = placeOf(n);
    const rival = other ? Array.from(other) : [];
    if (sameTag === 1 && !rival.some((o) => o.localName === tag)) {
      steps.unshift(CSS.escape(tag));
    } else {
      if (rival[position - 1] && rival[position - 1].localName === tag) return null;
      steps.unshift(`${CSS.escape(tag)}:nth-child(${position})`);
    }
    n = host;
  }
  return null;
}
function uniqueCss(el) {
  const id = el.getAttribute("id");
  if (id && ids.get(id) === 1) return "#" + CSS.escape(id);
  for (const attr of ANCHORS) {
    const v = el.getAttribute(attr);
    if (!v || v.length > 100 || /[\n\r\f]/.test(v)) continue;
    if (anchors.get(el.localName + "\u0001" + attr + "\u0001" + v) === 1) {
      return `${CSS.escape(el.localName)}[${attr}=${cssString(v)}]`;
    }
  }
  return inShadow.has(el) ? cssPath(el) : null;
}

// A durable Playwright selector for any element: a unique #id or [attr] css, else the
// absolute xpath, else (inside shadow roots) the piercing css path.
function durableSelector(el) {
  const css = uniqueCss(el);
  if (css && !inShadow.has(el)) return "css=" + css;
  const xpath = absXPath(el);
  if (xpath) return "xpath=" + xpath;
  return css ? "css=" + css : null;
}

// The closed-shadow selector of an element inside a closed root (shared/clickable.js).
const closedSelector = (el) => closedShadowSelector(el, (host) => {
  const xpath = absXPath(host);
  if (xpath) return "xpath=" + xpath;
  const css = cssPath(host);
  return css ? "css=" + css : null;
});
