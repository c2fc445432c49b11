// Serializer part 3: one pass over every element of a document, before the walk.
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
  const shadow = shadowReader(doc);
  const readStyle = (el, tag) => {
    const style = computed(el);
    const position = style.position;
    // Overflow only clips descendants: an element without any to walk (most of them: inputs,
    // images, spans of text) skips that read, the priciest of the lot ("visible", or e.g.
    // "hidden auto", x then y).
    const walked = (el.firstElementChild !== null && !LEAF_TAGS.has(tag)) ||
      shadow(el) !== null;
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
    const root = shadow(el);
    if (root) roots.push(root);
  }
  // Without shadow roots both views hold the same; with them, deep starts as a copy.
  deep = roots.length === 0
    ? light
    : new Map(Array.from(light, ([key, owners]) => [key, owners.slice()]));
  for (let i = 0; i < roots.length; i++) {
    for (const el of roots[i].querySelectorAll("*")) {
      register(el, true);
      const root = shadow(el);
      if (root) roots.push(root);
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
