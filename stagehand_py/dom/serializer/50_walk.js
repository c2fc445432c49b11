// Serializer part 5: the walk over light DOM, open shadow roots and same-origin iframes,
// collecting `records` (and `crossFrames`: iframes whose document it cannot enter).
// {node, owner, rect, ctx, interactive, xpath, anchor, content (a leaf's textContent),
//  disabled, ariaHidden, implicit (made clickable without markup), scrolled (in a scroller)}
const records = [];
const crossFrames = [];

// Where an iframe's content box starts in its parent document's viewport.
function contentOffset(iframe, parentDoc) {
  const r = iframe.getBoundingClientRect();
  const st = parentDoc.defaultView.getComputedStyle(iframe);
  return {
    dx: r.left + iframe.clientLeft + parseFloat(st.paddingLeft),
    dy: r.top + iframe.clientTop + parseFloat(st.paddingTop),
  };
}

function makeContext(doc, parent, iframe, frameSelector) {
  const win = doc.defaultView;
  const ctx = {
    doc, index: buildIndex(doc), frame: [], chain: [], offX: 0, offY: 0,
    scrollX: win.scrollX, scrollY: win.scrollY, computed: styleReader(doc),
    shadow: shadowReader(doc),
    clip: { left: 0, top: 0, right: vw, bottom: vh }, topIframe: null,
  };
  if (parent === null && CHILD !== null) {
    // Child mode: this document is a frame of a page serialized by another evaluate, whose
    // viewport position and visible part of this frame come as options.
    ctx.offX = CHILD.x;
    ctx.offY = CHILD.y;
    const c = CHILD.clip;
    ctx.clip = { left: Math.max(0, c.left), top: Math.max(0, c.top),
      right: Math.min(vw, c.right), bottom: Math.min(vh, c.bottom) };
  } else if (parent) {
    const { dx, dy } = contentOffset(iframe, parent.doc);
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

// An iframe this document cannot enter: where its rows go (`at`), its frame path, where its
// content sits in the top viewport, the part of it on screen (in its own coordinates), and
// whether it scrolls with the page's scroll container (for chunk numbers).
function reportCrossFrame(iframe, ctx, selector) {
  const { dx, dy } = contentOffset(iframe, ctx.doc);
  const pc = ctx.clip;
  const outer = ctx.topIframe || iframe;
  crossFrames.push({
    path: ctx.frame.concat([selector]),
    at: records.length,
    x: ctx.offX + dx,
    y: ctx.offY + dy,
    clip: { left: pc.left - dx, top: pc.top - dy, right: pc.right - dx, bottom: pc.bottom - dy },
    inside: CHILD !== null ? CHILD.inside : container !== null && deepContains(container, outer),
  });
}

function enterFrame(iframe, ctx, state) {
  if (state.hidden === 2) return;
  let doc = null;
  try {
    doc = iframe.contentDocument; // null (or a throw) for cross-origin: reported instead
  } catch (e) {
    doc = null;
  }
  if (doc && !doc.documentElement) return;
  if (!visibleRect(iframe, ctx, false, state.area)) return;
  const sels = selectorsFor(iframe, ctx, state.xpath, state.anchor);
  const preferred = sels.find((s) => s.includes("@id=")) || sels[0];
  if (!preferred) return;
  if (!doc) {
    reportCrossFrame(iframe, ctx, preferred);
    return;
  }
  const inner = makeContext(doc, ctx, iframe, preferred);
  walk(doc.documentElement, inner, "/" + xpathName(doc.documentElement), null, state.hidden,
    false, UNBOUNDED);
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
    content: null, scrolled: area.reach !== null });
}

