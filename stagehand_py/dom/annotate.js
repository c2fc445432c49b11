// Draw (or remove) numbered boxes over snapshot elements, for the annotated screenshot.
// Boxes are in document coordinates of the top page; the layer is absolutely positioned on
// <html>, ignores the pointer, and is removed again right after the screenshot.
({ action, boxes }) => {
  const LAYER_ID = "__stagehand_py_annotations";
  const old = document.getElementById(LAYER_ID);
  if (old) old.remove();
  if (action !== "draw") return 0;
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
  return boxes.length;
}
