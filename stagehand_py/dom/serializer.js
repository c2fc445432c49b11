// The page serializer: one walk over the light DOM, open shadow roots and same-origin iframes,
// returning ONE JSON string (a string crosses the CDP boundary far faster than a big object).
// Python's dom._snapshot.parse_snapshot reads it (compact rows; see `describe`).
//
// Kept: interactive + enabled + visible elements, leaf elements with text, and visible text nodes
// of mixed-content elements. Visible = box larger than 1px; not display:none, visibility
// hidden or opacity 0 (incl. ancestors); not cut away by an overflow:hidden ancestor nor pushed
// off the page; and on top at its hit point. Two cost-driven choices (a hit test costs ~1 ms on a
// 5,000-element page):
//   - elementFromPoint (in the element's own document or shadow root) is only asked when a
//     positioned element (fixed/absolute/sticky, or relative with a z-index) overlaps the
//     candidate, since nothing else can paint over it; inside iframes it is always asked;
//   - outside the viewport no hit test is possible: there, if a fixed layer covering the
//     viewport (a modal backdrop) is on top at the viewport centre, anything outside that layer
//     counts as covered. Content scrolled out of a scrollable element is kept (chunks reach it).
//
// Selectors, most exact first, each proven unique without querying per element:
//   light DOM  - absolute XPath (unique by construction), id-anchored XPath (own id, or the
//                nearest uniquely-id'd ancestor + a positional tail), attribute-anchored XPath
//                (counted in a per-document index), text-anchored XPath for short labels;
//   shadow DOM - css paths for Playwright's piercing css engine (`>` crosses into a shadow root,
//                so a host's light children are checked for ambiguity), #id and [attr] css
//                counted across every shadow root of the document.
// Iframe content gets selectors relative to its own document plus a `frame` path.
(options) => {
  const CHUNK_RATIO = options.chunkRatio || 0.75;
  const MAX_TEXT = options.maxText || 150;
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
    tabindex: 64, "aria-disabled": 128, href: 256,
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
  const WIRE_ATTRS = SHOWN_ATTRS.concat(["value", "checked", "contenteditable"]);
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

  // ---------- small helpers ----------
  // Most texts need no change: a regex test is far cheaper than replace + trim on them.
  const collapse = (s) => (/[^\S ]| {2}|^ | $/.test(s) ? s.replace(/\s+/g, " ").trim() : s);
  const capText = (s, n) => {
    const t = collapse(s.length > n * 4 ? s.slice(0, n * 4) : s);
    return t.length > n ? t.slice(0, n - 1) + "…" : t;
  };
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

  // ---------- per-document indexes (one pass over every element) ----------
  // light: what XPath sees (one document, no shadow roots); deep: what Playwright css sees.
  // layout: the few elements whose computed style matters to the walk (positioned ones,
  // overflow clippers and scrollers), so the walk itself never asks for styles.
  function buildIndex(doc) {
    const light = new Map();
    let deep = null; // built after the light pass, and only as a copy when shadow roots exist
    const labelsFor = new Map();
    const flags = new Map(); // el -> FLAG_BITS of the attributes it has
    const invisible = new Map(); // el -> 1 visibility hidden/collapse, 2 opacity 0
    const layout = new Map(); // el -> {position, overflow: "clip" | "scroll" | null}
    const occluders = []; // positioned elements that may paint over others
    const computed = styleReader(doc);
    const readStyle = (el, tag) => {
      const style = computed(el);
      const position = style.position;
      // Overflow only clips descendants: an element without any to walk (most of them: inputs,
      // images, spans of text) skips that read, the priciest of the lot ("visible", or e.g.
      // "hidden auto", x then y).
      const walked = (el.firstElementChild !== null && !LEAF_TAGS.has(tag)) ||
        el.shadowRoot !== null;
      const flow = walked ? style.overflow : "visible";
      // Computed visibility is already inherited; opacity 0 hides the whole subtree (walk).
      if (style.visibility !== "visible") invisible.set(el, 1);
      else if (style.opacity === "0") invisible.set(el, 2);
      let overflow = null;
      if (flow !== "visible" && el !== doc.documentElement && el !== doc.body) {
        overflow = /auto|scroll|overlay/.test(flow) ? "scroll" : "clip";
      }
      if (position !== "static" || overflow) layout.set(el, { position, overflow });
      if (position === "fixed" || position === "absolute" || position === "sticky" ||
        (position === "relative" && style.zIndex !== "auto")) occluders.push(el);
    };
    const register = (el, inShadow) => {
      // Styles only matter for what can be seen or paint over things: not inside <head>, not
      // the shapes inside an <svg> (icons are full of them). Their attributes still count.
      const tag = el.localName;
      if (!NO_STYLE_TAGS.has(tag) && (tag === "svg" || el.namespaceURI !== SVG)) readStyle(el, tag);
      if (!el.hasAttributes()) return;
      let bits = 0;
      for (const attr of el.getAttributeNames()) {
        const bit = FLAG_BITS[attr];
        if (bit !== undefined) bits |= bit;
        if (attr === "id") {
          const id = el.getAttribute("id");
          if (!id) continue;
          addTo(inShadow ? deep : light, "#" + id, el);
        } else if (ANCHOR_SET.has(attr)) {
          const v = el.getAttribute(attr);
          if (!v) continue;
          bits |= HAS_ANCHOR;
          const key = tag + "\u0001" + attr + "\u0001" + v;
          addTo(inShadow ? deep : light, key, el);
        }
      }
      if (bits) flags.set(el, bits);
      if (tag === "label" && el.htmlFor) addTo(labelsFor, el.htmlFor, el);
    };
    const roots = [];
    const all = doc.querySelectorAll("*"); // a static list: faster to index than a live one
    for (let i = 0; i < all.length; i++) {
      const el = all[i];
      register(el, false);
      if (el.shadowRoot) roots.push(el.shadowRoot);
    }
    // Without shadow roots both views hold the same; with them, deep starts as a copy.
    deep = roots.length === 0
      ? light
      : new Map(Array.from(light, ([key, owners]) => [key, owners.slice()]));
    for (let i = 0; i < roots.length; i++) {
      for (const el of roots[i].querySelectorAll("*")) {
        register(el, true);
        if (el.shadowRoot) roots.push(el.shadowRoot);
      }
    }
    return {
      light, deep, labelsFor, flags, invisible, layout, occluders,
      occluderRects: null, texts: new Map(), values: new Map(),
    };
  }

  // The <label>s of a form control, without `el.labels` (whose first call per DOM version
  // costs ~0.2 s on a 5,000-element page).
  function labelsOf(el, ctx) {
    const found = [];
    const id = el.getAttribute("id");
    if (id) {
      for (const label of ctx.index.labelsFor.get(id) || []) {
        if (label.getRootNode() === el.getRootNode()) found.push(label);
      }
    }
    const wrapping = el.closest("label");
    if (wrapping && !found.includes(wrapping)) found.push(wrapping);
    return found;
  }

  // Count of `tag` elements in the light DOM whose normalize-space(.) is `text`.
  function textCount(ctx, tag, text) {
    let counts = ctx.index.texts.get(tag);
    if (!counts) {
      counts = new Map();
      for (const el of ctx.doc.getElementsByTagName(tag)) {
        const t = xpathSpace(el.textContent);
        counts.set(t, (counts.get(t) || 0) + 1);
      }
      ctx.index.texts.set(tag, counts);
    }
    return counts.get(text) || 0;
  }

  // ---------- visibility ----------
  // Rects are {left, top, right, bottom} in the frame's viewport coordinates; null = unbounded.
  const intersect = (a, b) => {
    if (a === null) return b;
    if (b === null) return a;
    return {
      left: Math.max(a.left, b.left), top: Math.max(a.top, b.top),
      right: Math.min(a.right, b.right), bottom: Math.min(a.bottom, b.bottom),
    };
  };
  const overlaps = (a, b) =>
    Math.min(a.right, b.right) - Math.max(a.left, b.left) >= 1 &&
    Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) >= 1;
  const CHECK = { opacityProperty: true, visibilityProperty: true, checkOpacity: true,
    checkVisibilityCSS: true };
  const visibleCache = new Map();
  const clipperRects = new Map(); // overflow clippers' rects, read in areasFor, reused once

  // Window properties are slow to read (~1-3 us each): scroll offsets are read once per document.
  // display:none leaves no box; visibility/opacity come from the index's style pass (opacity 0
  // of an ancestor marks the subtree hidden in the walk), so no per-element checkVisibility().
  function styleHides(el, rect, ctx) {
    if (rect.width <= 1 || rect.height <= 1) return true;
    if (ctx.index.invisible.has(el)) return true;
    return rect.right + ctx.scrollX <= 0 || rect.bottom + ctx.scrollY <= 0;
  }

  // `clip` only applies to absolutely positioned (and fixed) elements: skip the style read else.
  function positionedOut(el, ctx) {
    const info = ctx.index.layout.get(el);
    return info !== undefined && (info.position === "absolute" || info.position === "fixed");
  }

  function cssClipHides(el, ctx) {
    const style = ctx.computed(el);
    if (style.clip && style.clip !== "auto") {
      const m = style.clip.match(/-?[\d.]+/g);
      if (m && m.length === 4 && (m[1] - m[3] <= 1 || m[2] - m[0] <= 1)) return true;
    }
    return /inset\((50|100)%/.test(style.clipPath);
  }

  // Visible occluders of this document that intersect its viewport (computed once).
  function occluderRects(ctx) {
    if (ctx.index.occluderRects === null) {
      ctx.index.occluderRects = [];
      for (const el of ctx.index.occluders) {
        const r = el.getBoundingClientRect();
        if (r.width >= 1 && r.height >= 1 && overlaps(r, ctx.clip) && el.checkVisibility(CHECK)) {
          ctx.index.occluderRects.push({ el, rect: r });
        }
      }
    }
    return ctx.index.occluderRects;
  }

  // Hit-testing costs ~1 ms per point on a 5,000-element page, so it is only done where
  // something positioned could be painted over the target (or inside iframes, which are few).
  function mayBeCovered(target, rect, ctx) {
    if (ctx.chain.length) return true;
    for (const o of occluderRects(ctx)) {
      if (o.el !== target && overlaps(rect, o.rect) && !deepContains(o.el, target) &&
        !deepContains(target, o.el)) return true;
    }
    return false;
  }

  // Is `target` (or what it contains) on top at point (x, y) of its own frame's viewport?
  function onTop(target, x, y, ctx) {
    const hit = target.getRootNode().elementFromPoint(x, y);
    if (!hit) return false;
    if (hit !== target && !target.contains(hit) && !(hit.control === target)) return false;
    // Inside iframes: the iframe itself must be on top in every ancestor document too.
    for (const level of ctx.chain) {
      if (level.root.elementFromPoint(x + level.dx, y + level.dy) !== level.iframe) return false;
    }
    return true;
  }

  // Centre of the part of `rect` currently painted on screen, or null.
  function shownCentre(rect, view) {
    const r = intersect(rect, view);
    if (r.right - r.left < 1 || r.bottom - r.top < 1) return null;
    return { x: (r.left + r.right) / 2, y: (r.top + r.bottom) / 2 };
  }

  function placeVisible(target, rect, ctx, view) {
    const shown = intersect(ctx.clip, view);
    const point = shownCentre(rect, shown);
    if (point === null) {
      // Off-screen: the overlay rule by other means (see header).
      return blocker === null || deepContains(blocker, ctx.topIframe || target);
    }
    if (!mayBeCovered(target, rect, ctx) || onTop(target, point.x, point.y, ctx)) return true;
    // An inline element over several lines: its box centre may fall between the lines.
    const parts = target.getClientRects();
    if (parts.length > 1) {
      const p = shownCentre(parts[0], shown);
      if (p && onTop(target, p.x, p.y, ctx)) return true;
    }
    return false;
  }

  // rect when `el` is visible, else null. `area` = {clip, view} from its ancestors: outside
  // `clip` it is cut away (overflow hidden); outside `view` it is merely scrolled out of sight.
  function visibleRect(el, ctx, interactive, area) {
    if (visibleCache.has(el)) return visibleCache.get(el);
    const rect = clipperRects.get(el) || el.getBoundingClientRect();
    let result = rect;
    if (styleHides(el, rect, ctx) || (area.clip !== null && !overlaps(rect, area.clip)) ||
      (interactive && positionedOut(el, ctx) && cssClipHides(el, ctx)) ||
      !placeVisible(el, rect, ctx, area.view)) {
      result = null;
    }
    visibleCache.set(el, result);
    return result;
  }

  // The clip/view area `el` itself is painted in (its containing block decides for
  // absolutely positioned and fixed elements), and the one it gives its children.
  // `same`: the {own, children} pair of an element that changes nothing, made once per area.
  const UNBOUNDED = { clip: null, view: null, cbClip: null, cbView: null, same: null };
  function areasFor(el, ctx, parentArea) {
    const info = ctx.index.layout.get(el);
    if (!info) {
      if (parentArea.same === null) parentArea.same = { own: parentArea, children: parentArea };
      return parentArea.same;
    }
    let own = parentArea;
    if (info.position === "fixed") own = UNBOUNDED;
    else if (info.position === "absolute") {
      own = { clip: parentArea.cbClip, view: parentArea.cbView,
        cbClip: parentArea.cbClip, cbView: parentArea.cbView, same: null };
    }
    let clip = own.clip;
    let view = own.view;
    if (info.overflow) {
      const r = el.getBoundingClientRect();
      clipperRects.set(el, r);
      view = intersect(view, r);
      // Scrolled-away content of a scroller is reachable (chunks cover it); clipped is not.
      clip = info.overflow === "clip" ? intersect(clip, r) : null;
    }
    const positioned = info.position !== "static";
    const children = {
      clip, view,
      cbClip: positioned ? clip : own.cbClip,
      cbView: positioned ? view : own.cbView,
      same: null,
    };
    return { own, children };
  }

  // ---------- the walk ----------
  // {node, owner, rect, ctx, interactive, xpath, anchor, content (a leaf's textContent)}
  const records = [];

  function makeContext(doc, parent, iframe, frameSelector) {
    const win = doc.defaultView;
    const ctx = {
      doc, index: buildIndex(doc), frame: [], chain: [], offX: 0, offY: 0,
      scrollX: win.scrollX, scrollY: win.scrollY, computed: styleReader(doc),
      clip: { left: 0, top: 0, right: vw, bottom: vh }, topIframe: null,
    };
    if (parent) {
      const r = iframe.getBoundingClientRect();
      const st = parent.doc.defaultView.getComputedStyle(iframe);
      const dx = r.left + iframe.clientLeft + parseFloat(st.paddingLeft);
      const dy = r.top + iframe.clientTop + parseFloat(st.paddingTop);
      ctx.frame = parent.frame.concat([frameSelector]);
      ctx.chain = [{ root: iframe.getRootNode(), iframe, dx, dy }].concat(
        parent.chain.map((l) => ({ root: l.root, iframe: l.iframe, dx: l.dx + dx, dy: l.dy + dy })),
      );
      ctx.offX = parent.offX + dx;
      ctx.offY = parent.offY + dy;
      ctx.topIframe = parent.topIframe || iframe;
      const pc = parent.clip;
      ctx.clip = {
        left: Math.max(0, pc.left - dx), top: Math.max(0, pc.top - dy),
        right: Math.min(win.innerWidth, pc.right - dx),
        bottom: Math.min(win.innerHeight, pc.bottom - dy),
      };
    }
    return ctx;
  }

  function enterFrame(iframe, ctx, state) {
    let doc = null;
    try {
      doc = iframe.contentDocument; // null (or a throw) for cross-origin: skipped silently
    } catch (e) {
      doc = null;
    }
    if (!doc || !doc.documentElement || state.hidden) return;
    if (!visibleRect(iframe, ctx, false, state.area)) return;
    const sels = selectorsFor(iframe, ctx, state.xpath, state.anchor);
    const preferred = sels.find((s) => s.includes("@id=")) || sels[0];
    if (!preferred) return;
    const inner = makeContext(doc, ctx, iframe, preferred);
    walk(doc.documentElement, inner, "/" + xpathName(doc.documentElement), null, false, false,
      UNBOUNDED);
  }

  // The union of `rects` as a DOMRect (empty ones ignored, as getBoundingClientRect does).
  function unionRect(rects) {
    let left = Infinity;
    let top = Infinity;
    let right = -Infinity;
    let bottom = -Infinity;
    for (let i = 0; i < rects.length; i++) {
      const r = rects[i];
      if (r.width <= 0 || r.height <= 0) continue;
      if (r.left < left) left = r.left;
      if (r.top < top) top = r.top;
      if (r.right > right) right = r.right;
      if (r.bottom > bottom) bottom = r.bottom;
    }
    return left === Infinity ? null : new DOMRect(left, top, right - left, bottom - top);
  }

  // A visible, non-blank text node of a mixed-content element (its selectors are the parent's).
  function addTextNode(n, el, ctx, xpath, anchor, area) {
    if (!/\S/.test(n.data)) return;
    const range = ctx.range || (ctx.range = ctx.doc.createRange()); // one Range, reused
    range.selectNodeContents(n);
    // Line boxes once; their union is the bounding rect (what range.getBoundingClientRect()
    // would compute again).
    const lines = range.getClientRects();
    const rect = unionRect(lines);
    if (rect === null || rect.width < 1 || rect.height < 1) return;
    if (area.clip !== null && !overlaps(rect, area.clip)) return;
    if (ctx.index.invisible.has(el)) return;
    const first = lines[0] || rect;
    if (!placeVisible(el, first, ctx, area.view)) return;
    records.push({ node: n, owner: el, rect, ctx, interactive: false, xpath, anchor,
      content: null });
  }

  // xpath: absolute XPath of `el` (null inside shadow roots); anchor: nearest uniquely-id'd
  // light ancestor {prefix, length} for id-anchored paths; parentArea: see areasFor.
  function walk(el, ctx, xpath, anchor, hidden, inTextOwner, parentArea) {
    const tag = el.localName;
    const textAnchor = anchor; // text nodes share `el`'s selectors, built from this anchor
    const areas = areasFor(el, ctx, parentArea);
    if (tag === "iframe" || tag === "frame") {
      enterFrame(el, ctx, { hidden, xpath, anchor, area: areas.own });
      return;
    }
    const bits = ctx.index.flags.get(el) || 0;
    if (!hidden && bits !== 0) {
      hidden = (bits & 6) !== 0 || ((bits & 1) !== 0 && el.getAttribute("aria-hidden") === "true");
    }
    let ownsText = inTextOwner;
    let mixedText = false;
    if (!hidden && !SKIP_TAGS.has(tag)) {
      if (isInteractive(el, tag, bits)) {
        const role = el.getAttribute("role");
        ownsText = ownsText || TEXT_OWNER_TAGS.has(tag) || TEXT_OWNER_ROLES.has(role);
        if (!isDisabled(el, bits)) {
          let rect = visibleRect(el, ctx, true, areas.own);
          if (!rect && tag === "input" && (el.type === "checkbox" || el.type === "radio")) {
            // A styled toggle: the input is hidden, its visible label is what users click.
            for (const label of labelsOf(el, ctx)) {
              rect = visibleRect(label, ctx, false, areasFor(label, ctx, UNBOUNDED).own);
              if (rect) break;
            }
          }
          if (rect) {
            records.push({ node: el, owner: el, rect, ctx, interactive: true, xpath, anchor,
              content: null });
          }
        }
      } else if (!inTextOwner && el.childElementCount === 0) {
        const content = el.textContent; // read once: describe() reuses it
        if (/\S/.test(content) && visibleRect(el, ctx, false, areas.own)) {
          records.push({ node: el, owner: el, rect: visibleCache.get(el), ctx,
            interactive: false, xpath, anchor, content });
        }
      } else if (!inTextOwner) {
        mixedText = true;
      }
    }
    if (tag === "svg" || tag === "math" || LEAF_TAGS.has(tag)) return;
    // Own unique id: anchor for the whole subtree.
    if (xpath !== null && el.id) {
      const owners = ctx.index.light.get("#" + el.id);
      if (owners && owners.length === 1) {
        anchor = { prefix: "//*[@id=" + xpathLiteral(el.id) + "]", length: xpath.length };
      }
    }
    const inner = areas.children;
    if (ctx.index.invisible.get(el) === 2) hidden = true;
    // A closed <details> shows only its <summary> (the rest is in a content-visibility:hidden
    // slot of its user-agent shadow root, which no box test would notice).
    const closedDetails = tag === "details" && !el.open;
    if (el.shadowRoot) {
      for (let c = el.shadowRoot.firstElementChild; c; c = c.nextElementSibling) {
        walk(c, ctx, null, null, hidden, ownsText, inner);
      }
    }
    const seen = el.firstElementChild ? new Map() : null;
    for (let c = mixedText ? el.firstChild : el.firstElementChild; c;
      c = mixedText ? c.nextSibling : c.nextElementSibling) {
      if (c.nodeType !== 1) {
        if (c.nodeType === 3) addTextNode(c, el, ctx, xpath, textAnchor, areas.own);
        continue;
      }
      let childPath = null;
      if (xpath !== null) {
        const name = xpathName(c);
        const n = (seen.get(name) || 0) + 1;
        seen.set(name, n);
        // The short step is built first: one rope node per level instead of five, which makes
        // flattening the path (prefix compression, JSON) much cheaper.
        childPath = xpath + ("/" + name + "[" + n + "]");
      }
      const childHidden = hidden || (closedDetails && c.localName !== "summary");
      walk(c, ctx, childPath, anchor, childHidden, ownsText, inner);
    }
  }

  // ---------- selectors ----------
  const SEP = "\u0001";
  const isPassword = (el) => el.localName === "input" && el.type === "password";

  function siblingsOf(el) {
    const parent = el.parentNode;
    if (parent instanceof ShadowRoot) {
      return { host: parent.host, own: parent.children, other: parent.host.children };
    }
    if (parent && parent.nodeType === 1) {
      const other = parent.shadowRoot ? parent.shadowRoot.children : null;
      return { host: parent, own: parent.children, other };
    }
    return null;
  }

  // A css path for Playwright's piercing engine, where `>` also steps from a host into its
  // shadow root: a host's light children and its shadow children compete for the same step,
  // so a step that could match in both is refused (null) rather than emitted ambiguous.
  // With `deep` (the document's deep index) it also returns the tail below the nearest
  // ancestor whose id is unique across the document and its shadow roots.
  function cssPath(el, deep) {
    const steps = [];
    let anchored = null;
    for (let n = el; n; ) {
      if (deep && n !== el && anchored === null && n.id) {
        const owners = deep.get("#" + n.getAttribute("id"));
        if (owners && owners.length === 1) {
          anchored = "#" + CSS.escape(n.getAttribute("id")) + " > " + steps.join(" > ");
        }
      }
      if (n === n.ownerDocument.documentElement) {
        steps.unshift(CSS.escape(n.localName));
        return { full: steps.join(" > "), anchored };
      }
      const family = siblingsOf(n);
      if (!family) return null;
      const tag = n.localName;
      let position = 0;
      let sameTag = 0;
      for (let i = 0; i < family.own.length; i++) {
        if (family.own[i] === n) position = i + 1;
        if (family.own[i].localName === tag) sameTag++;
      }
      let otherSameTag = false;
      if (family.other) {
        for (const o of family.other) if (o.localName === tag) otherSameTag = true;
      }
      if (sameTag === 1 && !otherSameTag) {
        steps.unshift(CSS.escape(tag));
      } else {
        const rival = family.other ? family.other[position - 1] : null;
        if (rival && rival.localName === tag) return null;
        steps.unshift(`${CSS.escape(tag)}:nth-child(${position})`);
      }
      n = family.host;
    }
    return null;
  }

  function absXPath(el) {
    const steps = [];
    for (let n = el; n && n.nodeType === 1; n = n.parentNode) {
      if (n === n.ownerDocument.documentElement) return "/" + xpathName(n) + steps.join("");
      if (!(n.parentNode && n.parentNode.nodeType === 1)) return null; // inside a shadow root
      const name = xpathName(n);
      let k = 1;
      for (let s = n.previousElementSibling; s; s = s.previousElementSibling) {
        if (xpathName(s) === name) k++;
      }
      steps.unshift("/" + name + "[" + k + "]");
    }
    return null;
  }

  // How many of `owners` (elements sharing one name) have value=`value`; counted once per name.
  function valueCount(ctx, owners, key, value) {
    let counts = ctx.index.values.get(key);
    if (!counts) {
      counts = new Map();
      for (const o of owners) {
        const v = o.getAttribute("value");
        counts.set(v, (counts.get(v) || 0) + 1);
      }
      ctx.index.values.set(key, counts);
    }
    return counts.get(value) || 0;
  }

  // XPaths without their "xpath=" prefix, the absolute one first. `row` ({text, pairs} of the
  // element's own row, else null): a selector that only repeats what that row already carries
  // is a short token instead (see wireXPaths).
  function xpathSelectors(el, ctx, xpath, anchor, row) {
    const out = [xpath];
    const light = ctx.index.light;
    const id = el.id;
    const idOwners = id ? light.get("#" + id) : null;
    const name = xpathName(el);
    const short = row !== null && name === el.localName;
    if (idOwners && idOwners.length === 1) {
      out.push(row !== null && attrOf(row.pairs, "id") === id
        ? "#" : "//*[@id=" + xpathLiteral(id) + "]");
    } else if (anchor) out.push(anchor.prefix + xpath.slice(anchor.length));
    let anchored = 0;
    const present = (ctx.index.flags.get(el) & HAS_ANCHOR) !== 0
      ? el.getAttributeNames().filter((a) => ANCHOR_SET.has(a))
      : [];
    if (present.length > 1) present.sort((a, b) => ANCHOR_RANK.get(a) - ANCHOR_RANK.get(b));
    for (const attr of present) {
      if (anchored >= 2) break;
      const v = el.getAttribute(attr);
      if (!v || v.length > 100) continue;
      const owners = light.get(el.localName + SEP + attr + SEP + v);
      if (!owners) continue;
      const test = `[@${attr}=${xpathLiteral(v)}]`;
      const shownValue = short && attrOf(row.pairs, attr) === v;
      if (owners.length === 1) {
        out.push(shownValue ? "@" + attr : `//${name}${test}`);
        anchored++;
      } else if (attr === "name" && !isPassword(el) && el.hasAttribute("value")) {
        // Radio groups share a name; name + value tells the options apart.
        const value = el.getAttribute("value");
        if (valueCount(ctx, owners, el.localName + SEP + v, value) === 1) {
          out.push(shownValue && attrOf(row.pairs, "value") === value
            ? "@name+" : `//${name}${test}[@value=${xpathLiteral(value)}]`);
          anchored++;
        }
      }
    }
    if (anchored === 0 && TEXT_ANCHOR_TAGS.has(el.localName)) {
      const text = xpathSpace(el.textContent);
      if (text && text.length <= 60 && textCount(ctx, el.localName, text) === 1) {
        out.push(short && row.text === text
          ? "=" : `//${name}[normalize-space(.)=${xpathLiteral(text)}]`);
      }
    }
    return out;
  }

  function cssSelectors(el, ctx) {
    const out = [];
    const deep = ctx.index.deep;
    const path = cssPath(el, deep);
    if (path) out.push("css=" + path.full);
    const id = el.getAttribute("id");
    if (id && deep.get("#" + id).length === 1) out.push("css=#" + CSS.escape(id));
    else if (path && path.anchored) out.push("css=" + path.anchored);
    for (const attr of ANCHOR_ATTRS) {
      if (out.length >= 4) break;
      const v = el.getAttribute(attr);
      if (!v || v.length > 100 || /[\n\r\f]/.test(v)) continue;
      const owners = deep.get(el.localName + SEP + attr + SEP + v);
      if (owners && owners.length === 1) {
        out.push(`css=${CSS.escape(el.localName)}[${attr}=${cssString(v)}]`);
      }
    }
    return out;
  }

  // Full Playwright selectors ("xpath=..." / "css=..."), as frame paths store them.
  function selectorsFor(el, ctx, xpath, anchor) {
    return xpath !== null
      ? xpathSelectors(el, ctx, xpath, anchor, null).map((s) => "xpath=" + s)
      : cssSelectors(el, ctx);
  }

  // ---------- page geometry: scroll container, overlay, chunks ----------
  // The main scroller when the document itself does not scroll: a scrollable element (from
  // the index's layout table) that overflows and covers most of the viewport.
  function findScrollContainer(ctx) {
    const root = topDoc.documentElement;
    const body = topDoc.body;
    if (!body) return null;
    const se = topDoc.scrollingElement || root;
    const blocks = (el) => /hidden|clip/.test(ctx.computed(el).overflowY);
    if (se.scrollHeight > se.clientHeight + 4 && !blocks(root) && !blocks(body)) return null;
    let best = null;
    let bestArea = vw * vh * 0.4;
    for (const [el, info] of ctx.index.layout) {
      if (info.overflow !== "scroll" || el.scrollHeight <= el.clientHeight + 4) continue;
      if (!/auto|scroll|overlay/.test(ctx.computed(el).overflowY)) continue;
      const r = el.getBoundingClientRect();
      const area = Math.max(0, Math.min(r.right, vw) - Math.max(r.left, 0)) *
        Math.max(0, Math.min(r.bottom, vh) - Math.max(r.top, 0));
      if (area > bestArea) {
        best = el;
        bestArea = area;
      }
    }
    return best;
  }

  // The innermost fixed layer covering ~the whole viewport and on top at its centre (a modal
  // backdrop). One hit test, and only when such a fixed layer exists at all.
  function findBlocker(ctx) {
    const fixedCover = (el) => {
      const info = ctx.index.layout.get(el);
      if (!info || info.position !== "fixed") return false;
      const r = el.getBoundingClientRect();
      return r.width >= vw * 0.9 && r.height >= vh * 0.9;
    };
    if (!ctx.index.occluders.some(fixedCover)) return null;
    for (let el = topDoc.elementFromPoint(vw / 2, vh / 2); el; el = deepParent(el)) {
      if (el === topDoc.documentElement || el === topDoc.body) break;
      if (fixedCover(el)) return el;
    }
    return null;
  }

  const topCtx = makeContext(topDoc, null, null, null);
  const container = findScrollContainer(topCtx);
  const blocker = findBlocker(topCtx);
  walk(topDoc.documentElement, topCtx, "/" + xpathName(topDoc.documentElement), null, false, false,
    UNBOUNDED);

  const pageX = window.scrollX;
  const pageY = window.scrollY;
  const scrollTop = container ? container.scrollTop : pageY;
  const viewH = container ? container.clientHeight : vh;
  const totalH = container
    ? container.scrollHeight
    : Math.max(topDoc.documentElement.scrollHeight, topDoc.body ? topDoc.body.scrollHeight : 0);
  const chunkH = Math.max(1, CHUNK_RATIO * viewH);
  const containerTop = container
    ? container.getBoundingClientRect().top + container.clientTop
    : 0;

  function chunkOf(rec) {
    const centre = rec.rect.top + rec.ctx.offY + Math.min(rec.rect.height, chunkH) / 2;
    let y;
    if (!container) {
      y = centre + pageY;
    } else if (deepContains(container, rec.ctx.topIframe || rec.owner)) {
      y = centre - containerTop + scrollTop;
    } else {
      // Outside the scroller (a fixed header): always on screen, so in the current chunk.
      y = scrollTop + Math.min(Math.max(centre - containerTop, 0), viewH - 1);
    }
    y = Math.min(Math.max(y, 0), Math.max(totalH - 1, 0));
    return Math.floor(y / chunkH);
  }

  // ---------- records -> output ----------
  const round = Math.round; // whole CSS pixels are precise enough and keep the JSON small

  function implicitRole(el) {
    const tag = el.localName;
    if (tag === "input") return INPUT_ROLES[el.type] || "textbox";
    if (tag === "a") return el.hasAttribute("href") ? "link" : "";
    if (tag === "select") return el.multiple || el.size > 1 ? "listbox" : "combobox";
    return IMPLICIT_ROLES[tag] || "";
  }

  function accessibleName(el, ctx, text) {
    const label = el.getAttribute("aria-label");
    if (label) return label;
    const by = el.getAttribute("aria-labelledby");
    if (by) {
      const root = el.getRootNode();
      const parts = by.split(/\s+/).map((id) => root.getElementById(id)).filter(Boolean);
      if (parts.length) return parts.map((p) => p.textContent).join(" ");
    }
    const labels = labelsOf(el, ctx);
    if (labels.length) return labels.map((l) => l.textContent).join(" ");
    return el.getAttribute("alt") || el.getAttribute("title") ||
      el.getAttribute("placeholder") || text;
  }

  // The shown attributes as a flat [name index, value, ...] list (names: WIRE_ATTRS), in the
  // element's own order: the rendering keeps it.
  function attributesOf(el) {
    const pairs = [];
    if (el.hasAttributes()) {
      const names = el.getAttributeNames();
      for (const a of names) {
        if (!SHOWN_SET.has(a)) continue;
        const v = el.getAttribute(a);
        if (v) pairs.push(WIRE_ATTR_INDEX.get(a), v.length > 200 ? v.slice(0, 200) : v);
      }
      if (names.includes("contenteditable")) {
        const editable = el.getAttribute("contenteditable");
        if (editable !== "false") pairs.push(WIRE_ATTR_INDEX.get("contenteditable"), "true");
      }
    }
    const tag = el.localName;
    const VALUE = WIRE_ATTR_INDEX.get("value");
    if (tag === "input") {
      const type = el.type;
      if (type === "checkbox" || type === "radio") {
        if (el.hasAttribute("value")) pairs.push(VALUE, el.getAttribute("value"));
        if (el.checked) pairs.push(WIRE_ATTR_INDEX.get("checked"), "true");
      } else if (type !== "password" && el.value) {
        // The current value, never a password's.
        pairs.push(VALUE, el.value.length > 200 ? el.value.slice(0, 200) : el.value);
      }
    } else if ((tag === "textarea" || tag === "select") && el.value) {
      pairs.push(VALUE, el.value.length > 200 ? el.value.slice(0, 200) : el.value);
    }
    return pairs;
  }

  // One element as a compact row (parse_snapshot expands it; field order is the wire format):
  // [tag (index into `tags`), text | index of an earlier row with the same text, attributes (flat pairs, see
  //  attributesOf), selectors | index of the row whose selectors it shares, frame path index
  //  (-1 = top), chunk, [x, y, width, height], interactive (0/1),
  //  options, role (index into `roles`), name (1 = the row's text, 2 = its aria-label)]
  //  -- the last three only when not empty. Every byte here costs transfer time (~30 ns/byte
  //  through CDP and Playwright), hence the back-references.
  const selectorOwner = new Map(); // element -> index of the first row that used its selectors
  const framePaths = [];
  const frameIndex = new Map();
  const roles = [];
  const roleIndex = new Map();
  const tags = []; // rows name their tag by index into this list
  const tagIndex = new Map();
  const textRows = new Map(); // text (8+ chars) -> index of the first row that carried it

  // Selectors on the wire (a third of the bytes otherwise): "xpath=" is implied for anything
  // not starting with "css=", and an absolute path that shares k leading characters with the
  // previous row's absolute path is sent as "~k|rest"; besides, the tokens of xpathSelectors.
  // parse_snapshot undoes all of it.
  let lastAbsolute = "";
  function wireXPaths(list) {
    const path = list[0];
    if (path.startsWith("//")) return list;
    const max = Math.min(path.length, lastAbsolute.length);
    let k = 0;
    while (k < max && path.charCodeAt(k) === lastAbsolute.charCodeAt(k)) k++;
    lastAbsolute = path;
    if (k > 12) list[0] = "~" + k + "|" + path.slice(k);
    return list;
  }

  function optionsOf(select) {
    const options = select.options;
    const out = [];
    for (let i = 0; i < options.length && i < 100; i++) {
      const o = options[i];
      out.push(collapse(o.label || o.text));
    }
    return out;
  }

  function describe(rec, index) {
    const el = rec.owner;
    const isText = rec.node.nodeType === 3;
    const tag = isText ? "#text" : el.localName;
    let text;
    let pairs = null;
    if (isText) {
      text = capText(rec.node.data, MAX_TEXT);
    } else {
      const formField = tag === "input" || tag === "select" || tag === "textarea";
      text = formField ? "" : capText(rec.content ?? el.textContent, MAX_TEXT);
      if (!text && rec.interactive && !formField) {
        // An image-only link or button: its picture's alt text is what a user would read.
        const img = el.querySelector("img[alt]");
        if (img) text = capText(img.getAttribute("alt"), MAX_TEXT);
      }
      pairs = attributesOf(el);
    }
    let selectors = selectorOwner.get(el);
    if (selectors === undefined) {
      selectorOwner.set(el, index);
      const row = pairs === null ? null : { text, pairs };
      selectors = rec.xpath !== null
        ? wireXPaths(xpathSelectors(el, rec.ctx, rec.xpath, rec.anchor, row))
        : cssSelectors(el, rec.ctx);
    }
    let frame = -1;
    if (rec.ctx.frame.length) {
      frame = frameIndex.get(rec.ctx);
      if (frame === undefined) {
        frame = framePaths.push(rec.ctx.frame) - 1;
        frameIndex.set(rec.ctx, frame);
      }
    }
    const r = rec.rect;
    const box = [round(r.left + pageX + rec.ctx.offX), round(r.top + pageY + rec.ctx.offY),
      round(r.width), round(r.height)];
    const chunk = chunkOf(rec);
    let wireText = text;
    if (text.length >= 8) {
      const earlier = textRows.get(text);
      if (earlier === undefined) textRows.set(text, index);
      else wireText = earlier;
    }
    let tagNumber = tagIndex.get(tag);
    if (tagNumber === undefined) {
      tagNumber = tags.push(tag) - 1;
      tagIndex.set(tag, tagNumber);
    }
    if (isText) return [tagNumber, wireText, 0, selectors, frame, chunk, box, 0];
    const interactive = rec.interactive ? 1 : 0;
    const row = [tagNumber, wireText, pairs.length ? pairs : 0, selectors, frame, chunk, box,
      interactive];
    if (tag === "select" || rec.interactive) {
      row.push(tag === "select" ? optionsOf(el) : 0);
    }
    if (rec.interactive) {
      const role = el.getAttribute("role") || implicitRole(el);
      let roleNumber = roleIndex.get(role);
      if (roleNumber === undefined) {
        roleNumber = roles.push(role) - 1;
        roleIndex.set(role, roleNumber);
      }
      row.push(roleNumber);
      const name = capText(accessibleName(el, rec.ctx, text) || "", 100);
      row.push(name === text ? 1 : name !== "" && name === attrOf(pairs, "aria-label") ? 2 : name);
    }
    return row;
  }

  const elements = records.map(describe);
  let containerSelector = null;
  if (container) {
    const path = absXPath(container);
    const css = path ? null : cssPath(container, null);
    containerSelector = path ? "xpath=" + path : css ? "css=" + css.full : null;
  }
  return JSON.stringify({
    url: location.href,
    title: topDoc.title,
    viewport: { width: vw, height: vh },
    scroll_y: scrollTop,
    scroll_container: containerSelector,
    chunk_height: chunkH,
    frames: framePaths,
    attribute_names: WIRE_ATTRS,
    roles,
    tags,
    elements,
  });
}
