// Browser side of extract(): serialise the *composed* DOM under one or more roots into a
// compact HTML string; stagehand_py/extract/_clean.py (lxml) turns it into text blocks.
//
// Called as `frame.evaluate(src, {frames})` (whole body) or `locator.evaluate_all(src, frames)`
// (the elements a selector matched). `frames`: the <iframe> elements of this document's
// child frames, which Python reads with their own evaluate (any origin): each is written as
// a `data-sh-frame="k"` placeholder (k = its position in `frames`) that Python fills in.
// Returns one JSON string {url, title, html}: one big string crosses the CDP boundary much
// faster than a large object.
//
// Division of work: the browser knows what is rendered, Python does the cleaning. So here we
// only *mark* what the cleaner must drop and resolve what only the browser knows:
// - an element that renders nothing (display:none, `hidden`, aria-hidden=true, closed
//   <details> content, content-visibility:hidden) is written empty with `data-sh-hidden`;
// - an element with visibility:hidden gets `data-sh-invisible`: its own text is dropped by
//   the cleaner but its children are still walked (CSS lets them become visible again);
// - open shadow roots are flattened (slots replaced by their assigned nodes) and same-origin
//   iframes not in `frames` inlined, so the cleaner sees one tree;
// - each <a> carries the browser-resolved absolute `href` (base, ../, iframe documents);
// - form controls carry their *live* values, never a password's.
// Script-like subtrees are not even sent (they can be hundreds of kB of JSON); the cleaner
// removes them again for HTML that did not come from here.
(roots, frameList) => {
  let frames = frameList || [];
  if (roots && !Array.isArray(roots)) {
    frames = roots.frames || [];
    roots = null;
  }
  const SKIP = new Set([
    "script", "style", "noscript", "template", "svg", "math", "head", "meta", "link",
    "object", "embed", "canvas", "audio", "video", "map",
  ]);
  // Attributes the cleaner reads, per tag; everything else is noise.
  const KEEP = {
    img: ["alt"],
    input: ["type", "name", "placeholder", "aria-label"],
    textarea: ["name", "placeholder", "aria-label"],
    select: ["name", "aria-label", "multiple"],
    th: ["colspan", "rowspan", "scope"],
    td: ["colspan", "rowspan"],
    ol: ["start"],
    a: ["title", "aria-label"],
    button: ["aria-label"],
  };
  const MAX_OPTIONS = 50;
  const out = [];

  const esc = (s) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
  const attr = (name, value) => ` ${name}="${esc(String(value)).replace(/"/g, "&quot;")}"`;

  // Custom elements (my-card) and unknown tags become div/span so lxml's HTML parser keeps
  // them in place instead of guessing.
  const tagOf = (el, style) => {
    const tag = el.localName;
    if (!tag.includes("-") && !(el instanceof HTMLUnknownElement)) return tag;
    return style.display.startsWith("inline") ? "span" : "div";
  };

  const keptAttrs = (el, tag) => {
    let attrs = "";
    for (const name of KEEP[tag] || []) {
      if (el.hasAttribute(name)) attrs += attr(name, el.getAttribute(name));
    }
    return attrs;
  };

  function rendersNothing(el, style) {
    if (el.hasAttribute("hidden") || el.getAttribute("aria-hidden") === "true") return true;
    if (style.display === "none") return true;
    // display:contents has no box of its own, so checkVisibility() would call it hidden.
    if (style.display === "contents" || !el.checkVisibility) return false;
    // Catches what computed style alone does not: closed <details>, content-visibility.
    return !el.checkVisibility({ contentVisibilityAuto: false });
  }

  function writeControl(el, tag) {
    let attrs = keptAttrs(el, tag);
    if (tag === "input") {
      const type = (el.type || "text").toLowerCase();
      if (type === "hidden") return;
      if (type === "checkbox" || type === "radio") {
        if (el.checked) attrs += attr("checked", "checked");
      } else if (type !== "password" && el.value) {
        attrs += attr("value", el.value);
      }
      out.push(`<input${attrs}>`);
    } else if (tag === "textarea") {
      out.push(`<textarea${attrs}>${esc(el.value || "")}</textarea>`);
    } else {
      out.push(`<select${attrs}>`);
      for (const opt of Array.from(el.options).slice(0, MAX_OPTIONS)) {
        const selected = opt.selected ? attr("selected", "selected") : "";
        out.push(`<option${selected}>${esc(opt.text.trim())}</option>`);
      }
      out.push("</select>");
    }
  }

  function writeFrame(el) {
    const k = frames.indexOf(el);
    if (k >= 0) {
      out.push(`<div data-sh-frame="${k}"></div>`);
      return;
    }
    let doc = null;
    try {
      doc = el.contentDocument; // null (or a throw) when cross-origin
    } catch (e) {
      doc = null;
    }
    if (doc && doc.body) {
      out.push("<div>");
      walk(doc.body);
      out.push("</div>");
    }
  }

  function walk(node) {
    if (node.nodeType === Node.TEXT_NODE) {
      if (node.data.trim()) out.push(esc(node.data));
      return;
    }
    if (node.nodeType !== Node.ELEMENT_NODE) return; // comments, processing instructions
    const el = node;
    const localName = el.localName;
    if (SKIP.has(localName)) return;
    if (localName === "slot") {
      const assigned = el.assignedNodes({ flatten: true });
      for (const child of assigned.length ? assigned : el.childNodes) walk(child);
      return;
    }
    // The element's own window: same-origin iframes have theirs.
    const view = (el.ownerDocument && el.ownerDocument.defaultView) || window;
    const style = view.getComputedStyle(el);
    const tag = tagOf(el, style);
    if (rendersNothing(el, style)) {
      out.push(`<${tag} data-sh-hidden="1"></${tag}>`);
      return;
    }
    const invisible = style.visibility === "hidden" || style.visibility === "collapse";
    if (tag === "input" || tag === "textarea" || tag === "select") {
      if (!invisible) writeControl(el, tag);
      return;
    }
    if (tag === "iframe" || tag === "frame") return writeFrame(el);

    let attrs = keptAttrs(el, tag);
    if (tag === "a" && typeof el.href === "string" && el.href) attrs += attr("href", el.href);
    if (invisible) attrs += attr("data-sh-invisible", "1");
    out.push(`<${tag}${attrs}>`);
    if (tag === "br" || tag === "img" || tag === "hr" || tag === "wbr") return;
    // An open shadow root *replaces* the light DOM in rendering; slots pull light nodes in.
    for (const child of (el.shadowRoot || el).childNodes) walk(child);
    out.push(`</${tag}>`);
  }

  const list = roots && roots.length ? roots : [document.body];
  for (const root of list) {
    out.push("<div>");
    if (root) walk(root);
    out.push("</div>");
  }
  return JSON.stringify({ url: location.href, title: document.title, html: out.join("") });
}
