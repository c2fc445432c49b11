// Part 2b: what the DOM view lets the model act on but the tree gives no line of its own
// (the DOM view's clickable detection, shared/clickable.js, applied to the aria view): text
// made clickable by a stylesheet or a script (a cursor:pointer span, an <a> without href, a
// "+" handled by a listener, a datepicker's Prev/Next, a folder name), an icon-only control,
// the separately clickable children of one clickable container ("Reply" and "Forward": the
// children inherit the container's cursor, so the container's own cursor or listener and its
// several text children decide), and anything inside a closed shadow root, which the tree
// cannot see into. Python (aria/_clickables.py) inserts each after `anchor`, the tree line it
// follows in the flat tree's order, drops the tree lines whose whole text they cover, and
// shortens the ones whose text they say for the most part to the rest.
//
// `lineOf`: element -> {ref, kind} of this frame's tree lines (kind 1: a control, 3: a line
// clickable only by its pointer cursor, 0: content). Inside a control (kind 1 or a markup
// control) nothing gets a line of its own: clicking the control reaches it.

const CLICK_TEXT_MAX = 60; // characters: longer text is content, not the label of a control
const CLICK_MAX_CHILDREN = 6; // more element children: a container, not a clickable label
const NOT_WALKED = new Set([
  "script", "style", "noscript", "template", "head", "iframe", "frame", "object", "embed",
  "datalist", "option", "optgroup",
]);
// Drawn as a whole: an icon's own shapes are never lines of their own.
const NO_CHILDREN = new Set(["svg", "math", "canvas", "img", "video", "audio"]);
const CONTROL_ROLE_ATTRS = new Set([
  "button", "link", "checkbox", "radio", "switch", "tab", "menuitem", "menuitemcheckbox",
  "menuitemradio", "option", "textbox", "searchbox", "combobox", "listbox", "slider",
  "spinbutton", "treeitem", "gridcell",
]);
const markupControl = (el, tag) =>
  tag === "button" || tag === "input" || tag === "select" || tag === "textarea" ||
  tag === "summary" || tag === "label" || (tag === "a" && el.hasAttribute("href")) ||
  CONTROL_ROLE_ATTRS.has((el.getAttribute("role") || "").trim());
// Clickable by markup the tree does not turn into a control of its own.
const markupClick = (el, tag) =>
  typeof el.onclick === "function" || (tag === "a" && !el.hasAttribute("href")) ||
  (el.hasAttribute("tabindex") && el.tabIndex >= 0);

function findClickables(lineOf) {
  const { items, order } = walkClickables(lineOf);
  const anchorOf = anchorFinder(order, lineOf);
  const { covered, rests } = coverage(items, lineOf);
  return { items: items.map((item) => ({ ...item, anchor: anchorOf(item.el) })), covered, rests };
}

// Walk the flat tree (shadow roots, closed ones included, and slotted children in place):
// the items, and each element's position in that order.
function walkClickables(lineOf) {
  const computed = (el) => win.getComputedStyle(el);
  const order = new Map(); // element -> position in the flat tree
  const items = [];
  let position = 0;
  const kidsOf = (el) => {
    if (NO_CHILDREN.has(el.localName)) return [];
    if (el.localName === "slot") {
      const assigned = el.assignedElements();
      if (assigned.length) return Array.from(assigned);
    }
    const root = shadowRootOf(el);
    return Array.from(root ? root.children : el.children);
  };
  const loose = (el) => {
    for (let n = (shadowRootOf(el) || el).firstChild; n; n = n.nextSibling) {
      if (n.nodeType === 3 && /\S/.test(n.data)) return true;
    }
    return false;
  };
  const shown = (el) => {
    const r = el.getBoundingClientRect();
    return r.width >= 1 && r.height >= 1 && r.right + win.scrollX > 0 &&
      r.bottom + win.scrollY > 0 && el.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true });
  };
  // The text a user reads in `el` (innerText: not an SVG's <title>, not hidden parts), read
  // only for short content; null when long. Kept per element: a parent asks about its
  // children before the walk visits them and asks again.
  const texts = new Map();
  const textOf = (el) => {
    let text = texts.get(el);
    if (text !== undefined) return text;
    const raw = el.textContent || "";
    if (!/\S/.test(raw)) text = "";
    else text = raw.length > CLICK_TEXT_MAX * 4 ? null : normalize(el.innerText || "");
    texts.set(el, text);
    return text;
  };
  const hasText = (el) => textOf(el) !== "";
  const listens = (el) => pointerRoot(el, computed) || ownListener(el);

  // Positions only: inside a control, or a line's element that is one.
  const inside = (el) => {
    order.set(el, position++);
    if (!NOT_WALKED.has(el.localName)) for (const c of kidsOf(el)) inside(c);
  };
  const report = (el, kind) => {
    items.push({ el, kind });
    for (const c of kidsOf(el)) inside(c);
    return true;
  };
  // True when `el` or something in it is clickable (listed, or a control of the tree's).
  function visit(el, separate) {
    const tag = el.localName;
    order.set(el, position++);
    if (NOT_WALKED.has(tag)) return false;
    const kids = kidsOf(el);
    if (tag === "html" || tag === "body") {
      let found = false;
      for (const c of kids) found = visit(c, false) || found;
      return found;
    }
    const line = lineOf.get(el);
    if ((line && line.kind === 1) || markupControl(el, tag)) {
      if (inClosed.has(el)) {
        // The tree has no line for it: a line of its own (a label, for its control inside).
        if (tag === "label") for (const c of kids) visit(c, false);
        else if (shown(el)) return report(el, "control");
        return true;
      }
      for (const c of kids) inside(c);
      return true;
    }
    const text = kids.length > CLICK_MAX_CHILDREN ? null : textOf(el);
    if (text === "") {
      // Shows no text: an icon, or a wrapper of icons (listed only if none inside is).
      let found = false;
      for (const c of kids) found = visit(c, false) || found;
      if (found || !(implicitClick(el, tag, computed) || markupClick(el, tag)) || !shown(el)) {
        return found;
      }
      return report(el, "icon");
    }
    const textKids = listens(el) ? kids.filter(hasText) : [];
    if (textKids.length >= 2 && !loose(el)) {
      for (const c of kids) visit(c, textKids.includes(c)); // "Reply" and "Forward"
      return true;
    }
    if (line && line.kind === 3) {
      // The tree's line clickable by its cursor, with one text: that line is the control.
      for (const c of kids) inside(c);
      return true;
    }
    if (text !== null && text.length <= CLICK_TEXT_MAX) {
      const label = textKids.length <= 1 || loose(el);
      if (label && (separate || markupClick(el, tag) || listens(el)) && shown(el)) {
        return report(el, "text");
      }
      if (inClosed.has(el) && !kids.some(hasText) && shown(el)) {
        report(el, "content"); // text inside a closed root: the tree has no line for it
        return false;
      }
    }
    let found = false;
    for (const c of kids) found = visit(c, false) || found;
    return found;
  }
  visit(doc.documentElement, false);
  return { items, order };
}

