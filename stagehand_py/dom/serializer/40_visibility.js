// Serializer part 4: is an element shown, and on top where a user would click it?
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
// Pushed off the page (a skip link at left:-10000px) = left of or above the document's origin;
// inside a scroller, outside what scrolling it can bring into view (`reach`, see areasFor):
// content scrolled out above a scroller's visible part is as reachable as content below it.
function styleHides(el, rect, ctx, area) {
  if (rect.width <= 1 || rect.height <= 1) return true;
  if (ctx.index.invisible.has(el)) return true;
  if (area.reach !== null) return !overlaps(rect, area.reach);
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
  if (styleHides(el, rect, ctx, area) || (area.clip !== null && !overlaps(rect, area.clip)) ||
    (interactive && positionedOut(el, ctx) && cssClipHides(el, ctx)) ||
    !placeVisible(el, rect, ctx, area.view)) {
    result = null;
  }
  visibleCache.set(el, result);
  return result;
}

// The clip/view area `el` itself is painted in (its containing block decides for
// absolutely positioned and fixed elements), and the one it gives its children.
// reach: what the innermost scroller can scroll into view (its box grown by its scroll range
// on every side: it holds the scrollable overflow whichever way the content flows), or null.
// `same`: the {own, children} pair of an element that changes nothing, made once per area.
const UNBOUNDED = {
  clip: null, view: null, reach: null, cbClip: null, cbView: null, cbReach: null, same: null,
};
function areasFor(el, ctx, parentArea) {
  const info = ctx.index.layout.get(el);
  if (!info) {
    if (parentArea.same === null) parentArea.same = { own: parentArea, children: parentArea };
    return parentArea.same;
  }
  let own = parentArea;
  if (info.position === "fixed") own = UNBOUNDED;
  else if (info.position === "absolute") {
    own = { clip: parentArea.cbClip, view: parentArea.cbView, reach: parentArea.cbReach,
      cbClip: parentArea.cbClip, cbView: parentArea.cbView, cbReach: parentArea.cbReach,
      same: null };
  }
  let clip = own.clip;
  let view = own.view;
  let reach = own.reach;
  if (info.overflow) {
    const r = el.getBoundingClientRect();
    clipperRects.set(el, r);
    view = intersect(view, r);
    // Scrolled-away content of a scroller is reachable (chunks cover it); clipped is not.
    if (info.overflow === "clip") clip = intersect(clip, r);
    else {
      clip = null;
      const dx = Math.max(0, el.scrollWidth - el.clientWidth);
      const dy = Math.max(0, el.scrollHeight - el.clientHeight);
      reach = { left: r.left - dx, top: r.top - dy, right: r.right + dx, bottom: r.bottom + dy };
    }
  }
  const positioned = info.position !== "static";
  const children = {
    clip, view, reach,
    cbClip: positioned ? clip : own.cbClip,
    cbView: positioned ? view : own.cbView,
    cbReach: positioned ? reach : own.cbReach,
    same: null,
  };
  return { own, children };
}