// xpath: absolute XPath of `el` (null inside shadow roots); anchor: nearest uniquely-id'd
// light ancestor {prefix, length} for id-anchored paths; hidden: 0 shown, 1 inside
// aria-hidden (only interactive elements are kept there), 2 hidden; parentArea: see areasFor.
function walk(el, ctx, xpath, anchor, hidden, inTextOwner, parentArea) {
  const tag = el.localName;
  const textAnchor = anchor; // text nodes share `el`'s selectors, built from this anchor
  const areas = areasFor(el, ctx, parentArea);
  if (tag === "iframe" || tag === "frame") {
    enterFrame(el, ctx, { hidden, xpath, anchor, area: areas.own });
    return;
  }
  const bits = ctx.index.flags.get(el) || 0;
  if (hidden < 2 && bits !== 0) {
    if ((bits & 6) !== 0) hidden = 2;
    else if ((bits & 1) !== 0 && el.getAttribute("aria-hidden") === "true") hidden = 1;
  }
  let ownsText = inTextOwner;
  let mixedText = false;
  let textless = false; // a container: clickable if its children showed nothing (see below)
  if (hidden < 2 && (tag === "svg" || !SKIP_TAGS.has(tag))) {
    const marked = isInteractive(el, tag, bits);
    // An <svg> is not walked into: a leaf here, its text is its <title> (a hint, not a label).
    const leaf = tag === "svg" || el.childElementCount === 0;
    const free = !marked && !inTextOwner;
    const content = free && leaf && tag !== "svg" ? el.textContent : null; // read once
    // Something that shows no text is only seen if it is a clickable (45_clickable.js).
    // A <canvas> is always a line (with its size, see attributesOf), so a target drawn in one
    // is seen and refused (CANVAS_UNSUPPORTED), never guessed at.
    const implicit = free && leaf && (content === null || !/\S/.test(content)) &&
      (tag === "canvas" || implicitClick(el, tag, ctx.computed));
    if (marked || implicit) {
      ownsText = ownsText || implicit || TEXT_OWNER_TAGS.has(tag) ||
        TEXT_OWNER_ROLES.has(el.getAttribute("role"));
      pushControl(el, tag, ctx, { bits, area: areas.own, xpath, anchor, hidden, implicit });
    } else if (free && leaf) {
      if (hidden === 0 && /\S/.test(content) && visibleRect(el, ctx, false, areas.own)) {
        records.push({ node: el, owner: el, rect: visibleCache.get(el), ctx,
          interactive: false, xpath, anchor, content, scrolled: areas.own.reach !== null });
      }
    } else if (free) {
      mixedText = hidden === 0;
      textless = true;
    }
  }
  if (tag === "svg" || tag === "math" || LEAF_TAGS.has(tag)) return;
  // Nothing under a hidden element is kept (a closed mega-menu can hold thousands).
  if (hidden === 2 || ctx.index.invisible.get(el) === 2) return;
  // Own unique id: anchor for the whole subtree.
  if (xpath !== null && el.id) {
    const owners = ctx.index.light.get("#" + el.id);
    if (owners && owners.length === 1) {
      anchor = { prefix: "//*[@id=" + xpathLiteral(el.id) + "]", length: xpath.length };
    }
  }
  const inner = areas.children;
  // A closed <details> shows only its <summary> (the rest is in a content-visibility:hidden
  // slot of its user-agent shadow root, which no box test would notice).
  const closedDetails = tag === "details" && !el.open;
  const shadowRoot = ctx.shadow(el); // open, or closed and found through DevTools
  if (shadowRoot) {
    for (let c = shadowRoot.firstElementChild; c; c = c.nextElementSibling) {
      walk(c, ctx, null, null, hidden, ownsText, inner);
    }
  }
  const before = records.length;
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
    const childHidden = closedDetails && c.localName !== "summary" ? 2 : hidden;
    walk(c, ctx, childPath, anchor, childHidden, ownsText, inner);
  }
  // A container whose children added no line shows no text (an icon's wrapper, an image
  // link made by script): it is a line if it is a clickable. Asked after the walk, so no
  // container's text is read just to find out, and no line comes before it (order holds).
  if (textless && records.length === before && implicitClick(el, tag, ctx.computed)) {
    pushControl(el, tag, ctx, { bits, area: areas.own, xpath, anchor, hidden, implicit: true });
  }
}

// An interactive element (marked up as one, or `implicit`ly clickable) as a record, when it
// is visible. Disabled controls stay, with their text, flagged and not actionable.
function pushControl(el, tag, ctx, { bits, area, xpath, anchor, hidden, implicit }) {
  const disabled = !implicit && isDisabled(el, bits);
  let rect = visibleRect(el, ctx, true, area);
  if (!rect && tag === "input" && (el.type === "checkbox" || el.type === "radio")) {
    // A styled toggle: the input is hidden, its visible label is what users click.
    for (const label of labelsOf(el, ctx)) {
      rect = visibleRect(label, ctx, false, areasFor(label, ctx, UNBOUNDED).own);
      if (rect) break;
    }
  }
  if (rect) {
    records.push({ node: el, owner: el, rect, ctx, interactive: !disabled, xpath, anchor,
      content: null, disabled, ariaHidden: hidden === 1, implicit,
      scrolled: area.reach !== null });
  }
}