// Each item's anchor: the ref of the tree line whose element comes last before it (or holds
// it) in the walk's order; null when none does.
function anchorFinder(order, lineOf) {
  const lines = Array.from(lineOf.keys()).filter((el) => order.has(el));
  lines.sort((a, b) => order.get(a) - order.get(b));
  return (el) => {
    const at = order.get(el);
    let lo = 0;
    let hi = lines.length - 1;
    let best = null;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (order.get(lines[mid]) <= at) {
        best = lines[mid];
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return best === null ? null : lineOf.get(best).ref;
  };
}

// A tree line (not a control) whose whole text the items inside it say is covered; one whose
// text they say for the most part keeps only the rest ("May 2027" of a datepicker).
function coverage(items, lineOf) {
  const said = new Map();
  for (const item of items) {
    for (let n = item.el; n; n = composedParent(n)) {
      if (lineOf.has(n)) {
        if (!said.has(n)) said.set(n, []);
        said.get(n).push(normalize(item.el.innerText || ""));
        break;
      }
    }
  }
  const covered = [];
  const rests = {};
  const size = (s) => s.replace(/\s/g, "").length;
  for (const [el, parts] of said) {
    const line = lineOf.get(el);
    if (line.kind === 1) continue;
    const whole = normalize(el.innerText || "");
    let rest = whole;
    let at = 0;
    for (const part of parts) {
      const i = part ? rest.indexOf(part, at) : -1;
      if (i < 0) continue;
      rest = rest.slice(0, i) + " " + rest.slice(i + part.length);
      at = i + 1;
    }
    rest = normalize(rest);
    if (!rest) covered.push(line.ref);
    else if (2 * size(rest) <= size(whole)) rests[line.ref] = rest;
  }
  return { covered, rests };
}

// One listed item as the facts Python reads (falsy fields left out; facts() adds the text
// rung). `inside(el)`: is it in the page's main scroller.
function describeClickable(item, lineOf, inside) {
  const el = item.el;
  const r = el.getBoundingClientRect();
  const tag = el.localName;
  const closed = inClosed.has(el);
  const out = {
    kind: item.kind, tag,
    box: [Math.round(r.x), Math.round(r.y), Math.round(r.width), Math.round(r.height)],
  };
  if (item.anchor) out.anchor = item.anchor;
  const line = lineOf.get(el);
  if (line) out.ref = line.ref;
  out.role = closed ? closedRole(el) : (el.getAttribute("role") || "").trim() || "generic";
  const name = closed ? closedName(el)
    : normalize(el.getAttribute("aria-label") || el.getAttribute("title") || "");
  if (name) out.name = name;
  const field = tag === "input" || tag === "textarea" || tag === "select";
  const typed = tag !== "input" || !/^(checkbox|radio|button|submit|reset|image|file|hidden|range|color|password)$/.test(el.type);
  const text = field ? (typed ? el.value || "" : "") : normalize(el.innerText || "");
  if (text) out.text = text;
  if (item.kind === "icon") {
    const hint = hintOf(el, tag, (e) => win.getComputedStyle(e), 80);
    if (hint) out.hint = hint;
  }
  if (closed) {
    out.closed = closedSelector(el);
    if (el.getAttribute("placeholder")) out.placeholder = el.getAttribute("placeholder");
    if ((el.type === "checkbox" || el.type === "radio") && el.checked) out.checked = true;
    if (el.matches(":disabled") || el.getAttribute("aria-disabled") === "true") out.disabled = true;
  } else {
    const xpath = absXPath(el);
    const css = uniqueCss(el);
    if (xpath) out.xpath = xpath;
    if (css) out.css = css;
  }
  if (inside(el)) out.inContainer = true;
  return out;
}
