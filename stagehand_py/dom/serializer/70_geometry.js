// Serializer part 7: the page's scroll container, a covering modal, and chunk numbers.
// chunkOf reads the scroll geometry 90_main.js measures after the walk.
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



// The chunk of a record, from `geometry` (90_main.js; a child-mode frame gets the top
// document's). Content inside a scroller that lies above the page's top (scrolled out above
// the scroller's visible part) gets negative chunks: ordered by distance like the rest.
function chunkOf(rec) {
  const g = geometry;
  const centre = rec.rect.top + rec.ctx.offY + Math.min(rec.rect.height, g.chunkH) / 2;
  let y;
  if (!g.container) {
    y = centre + g.pageY;
  } else if (CHILD !== null ? CHILD.inside : deepContains(container, rec.ctx.topIframe || rec.owner)) {
    y = centre - g.containerTop + g.scrollTop;
  } else {
    // Outside the scroller (a fixed header): always on screen, so in the current chunk.
    y = g.scrollTop + Math.min(Math.max(centre - g.containerTop, 0), g.viewH - 1);
  }
  y = Math.min(y, Math.max(g.totalH - 1, 0));
  if (!rec.scrolled) y = Math.max(y, 0);
  return Math.floor(y / g.chunkH);
}
