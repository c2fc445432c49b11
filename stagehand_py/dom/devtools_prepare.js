// Run through a DevTools session (Runtime.evaluate with includeCommandLineAPI) in one
// document's main world before the page scripts look at it (stagehand_py/_async/browser/
// devtools.py). An expression, not a function: DevTools evaluates it as it is.
//
// 1. Installs, once per document, a predicate the page scripts call to ask whether an element
//    has a click listener of its own (dom/shared/clickable.js, CLICK_READER). It wraps the
//    DevTools console's getEventListeners, which exists only in this evaluation, and returns
//    a boolean only: the page gets no access to other scripts' listener functions.
// 2. Returns the elements that may host a closed shadow root not looked at yet (or null):
//    DevTools is asked about each (DOM.describeNode), and the roots it reports are registered
//    in SHADOW_REGISTRY. Candidates: upgraded custom elements, and empty elements of the kinds
//    that can host a shadow root that still have a box. At most 60 per look.
(() => {
  const CLICK_READER = Symbol.for("stagehand_py.click_listeners");
  const SHADOW_REGISTRY = Symbol.for("stagehand_py.closed_shadow_roots");
  const CLICK_TYPES = ["click", "mousedown", "mouseup", "pointerdown", "pointerup", "dblclick"];
  const HOST_TAGS = new Set([
    "article", "aside", "blockquote", "div", "footer", "h1", "h2", "h3", "h4", "h5", "h6",
    "header", "main", "nav", "p", "section", "span",
  ]);
  // A page that locks its globals refuses defineProperty on window (it throws, or does
  // nothing): a plain property then (symbol keys stay out of the page's listings of window).
  const define = (key, value) => {
    try {
      Object.defineProperty(globalThis, key, { value, configurable: true, enumerable: false, writable: false });
    } catch (error) {
      // refused: see below
    }
    if (globalThis[key] !== value) globalThis[key] = value;
  };
  if (typeof globalThis[CLICK_READER] !== "function") {
    const read = getEventListeners; // the DevTools console's: defined only here
    define(CLICK_READER, (el) => {
      let listeners;
      try {
        listeners = read(el);
      } catch (e) {
        return false;
      }
      return CLICK_TYPES.some((type) => Array.isArray(listeners[type]) && listeners[type].length > 0);
    });
  }
  if (!globalThis[SHADOW_REGISTRY]) {
    define(SHADOW_REGISTRY, { roots: new WeakMap(), probed: new WeakSet() });
  }
  const registry = globalThis[SHADOW_REGISTRY];
  const found = [];
  const scopes = [document];
  for (let i = 0; i < scopes.length && found.length < 60; i++) {
    for (const el of scopes[i].querySelectorAll("*")) {
      const root = el.shadowRoot || registry.roots.get(el);
      if (root) {
        scopes.push(root);
        continue;
      }
      if (registry.probed.has(el) || found.length >= 60) continue;
      const name = el.localName;
      let candidate = false;
      if (name.includes("-")) candidate = el.matches(":defined");
      else if (HOST_TAGS.has(name) && el.firstChild === null) {
        const r = el.getBoundingClientRect();
        candidate = r.width > 0 && r.height > 0;
      }
      if (candidate) {
        registry.probed.add(el);
        found.push(el);
      }
    }
  }
  return found.length ? found : null;
})()
