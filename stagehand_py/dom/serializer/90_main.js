// Serializer part 9: run the walk, measure the scroll geometry, and return the JSON string.
// In child mode (a cross-origin frame, see 10_setup.js) the scroll geometry is the top
// document's, passed in: rows of every frame then share one box and chunk system.
const topCtx = makeContext(topDoc, null, null, null);
const container = CHILD === null ? findScrollContainer(topCtx) : null;
const blocker = CHILD === null ? findBlocker(topCtx) : null;
walk(topDoc.documentElement, topCtx, "/" + xpathName(topDoc.documentElement), null, 0, false,
  UNBOUNDED);

function measureGeometry() {
  const pageX = window.scrollX;
  const pageY = window.scrollY;
  const viewH = container ? container.clientHeight : vh;
  return {
    pageX,
    pageY,
    container: container !== null,
    scrollTop: container ? container.scrollTop : pageY,
    viewH,
    totalH: container
      ? container.scrollHeight
      : Math.max(topDoc.documentElement.scrollHeight, topDoc.body ? topDoc.body.scrollHeight : 0),
    chunkH: Math.max(1, CHUNK_RATIO * viewH),
    containerTop: container ? container.getBoundingClientRect().top + container.clientTop : 0,
  };
}
const geometry = CHILD === null ? measureGeometry() : options.geometry;
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
  scroll_y: geometry.scrollTop,
  scroll_container: containerSelector,
  chunk_height: geometry.chunkH,
  geometry,
  frames: framePaths,
  cross_origin_frames: crossFrames,
  attribute_names: WIRE_ATTRS,
  roles,
  tags,
  elements,
});
