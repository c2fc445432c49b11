// Draw (or remove) numbered boxes over snapshot elements, for the annotated screenshot.
// Boxes are in document coordinates of the top page; the layer is absolutely positioned on
// <html>, ignores the pointer, and is removed again right after the screenshot.
//
// "draw" returns the form fields (top document and same-origin frames) that have no style
// attribute: Chromium's screenshot path stamps an empty style="" on them, and "remove" (given
// that list back) strips exactly those empty attributes, so the page ends as it started.
({ action, boxes, bare }) => {
  const LAYER_ID = "__stagehand_py_annotations";
  const old = document.getElementById(LAYER_ID);
  if (old) old.remove();
  if (action !== "draw") {
    for (const field of bare || []) {
      if (field.getAttribute("style") === "") field.removeAttribute("style");
    }
    return [];
  }
  const unstyled = [];
  const collect = (doc) => {
    for (const field of doc.querySelectorAll("input:not([style]), textarea:not([style])")) {
      unstyled.push(field);
    }
    for (const frame of doc.querySelectorAll("iframe, frame")) {
      let inner = null;
      try {
        inner = frame.contentDocument; // cross-origin: null or a throw, skipped
      } catch (e) {
        inner = null;
      }
      if (inner) collect(inner);
    }
  };
  collect(document);
  const layer = document.createElement("div");
  layer.id = LAYER_ID;
  layer.style.cssText =
    "position:absolute;left:0;top:0;width:0;height:0;overflow:visible;" +
    "pointer-events:none;z-index:2147483647;";
  const palette = ["#e6194b", "#3cb44b", "#4363d8", "#f58231", "#911eb4", "#008080"];
  const fragment = document.createDocumentFragment();
  for (const box of boxes) {
    const colour = box.interactive ? palette[box.index % palette.length] : "#888888";
    const frame = document.createElement("div");
    frame.style.cssText =
      `position:absolute;left:${box.x}px;top:${box.y}px;width:${box.width}px;` +
      `height:${box.height}px;outline:2px solid ${colour};box-sizing:border-box;`;
    const label = document.createElement("span");
    label.textContent = String(box.index);
    label.style.cssText =
      `position:absolute;left:0;top:-14px;background:${colour};color:#fff;` +
      "font:bold 11px/14px monospace;padding:0 3px;white-space:nowrap;";
    frame.appendChild(label);
    fragment.appendChild(frame);
  }
  layer.appendChild(fragment);
  document.documentElement.appendChild(layer);
  return unstyled;
}
