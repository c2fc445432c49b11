// Shared part: what pages make clickable without markup, and how a text-less control looks.
// Included by both page scripts (dom/serializer, the DOM view; dom/aria_page, the aria view),
// so both views find the same controls. Names here are declared once across both scripts.
//
// A page makes a <span class="trash"> clickable with a stylesheet (cursor:pointer, an image
// drawn by content:url(...) or background-image) and addEventListener, which page JS cannot
// read back. What can be read decides:
//   - a listener page JS can see: the onclick property, React's props, Vue's invokers;
//   - a listener DevTools can see (Chromium): stagehand_py installs, through a DevTools
//     session, a predicate that reads an element's own click listeners (CLICK_READER,
//     _async/browser/devtools.py); without it (other browsers) only the above count;
//   - computed cursor:pointer that does not come from a pointer ancestor (computed cursor is
//     inherited, so only the outermost element of a pointer subtree is "the" clickable);
//   - an inherited pointer on a small element that draws something (an icon in a clickable
//     row: the trash can of a mail list);
//   - an <a> without href that draws something (script-driven links).
// Closed shadow roots are reached through the roots DevTools found (SHADOW_REGISTRY).

const ICON_MAX = 48; // px: an icon-sized element (both sides) in a clickable row
const URL_IN = /url\(\s*["']?([^"')]+)["']?\s*\)/;
const SVG_NS = "http://www.w3.org/2000/svg";
const CLICK_READER = Symbol.for("stagehand_py.click_listeners");
const SHADOW_REGISTRY = Symbol.for("stagehand_py.closed_shadow_roots");
// Class tokens that say nothing about what a control does: layout/utility vocabularies and
// generated names (css-1x2y, sc-bdfBwQ; tokens with digits are dropped too).
const UTILITY_CLASS = new RegExp(
  "^(flex|grid|block|inline|relative|absolute|fixed|sticky|rounded|shadow|border|text|bg|" +
  "font|items|justify|self|place|gap|space|overflow|cursor|transition|duration|ease|" +
  "transform|opacity|z|w|h|min|max|p|px|py|pt|pb|pl|pr|m|mx|my|mt|mb|ml|mr|col|row|order|" +
  "leading|tracking|align|float|clear|visible|invisible|sr|hover|focus|active|group|peer|" +
  "dark|sm|md|lg|xl|is|has|js|css|sc|jsx|svelte|emotion|ng|clickable|pointer)(-|$)",
);

// `el => its shadow root, open or closed (null when it has none we know of)` for the elements
// of `doc`: closed roots are the ones DevTools found for us. Made once per document: most
// documents have none, and then it is just el.shadowRoot.
function shadowReader(doc) {
  const registry = doc.defaultView && doc.defaultView[SHADOW_REGISTRY];
  if (!registry) return (el) => el.shadowRoot;
  return (el) => el.shadowRoot || registry.roots.get(el) || null;
}
const shadowOf = (el) => shadowReader(el.ownerDocument)(el);
const composedParent = (el) => {
  if (el.parentElement) return el.parentElement;
  const root = el.getRootNode();
  return root instanceof ShadowRoot ? root.host : null;
};

// Inside a closed shadow root, which no Playwright engine steps into, an element's selector is
// stagehand_py's own (dom/_shadow.py): "stagehand-closed=" and a JSON list, a Playwright
// selector for the outermost host an engine reaches (`hostSelector(host)`, each script's
// own), then one "tag[n]/tag[n]" path per shadow root below it (n: the position among the
// element children). Null when the host has no selector.
const CLOSED_SHADOW = "stagehand-closed=";
function inClosedRoot(el) {
  for (let root = el.getRootNode(); root instanceof ShadowRoot; root = root.host.getRootNode()) {
    if (root.mode === "closed") return true;
  }
  return false;
}
function childSteps(n, root) {
  const parts = [];
  for (let m = n; m !== root; m = m.parentNode) {
    let k = 1;
    for (let s = m.previousElementSibling; s; s = s.previousElementSibling) k++;
    parts.unshift(m.localName + "[" + k + "]");
  }
  return parts.join("/");
}
function closedShadowSelector(el, hostSelector) {
  const steps = [];
  let n = el;
  do {
    const root = n.getRootNode();
    steps.unshift(childSteps(n, root));
    n = root.host;
  } while (inClosedRoot(n));
  const host = hostSelector(n);
  return host ? CLOSED_SHADOW + JSON.stringify([host].concat(steps)) : null;
}

// A click listener of `el` itself that DevTools reads (addEventListener included).
function scriptListener(el) {
  const read = el.ownerDocument.defaultView[CLICK_READER];
  return typeof read === "function" && read(el) === true;
}

// A click listener on `el` itself (not one on an ancestor that catches its clicks).
function ownListener(el) {
  if (typeof el.onclick === "function") return true;
  const keys = Object.keys(el);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i];
    if (key.startsWith("__reactProps$")) {
      const props = el[key];
      if (props && (props.onClick || props.onMouseDown || props.onPointerDown)) return true;
    } else if (key === "_vei") {
      const invokers = el._vei;
      if (invokers && (invokers.onClick || invokers.onMousedown)) return true;
    }
  }
  return scriptListener(el);
}

