// The page serializer: one walk over the light DOM, open shadow roots and same-origin iframes,
// returning ONE JSON string (a string crosses the CDP boundary far faster than a big object).
// Python's dom._wire.parse_snapshot reads it (compact rows; see `describe` in 80_rows.js).
//
// Kept: interactive + visible elements (disabled ones too, flagged), leaf elements with text,
// and visible text nodes of mixed-content elements. Interactive also means what pages make
// clickable without markup (45_clickable.js: cursor:pointer, readable listeners, icons); inside
// aria-hidden subtrees only interactive elements are kept (flagged: hidden from screen readers,
// not from the mouse). Visible = box larger than 1px; not display:none, visibility
// hidden or opacity 0 (incl. ancestors); not cut away by an overflow:hidden ancestor nor pushed
// off the page; and on top at its hit point. Two cost-driven choices (a hit test costs ~1 ms on a
// 5,000-element page):
//   - elementFromPoint (in the element's own document or shadow root) is only asked when a
//     positioned element (fixed/absolute/sticky, or relative with a z-index) overlaps the
//     candidate, since nothing else can paint over it; inside iframes it is always asked;
//   - outside the viewport no hit test is possible: there, if a fixed layer covering the
//     viewport (a modal backdrop) is on top at the viewport centre, anything outside that layer
//     counts as covered. Content scrolled out of a scrollable element is kept, above as well
//     as below (chunks reach it; above the page top its chunk numbers are negative).
//
// Selectors, most exact first, each proven unique without querying per element:
//   light DOM  - absolute XPath (unique by construction), id-anchored XPath (own id, or the
//                nearest uniquely-id'd ancestor + a positional tail), attribute-anchored XPath
//                (counted in a per-document index), text-anchored XPath for short labels;
//   shadow DOM - css paths for Playwright's piercing css engine (`>` crosses into a shadow root,
//                so a host's light children are checked for ambiguity), #id and [attr] css
//                counted across every shadow root of the document.
// Iframe content gets selectors relative to its own document plus a `frame` path. A frame
// whose document this walk cannot enter (cross-origin) is reported in `cross_origin_frames`
// with where its content sits; Python serializes it with its own evaluate of this script in
// "child mode" (`options.frame`, `options.geometry`) and stitches the rows into one list.
//
// Page strings (text, attribute values, option labels, hints) go on the wire raw: no
// whitespace collapsing, no quote changes, no capping below the generous WIRE_* bounds, so
// that Python can redact them before it shapes them for the model. A string longer than its
// bound is sent as [first `bound` characters, number cut] (see wireString).
//
// The script is one function, `(options) => { ... }`, whose body is the files of this directory
// in name order (dom._js.load_js("serializer") joins them): they share one scope, so a part may
// use what another declares. Functions are hoisted; `const`s are all set before 90_main.js
// starts the walk.

// ---------- options and constant tables ----------
const CHUNK_RATIO = options.chunkRatio || 0.75;
// Wire bounds (characters) of raw page strings; Python's rendering caps far lower.
const WIRE_TEXT = options.maxText || 2000;
const WIRE_ATTR = 1000;
const WIRE_VALUE = 4000; // an input's or textarea's value is content: the generous bound
const WIRE_HINT = 120;
const CHILD = options.frame || null; // child mode: this document is a cross-origin frame
const topDoc = document;
const vw = window.innerWidth;
const vh = window.innerHeight;
const XHTML = "http://www.w3.org/1999/xhtml";
const SVG = "http://www.w3.org/2000/svg";

const NO_STYLE_TAGS = new Set([
  "head", "title", "meta", "link", "base", "script", "style", "noscript", "template", "br",
  "wbr", "option", "optgroup", "source", "track",
]);
const SKIP_TAGS = new Set([
  "script", "style", "noscript", "template", "head", "title", "meta", "link", "base",
  "option", "optgroup", "datalist", "svg", "math", "iframe", "frame", "object", "embed",
]);
const INTERACTIVE_ROLES = new Set([
  "button", "link", "checkbox", "radio", "switch", "tab", "menuitem", "menuitemcheckbox",
  "menuitemradio", "option", "textbox", "searchbox", "combobox", "listbox", "slider",
  "spinbutton", "treeitem", "gridcell", "columnheader", "rowheader",
]);
// Nothing inside these is ever shown as its own line (a <select>'s options are listed on it),
// so the walk does not descend into them and the style pass skips their overflow.
const LEAF_TAGS = new Set([
  "select", "datalist", "option", "optgroup", "head", "script", "style",
]);
// Interactive things whose inner text is already their own text: no separate text lines.
const TEXT_OWNER_TAGS = new Set(["a", "button", "label", "summary", "select", "textarea"]);
const TEXT_OWNER_ROLES = new Set([
  "button", "link", "option", "menuitem", "tab", "checkbox", "radio", "switch", "treeitem",
]);
const FORM_TAGS = new Set(["button", "input", "select", "textarea", "fieldset", "optgroup"]);
const ANCHOR_ATTRS = [
  "data-testid", "data-test", "data-cy", "data-qa", "name", "aria-label", "placeholder",
  "title", "alt", "for",
];
const ANCHOR_SET = new Set(ANCHOR_ATTRS);
// Attributes the walk asks about, noted per element in the index pass (one
// getAttributeNames() there instead of a handful of lookups per element in the walk).
const FLAG_BITS = {
  "aria-hidden": 1, hidden: 2, inert: 4, role: 8, onclick: 16, contenteditable: 32,
  tabindex: 64, "aria-disabled": 128, href: 256, "aria-readonly": 1024,
};
const HAS_ANCHOR = 512; // a non-empty ANCHOR_ATTRS attribute (flag set in buildIndex)
const ANCHOR_RANK = new Map(ANCHOR_ATTRS.map((a, i) => [a, i]));
const SHOWN_ATTRS = [
  "id", "name", "type", "role", "aria-label", "placeholder", "title", "alt", "href", "for",
  "data-testid", "aria-expanded", "aria-checked", "aria-selected", "aria-pressed",
  "aria-haspopup",
];
const SHOWN_SET = new Set(SHOWN_ATTRS);
// Attribute names go on the wire as indexes into this list (sent once as attribute_names).
const WIRE_ATTRS = SHOWN_ATTRS.concat(["value", "checked", "contenteditable", "size"]);
const WIRE_ATTR_INDEX = new Map(WIRE_ATTRS.map((a, i) => [a, i]));
// Value of attribute `name` in a pairs list from attributesOf, or undefined.
const attrOf = (pairs, name) => {
  const key = WIRE_ATTR_INDEX.get(name);
  for (let i = 0; i < pairs.length; i += 2) if (pairs[i] === key) return pairs[i + 1];
  return undefined;
};
const TEXT_ANCHOR_TAGS = new Set(["a", "button", "label", "summary", "h1", "h2", "h3"]);
const IMPLICIT_ROLES = {
  button: "button", select: "combobox", textarea: "textbox", summary: "button",
  h1: "heading", h2: "heading", h3: "heading", h4: "heading", h5: "heading", h6: "heading",
  img: "img", nav: "navigation", li: "listitem", option: "option",
};
const INPUT_ROLES = {
  checkbox: "checkbox", radio: "radio", button: "button", submit: "button", reset: "button",
  image: "button", range: "slider", number: "spinbutton", search: "searchbox",
};
