// Serializer part 9: run the walk, measure the scroll geometry, and return the JSON string.
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