// Does `el` paint anything of its own (an image, an icon font glyph, a coloured dot)?
function drawsSomething(el, tag, computed) {
  if (tag === "img" || tag === "svg" || tag === "i" || tag === "canvas") return true;
  if (el.querySelector("svg, img")) return true;
  const style = computed(el);
  if (style.backgroundImage !== "none" || URL_IN.test(style.content)) return true;
  if (style.backgroundColor !== "rgba(0, 0, 0, 0)" && style.backgroundColor !== "transparent") {
    return true;
  }
  const before = el.ownerDocument.defaultView.getComputedStyle(el, "::before").content;
  return before !== "none" && before !== "normal";
}

const pointerCache = new Map();
function pointerOf(el, computed) {
  let pointer = pointerCache.get(el);
  if (pointer === undefined) {
    pointer = computed(el).cursor === "pointer";
    pointerCache.set(el, pointer);
  }
  return pointer;
}
// The outermost element of a pointer subtree: its own cursor:pointer, not its parent's.
const pointerRoot = (el, computed) => {
  if (!pointerOf(el, computed)) return false;
  const parent = composedParent(el);
  return parent === null || !pointerOf(parent, computed);
};

// Is `el` (which shows no text) clickable by what can be read about it?
function implicitClick(el, tag, computed) {
  if (tag === "body" || tag === "html" || (el.namespaceURI === SVG_NS && tag !== "svg")) {
    return false;
  }
  if (ownListener(el)) return true;
  if (!pointerOf(el, computed)) {
    return tag === "a" && !el.hasAttribute("href") && drawsSomething(el, tag, computed);
  }
  if (pointerRoot(el, computed)) return true;
  const r = el.getBoundingClientRect();
  return r.width <= ICON_MAX && r.height <= ICON_MAX && drawsSomething(el, tag, computed);
}

// The file name an image URL names, without directories, query or extension ("" for data:).
function imageName(url) {
  if (!url || url.startsWith("data:")) return "";
  const path = url.split(/[?#]/)[0];
  let name = path.slice(path.lastIndexOf("/") + 1);
  try {
    name = decodeURIComponent(name);
  } catch (e) {
    // a malformed escape: keep it as written
  }
  return name.replace(/\.[A-Za-z0-9]{2,5}$/, "");
}

function imageOf(el, tag, computed) {
  const style = computed(el);
  const own = URL_IN.exec(style.content) || URL_IN.exec(style.backgroundImage) ||
    URL_IN.exec(style.maskImage || style.webkitMaskImage || "");
  if (own) return imageName(own[1]);
  for (const pseudo of ["::before", "::after"]) {
    const ps = el.ownerDocument.defaultView.getComputedStyle(el, pseudo);
    const m = URL_IN.exec(ps.content) || URL_IN.exec(ps.backgroundImage);
    if (m) return imageName(m[1]);
  }
  const img = tag === "img" ? el : el.querySelector("img");
  if (img) return imageName(img.getAttribute("src") || "");
  const use = el.querySelector("use");
  if (use) {
    const href = use.getAttribute("href") || use.getAttribute("xlink:href") || "";
    return href.includes("#") ? href.slice(href.indexOf("#") + 1) : imageName(href);
  }
  return "";
}

// A glyph drawn by ::before/::after (content: "×"): the shape a user sees. Icon fonts draw
// private-use code points, which say nothing, and are left out.
function glyphOf(el) {
  for (const pseudo of ["::before", "::after"]) {
    const content = el.ownerDocument.defaultView.getComputedStyle(el, pseudo).content;
    const m = /^"(.{1,3})"$/u.exec(content || "");
    if (m && /\S/.test(m[1]) && !/[\uE000-\uF8FF]/.test(m[1])) return m[1];
  }
  return "";
}

// Where a text-less control sits, for the model to tell two alike apart: the short text of
// its nearest ancestor that has some ("near Quarterly report").
function nearText(el) {
  let n = composedParent(el);
  for (let level = 0; n && level < 4; level++, n = composedParent(n)) {
    const text = (n.innerText || n.textContent || "").replace(/\s+/g, " ").trim();
    if (text) return "near " + (text.length > 30 ? text.slice(0, 29) + "…" : text);
  }
  return "";
}

// What a text-less control shows, in a few words: its first meaningful class tokens, the
// image it draws, its SVG's <title>, a drawn glyph; failing all of those, where it sits
// (title, alt and aria-label are attributes of the line already). Bounded: the hint costs
// tokens on every icon of the page.
function hintOf(el, tag, computed, bound) {
  const parts = [];
  for (const token of el.classList) {
    if (parts.length >= 3) break;
    if (token.length < 3 || token.length > 24 || !/^[A-Za-z][A-Za-z_-]*$/.test(token)) continue;
    if (UTILITY_CLASS.test(token) || (token.match(/[a-z][A-Z]/g) || []).length >= 2) continue;
    parts.push(token);
  }
  const image = imageOf(el, tag, computed);
  if (image && !parts.some((p) => p.includes(image))) parts.push(image);
  const title = tag === "svg" ? el.querySelector("title") : el.querySelector("svg title");
  if (title && /\S/.test(title.textContent)) parts.push(title.textContent);
  const glyph = glyphOf(el);
  if (glyph) parts.push(glyph);
  if (!parts.length) {
    const near = nearText(el);
    if (near) parts.push(near);
  }
  return parts.join(" ").slice(0, bound);
}
