// The element a closed-shadow selector names (stagehand_py/dom/_shadow.py), from its outer
// host (found by Playwright): one "tag[n]/tag[n]" path per shadow root, open or closed (the
// closed ones as registered by devtools_register.js). Null when the page changed under it.
(host, steps) => {
  const registry = host.ownerDocument.defaultView[Symbol.for("stagehand_py.closed_shadow_roots")];
  let node = host;
  for (const step of steps) {
    const root = node.shadowRoot || (registry && registry.roots.get(node));
    if (!root) return null;
    node = root;
    for (const part of step.split("/")) {
      const m = /^(.+)\[(\d+)\]$/.exec(part);
      const child = m ? node.children[Number(m[2]) - 1] : null;
      if (!child || child.localName !== m[1]) return null;
      node = child;
    }
  }
  return node;
}
