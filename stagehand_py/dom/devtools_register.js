// Called through DevTools on a closed shadow root (`this`) with its host: registers the root
// in its document's SHADOW_REGISTRY (made by devtools_prepare.js), where the page scripts find
// it (dom/shared/clickable.js shadowReader, dom/closed_shadow.js).
function (host) {
  const registry = this.ownerDocument.defaultView[Symbol.for("stagehand_py.closed_shadow_roots")];
  if (registry) registry.roots.set(host, this);
}
