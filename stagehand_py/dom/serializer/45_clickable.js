// Serializer part 4b: what pages make clickable without markup, short hints for things that
// show no text (icons), and an element's text without its hidden descendants.
//
// A page makes a <span class="trash"> clickable with a stylesheet (cursor:pointer, an image
// drawn by content:url(...) or background-image) and addEventListener, which page JS cannot
// read back. Only what shows no text is asked about: anything with text is a line already,
// and clicking that line reaches whatever listens around it. So a page full of click
// listeners does not turn every div into a numbered element. What can be read decides
// (implicitClick):
//   - a listener that can be read: the onclick property, React's props, Vue's invokers;
//   - computed cursor:pointer that does not come from a pointer ancestor (computed cursor is
//     inherited, so only the outermost element of a pointer subtree is "the" clickable);
//   - an inherited pointer on a small element that draws something (an icon in a clickable
//     row: the trash can of a mail list).
// Styles are read only for these few text-less elements and their parents (pointerOf).

const ICON_MAX = 48; // px: an icon-sized element (both sides) in a clickable row
const URL_IN = /url\(\s*["']?([^"')]+)["']?\s*\)/;
// Class tokens that say nothing about what a control does: layout/utility vocabularies and
// generated names (css-1x2y, sc-bdfBwQ; tokens with digits are dropped too).
const UTILITY_CLASS = new RegExp(
  "^(flex|grid|block|inline|relative|absolute|fixed|sticky|rounded|shadow|border|text|bg|" +
  "font|items|justify|self|place|gap|space|overflow|cursor|transition|duration|ease|" +
  "transform|opacity|z|w|h|min|max|p|px|py|pt|pb|pl|pr|m|mx|my|mt|mb|ml|mr|col|row|order|" +
  "leading|tracking|align|float|clear|visible|invisible|sr|hover|focus|active|group|peer|" +
  "dark|sm|md|lg|xl|is|has|js|css|sc|jsx|svelte|emotion|ng|clickable|pointer)(-|$)",
);

// A click listener page JS can see on `el` itself (not ones added with addEventListener).
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
  return false;
}

// Does `el` paint anything of its own (an image, an icon font glyph, a coloured dot)?
function drawsSomething(el, tag, ctx) {
  if (tag === "img" || tag === "svg" || tag === "i" || tag === "canvas") return true;
  if (el.querySelector("svg, img")) return true;
  const style = ctx.computed(el);
  if (style.backgroundImage !== "none" || URL_IN.test(style.content)) return true;
  if (style.backgroundColor !== "rgba(0, 0, 0, 0)" && style.backgroundColor !== "transparent") {
    return true;
  }
  const before = ctx.doc.defaultView.getComputedStyle(el, "::before").content;
  return before !== "none" && before !== "normal";
}

const pointerCache = new Map();
function pointerOf(el, ctx) {
  let pointer = pointerCache.get(el);
  if (pointer === undefined) {
    pointer = ctx.computed(el).cursor === "pointer";
    pointerCache.set(el, pointer);
  }
  return pointer;
}

// Is `el` (which shows no text) clickable by what page JS can read?
function implicitClick(el, tag, ctx) {
  if (tag === "body" || tag === "html" || (el.namespaceURI === SVG && tag !== "svg")) return false;
  if (ownListener(el)) return true;
  if (!pointerOf(el, ctx)) return false;
  const parent = deepParent(el);
  if (parent === null || !pointerOf(parent, ctx)) return true;
  const r = el.getBoundingClientRect();
  return r.width <= ICON_MAX && r.height <= ICON_MAX && drawsSomething(el, tag, ctx);
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

function imageOf(el, tag, ctx) {
  const style = ctx.computed(el);
  const own = URL_IN.exec(style.content) || URL_IN.exec(style.backgroundImage) ||
    URL_IN.exec(style.maskImage || style.webkitMaskImage || "");
  if (own) return imageName(own[1]);
  for (const pseudo of ["::before", "::after"]) {
    const ps = ctx.doc.defaultView.getComputedStyle(el, pseudo);
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

// What a text-less control shows, in a few words: its first meaningful class tokens, the
// image it draws, its SVG's <title> (title, alt and aria-label are attributes of the line
// already). Bounded: the hint costs tokens on every icon of the page.
function hintOf(el, tag, ctx) {
  const parts = [];
  for (const token of el.classList) {
    if (parts.length >= 3) break;
    if (token.length < 3 || token.length > 24 || !/^[A-Za-z][A-Za-z_-]*$/.test(token)) continue;
    if (UTILITY_CLASS.test(token) || (token.match(/[a-z][A-Z]/g) || []).length >= 2) continue;
    parts.push(token);
  }
  const image = imageOf(el, tag, ctx);
  if (image && !parts.some((p) => p.includes(image))) parts.push(image);
  const title = tag === "svg" ? el.querySelector("title") : el.querySelector("svg title");
  if (title && /\S/.test(title.textContent)) parts.push(title.textContent);
  return parts.join(" ").slice(0, WIRE_HINT);
}

// The text a user sees in `el`: its text nodes, minus those of hidden descendants (a closed
// menu inside a menu item, a hidden tooltip inside a button). The common case, an element
// without child elements, is its textContent.
function visibleText(el) {
  if (el.childElementCount === 0 && !el.shadowRoot) return el.textContent;
  const parts = [];
  const visit = (node) => {
    for (let c = node.firstChild; c; c = c.nextSibling) {
      if (c.nodeType === 3) parts.push(c.data);
      else if (c.nodeType === 1 && !SKIP_TAGS.has(c.localName) && shownInText(c)) visit(c);
    }
  };
  visit(el);
  return parts.join("");
}

function shownInText(el) {
  if (el.hasAttribute("hidden")) return false;
  if (el.checkVisibility(CHECK)) return true;
  // display:contents has no box of its own, so checkVisibility() calls it hidden.
  return el.ownerDocument.defaultView.getComputedStyle(el).display === "contents";
}
