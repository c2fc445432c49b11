// Scroll `el` by pages or to one end, and report where it stopped.
// `el` is the element to scroll; when it cannot scroll itself, its nearest scrollable ancestor
// scrolls instead, and the document's root (or body) means the page's main scroller.
// A "page" is 0.8 of the scroller's visible height, so each step keeps some overlap; `percent`
// (0-100, when given) scrolls to that fraction of the scroll range instead.
(el, { direction, pages, percent }) => {
  const doc = el.ownerDocument;
  const root = doc.scrollingElement || doc.documentElement;
  const scrollable = (node) => {
    if (node === root || node === doc.body || node === doc.documentElement) return false;
    const style = getComputedStyle(node);
    return /auto|scroll|overlay/.test(style.overflowY) && node.scrollHeight > node.clientHeight + 1;
  };
  let scroller = null;
  for (let node = el; node && node.nodeType === 1; node = node.parentElement || node.getRootNode().host) {
    if (scrollable(node)) {
      scroller = node;
      break;
    }
  }
  const page = scroller === null;
  const target = page ? root : scroller;
  const height = page ? doc.defaultView.innerHeight : target.clientHeight;
  const max = Math.max(0, target.scrollHeight - height);
  const before = page ? doc.defaultView.scrollY : target.scrollTop;
  let top = before;
  if (typeof percent === "number") top = (max * percent) / 100;
  else if (direction === "top") top = 0;
  else if (direction === "bottom") top = max;
  else if (direction === "down") top = before + 0.8 * height * pages;
  else if (direction === "up") top = before - 0.8 * height * pages;
  top = Math.min(max, Math.max(0, top));
  if (page) doc.defaultView.scrollTo({ top, behavior: "instant" });
  else target.scrollTo({ top, behavior: "instant" });
  const after = page ? doc.defaultView.scrollY : target.scrollTop;
  return { page, before, after, max, height };
}
