// Part 2: facts about the DOM elements behind accessibility-tree nodes, for the ladder.
// opts.wanted: [ref, role, x, y, width, height, kind] per tree node of this frame, where the
// box is Playwright's own (Math.round of getBoundingClientRect, this frame's viewport) and kind
// is 1 for a control (every rung), 3 for a line clickable only by its pointer cursor (every
// rung), 0 for a content line (css/xpath only), 2 for an iframe. opts.clickables: also list
// what the tree has no line for (part 2b).
// A node is matched to the element with exactly that box; when several elements share it, the
// one whose role fits wins and the match is flagged ambiguous (Python then has Playwright
// confirm it). Uniqueness is predicted here the way Playwright's engines count, over the whole
// document and its open shadow roots; Python verifies what a prediction cannot prove.
function facts() {
  const MAX_TEXT = 80;
  const IMPLICIT = {
    a: "link", area: "link", button: "button", select: "combobox", textarea: "textbox",
    img: "img", h1: "heading", h2: "heading", h3: "heading", h4: "heading", h5: "heading",
    h6: "heading", li: "listitem", ul: "list", ol: "list", nav: "navigation", main: "main",
    header: "banner", footer: "contentinfo", form: "form", p: "paragraph", table: "table",
    tr: "row", td: "cell", th: "columnheader", dialog: "dialog", iframe: "iframe",
    frame: "iframe", article: "article", aside: "complementary", fieldset: "group",
    option: "option", progress: "progressbar", hr: "separator", canvas: "canvas",
  };
  const INPUT_ROLES = {
    checkbox: "checkbox", radio: "radio", button: "button", submit: "button", reset: "button",
    image: "button", file: "button", range: "slider", number: "spinbutton", search: "searchbox",
  };
  const placeholders = new Map();
  const testids = new Map();
  const byBox = new Map();
  for (const el of all) {
    if (el.hasAttributes()) {
      const ph = el.getAttribute("placeholder");
      if (ph !== null) bump(placeholders, ph);
      const tid = el.getAttribute("data-testid");
      if (tid !== null) bump(testids, tid);
    }
    const r = el.getBoundingClientRect();
    if (r.width > 0 && r.height > 0 && !inClosed.has(el)) {
      const key =
        `${Math.round(r.x)},${Math.round(r.y)},${Math.round(r.width)},${Math.round(r.height)}`;
      const list = byBox.get(key);
      if (list) list.push(el);
      else byBox.set(key, [el]);
    }
  }

  const roleOf = (el) => {
    const explicit = (el.getAttribute("role") || "").trim().split(/\s+/)[0];
    if (explicit) return explicit;
    if (el.localName === "input") return INPUT_ROLES[el.type] || "textbox";
    if (el.localName === "a" && !el.hasAttribute("href")) return "";
    return IMPLICIT[el.localName] || "";
  };
  const pick = (candidates, role) => {
    let best = null;
    let bestScore = -1;
    for (const el of candidates) {
      const guess = roleOf(el);
      let score = guess === role ? 2 : 0;
      if (role === "generic" && (guess === "" || guess === "generic")) score = 1;
      if (role === "iframe" && guess !== "iframe") score = -1;
      if (score >= bestScore && score >= 0) {
        best = el;
        bestScore = score;
      }
    }
    return best;
  };

  // ---- label and text, as Playwright's internal:label and internal:text engines read them
  const textCache = new Map();
  function fullText(node) {
    let value = textCache.get(node);
    if (value !== undefined) return value;
    value = "";
    const el = node.nodeType === 1 ? node : null;
    const skip = el && (/^(script|noscript|style)$/.test(el.localName) ||
      (doc.head && doc.head.contains(el)));
    if (el && el.localName === "input" && /^(submit|button|reset)$/.test(el.type)) {
      value = el.value;
    } else if (!skip) {
      for (let c = node.firstChild; c; c = c.nextSibling) {
        if (c.nodeType === 3) value += c.nodeValue || "";
        else if (c.nodeType === 1) value += fullText(c);
      }
      if (el && el.shadowRoot) value += fullText(el.shadowRoot);
    }
    textCache.set(node, value);
    return value;
  }
  function labelsOf(el) {
    const by = el.getAttribute("aria-labelledby");
    if (by) {
      const found = by.split(/\s+/).map((id) => (el.getRootNode().getElementById
        ? el.getRootNode().getElementById(id) : doc.getElementById(id))).filter(Boolean);
      if (found.length) return found.map((l) => normalize(fullText(l)));
    }
    const aria = el.getAttribute("aria-label");
    if (aria !== null && aria.trim()) return [normalize(aria)];
    if (/^(button|meter|output|progress|select|textarea)$/.test(el.localName) ||
      (el.localName === "input" && el.type !== "hidden")) {
      return el.labels ? Array.from(el.labels, (l) => normalize(fullText(l))) : [];
    }
    return [];
  }

  // ---- match the wanted nodes
  const matched = [];
  const result = { nodes: {}, canvases: [], scroll: null };
  const textWanted = new Map(); // normalized text -> [count exact-self, count any-case-self]
  for (const [ref, role, x, y, w, h, kind] of opts.wanted) {
    const candidates = byBox.get(`${x},${y},${w},${h}`) || [];
    const el = candidates.length === 1 ? candidates[0] : pick(candidates, role);
    if (!el) continue;
    matched.push([ref, el, kind, candidates.length > 1]);
    if (kind === 1 || kind === 3) {
      const t = normalize(fullText(el));
      if (t && t.length <= MAX_TEXT) textWanted.set(t, null);
    }
  }
  // What the tree has no line for (part 2b), with a text rung to try when its text is short.
  const lineOf = new Map();
  for (const [ref, el, kind] of matched) if (kind !== 2) lineOf.set(el, { ref, kind });
  const found = opts.clickables ? findClickables(lineOf) : { items: [], covered: [], rests: {} };
  for (const item of found.items) {
    if (item.kind !== "text" || inClosed.has(item.el)) continue;
    const t = normalize(fullText(item.el));
    if (t && t.length <= MAX_TEXT) textWanted.set(t, null);
  }
  const labelCounts = new Map();
  if (matched.some((m) => m[2] === 1 || m[2] === 3)) {
    for (const el of all) for (const l of new Set(labelsOf(el))) if (l) bump(labelCounts, l);
  }
  if (textWanted.size) {
    const lower = new Map();
    for (const t of textWanted.keys()) lower.set(t.toLowerCase(), [0, 0]);
    for (const t of textWanted.keys()) textWanted.set(t, lower.get(t.toLowerCase()));
    const matches = (el, t) => normalize(fullText(el)) === t;
    const childMatches = (el, test) => {
      for (let c = el.firstElementChild; c; c = c.nextElementSibling) if (test(c)) return true;
      return false;
    };
    for (const el of all) {
      if (inClosed.has(el)) continue; // Playwright's text engine does not see these
      const raw = fullText(el);
      if (!raw || raw.length > MAX_TEXT * 8) continue;
      const t = normalize(raw);
      const counts = lower.get(t.toLowerCase());
      if (!counts) continue;
      if (/^(script|noscript|style)$/.test(el.localName)) continue;
      if (!childMatches(el, (c) => matches(c, t))) counts[0] += 1;
      if (!childMatches(el, (c) => normalize(fullText(c)).toLowerCase() === t.toLowerCase())) {
        counts[1] += 1;
      }
    }
  }

  // ---- the top frame's scroller, for chunking (as the DOM serializer decides it)
  let container = null;
  if (opts.top) {
    const se = doc.scrollingElement || doc.documentElement;
    const blocks = (el) => /hidden|clip/.test(win.getComputedStyle(el).overflowY);
    const pageScrolls = se.scrollHeight > se.clientHeight + 4 && !blocks(doc.documentElement) &&
      !(doc.body && blocks(doc.body));
    let bestArea = win.innerWidth * win.innerHeight * 0.4;
    for (const el of pageScrolls ? [] : all) {
      if (el.scrollHeight <= el.clientHeight + 4 || inShadow.has(el)) continue;
      if (!/auto|scroll|overlay/.test(win.getComputedStyle(el).overflowY)) continue;
      const r = el.getBoundingClientRect();
      const area = Math.max(0, Math.min(r.right, win.innerWidth) - Math.max(r.left, 0)) *
        Math.max(0, Math.min(r.bottom, win.innerHeight) - Math.max(r.top, 0));
      if (area > bestArea) {
        container = el;
        bestArea = area;
      }
    }
    const r = container ? container.getBoundingClientRect() : null;
    result.title = String(doc.title);
    result.scroll = {
      x: win.scrollX, y: win.scrollY, width: win.innerWidth, height: win.innerHeight,
      total: Math.max(doc.documentElement.scrollHeight, doc.body ? doc.body.scrollHeight : 0),
      container: container ? {
        xpath: absXPath(container), top: r.top + container.clientTop,
        clientHeight: container.clientHeight, scrollTop: container.scrollTop,
        scrollHeight: container.scrollHeight,
      } : null,
    };
  }
  const inside = (el) => {
    for (let n = el; n; n = n.parentElement || (n.getRootNode() && n.getRootNode().host)) {
      if (n === container) return true;
    }
    return false;
  };

  // ---- facts per matched node (falsy fields left out: the payload is most of the cost)
  for (const [ref, el, kind, ambiguous] of matched) {
    const info = { tag: el.localName };
    const xpath = absXPath(el);
    const css = uniqueCss(el);
    if (xpath) info.xpath = xpath;
    if (css) info.css = css;
    if (ambiguous) info.ambiguous = true;
    if (container && inside(el)) info.inContainer = true;
    if (kind === 2) {
      const r = el.getBoundingClientRect();
      const st = win.getComputedStyle(el);
      info.offset = [r.left + el.clientLeft + parseFloat(st.paddingLeft),
        r.top + el.clientTop + parseFloat(st.paddingTop)];
    }
    if (kind === 1 || kind === 3) {
      const tid = el.getAttribute("data-testid");
      if (tid && testids.get(tid) === 1) info.testid = tid;
      const ph = el.getAttribute("placeholder");
      if (ph && placeholders.get(ph) === 1) info.placeholder = ph;
      const labels = Array.from(new Set(labelsOf(el)))
        .filter((l) => l && labelCounts.get(l) === 1);
      if (labels.length) info.labels = labels;
      const t = normalize(fullText(el));
      const counts = textWanted.get(t);
      if (counts && counts[0] === 1) info.text = t;
      if (counts && counts[1] === 1) info.textAnyCase = true;
      const target = el.getAttribute("target");
      if (target) info.target = target;
    }
    result.nodes[ref] = info;
  }

  result.clickables = found.items.map((item) => {
    const info = describeClickable(item, lineOf, (el) => container !== null && inside(el));
    if (item.kind === "text" && !inClosed.has(item.el)) {
      const t = normalize(fullText(item.el));
      const counts = textWanted.get(t);
      if (counts && counts[0] === 1) info.textRung = t;
      if (counts && counts[1] === 1) info.textAnyCase = true;
    }
    return info;
  });
  result.covered = found.covered;
  result.rests = found.rests;

  // ---- canvases: drawn content the tree cannot see into
  for (const el of all) {
    if (el.localName !== "canvas" || inClosed.has(el)) continue;
    const r = el.getBoundingClientRect();
    if (r.width < 2 || r.height < 2 || win.getComputedStyle(el).visibility !== "visible") continue;
    result.canvases.push({
      box: [Math.round(r.x), Math.round(r.y), Math.round(r.width), Math.round(r.height)],
      name: normalize(el.getAttribute("aria-label") || el.getAttribute("title") || ""),
      xpath: absXPath(el), css: uniqueCss(el), inContainer: container ? inside(el) : false,
    });
  }
  return result;
}
