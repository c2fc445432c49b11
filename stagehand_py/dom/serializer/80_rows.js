// Serializer part 8: records become compact rows (the wire format parse_snapshot reads).
const round = Math.round; // whole CSS pixels are precise enough and keep the JSON small

function implicitRole(el) {
  const tag = el.localName;
  if (tag === "input") return INPUT_ROLES[el.type] || "textbox";
  if (tag === "a") return el.hasAttribute("href") ? "link" : "";
  if (tag === "select") return el.multiple || el.size > 1 ? "listbox" : "combobox";
  return IMPLICIT_ROLES[tag] || "";
}

function accessibleName(el, ctx, text) {
  const label = el.getAttribute("aria-label");
  if (label) return label;
  const by = el.getAttribute("aria-labelledby");
  if (by) {
    const root = el.getRootNode();
    const parts = by.split(/\s+/).map((id) => root.getElementById(id)).filter(Boolean);
    if (parts.length) return parts.map((p) => p.textContent).join(" ");
  }
  const labels = labelsOf(el, ctx);
  if (labels.length) return labels.map((l) => l.textContent).join(" ");
  return el.getAttribute("alt") || el.getAttribute("title") ||
    el.getAttribute("placeholder") || text;
}

// The shown attributes as a flat [name index, value, ...] list (names: WIRE_ATTRS), in the
// element's own order: the rendering keeps it. Values are raw (see wireString).
function attributesOf(el) {
  const pairs = [];
  if (el.hasAttributes()) {
    const names = el.getAttributeNames();
    for (const a of names) {
      if (!SHOWN_SET.has(a)) continue;
      const v = el.getAttribute(a);
      if (v) pairs.push(WIRE_ATTR_INDEX.get(a), wireString(v, WIRE_ATTR));
    }
    if (names.includes("contenteditable")) {
      const editable = el.getAttribute("contenteditable");
      if (editable !== "false") pairs.push(WIRE_ATTR_INDEX.get("contenteditable"), "true");
    }
  }
  const tag = el.localName;
  const VALUE = WIRE_ATTR_INDEX.get("value");
  if (tag === "input") {
    const type = el.type;
    if (type === "checkbox" || type === "radio") {
      if (el.hasAttribute("value")) pairs.push(VALUE, wireString(el.getAttribute("value"), WIRE_ATTR));
      if (el.checked) pairs.push(WIRE_ATTR_INDEX.get("checked"), "true");
    } else if (type !== "password" && el.value) {
      // The current value, never a password's.
      pairs.push(VALUE, wireString(el.value, WIRE_VALUE));
    }
  } else if ((tag === "textarea" || tag === "select") && el.value) {
    pairs.push(VALUE, wireString(el.value, WIRE_VALUE));
  } else if (tag === "canvas") {
    const box = el.getBoundingClientRect(); // its drawn size, as the aria view shows it
    pairs.push(WIRE_ATTR_INDEX.get("size"), round(box.width) + "x" + round(box.height));
  }
  return pairs;
}

// One element as a compact row (parse_snapshot expands it; field order is the wire format):
// [tag (index into `tags`), text | index of an earlier row with the same text, attributes (flat pairs, see
//  attributesOf), selectors | index of the row whose selectors it shares, frame path index
//  (-1 = top), chunk, [x, y, width, height], flags (1 interactive, 2 disabled, 4 read-only,
//  8 inside aria-hidden), options, role (index into `roles`), name (1 = the row's text,
//  2 = its aria-label), hint] -- the tail only as far as it is not empty. Texts and values
//  are raw page strings (wireString). Every byte here costs transfer time (~30 ns/byte
//  through CDP and Playwright), hence the back-references.
const selectorOwner = new Map(); // element -> index of the first row that used its selectors
const framePaths = [];
const frameIndex = new Map();
const roles = [];
const roleIndex = new Map();
const tags = []; // rows name their tag by index into this list
const tagIndex = new Map();
const textRows = new Map(); // text (8+ chars) -> index of the first row that carried it

// Selectors on the wire (a third of the bytes otherwise): "xpath=" is implied for anything
// not starting with "css=", and an absolute path that shares k leading characters with the
// previous row's absolute path is sent as "~k|rest"; besides, the tokens of xpathSelectors.
// parse_snapshot undoes all of it.
let lastAbsolute = "";
function wireXPaths(list) {
  const path = list[0];
  if (path.startsWith("//")) return list;
  const max = Math.min(path.length, lastAbsolute.length);
  let k = 0;
  while (k < max && path.charCodeAt(k) === lastAbsolute.charCodeAt(k)) k++;
  lastAbsolute = path;
  if (k > 12) list[0] = "~" + k + "|" + path.slice(k);
  return list;
}

function optionsOf(select) {
  const options = select.options;
  const out = [];
  for (let i = 0; i < options.length && i < 100; i++) {
    const o = options[i];
    const label = o.label || o.text; // the browser's own label, as the list shows it
    out.push(label.length > WIRE_ATTR ? label.slice(0, WIRE_ATTR) : label);
  }
  return out;
}

const isReadOnly = (el, tag, bits) =>
  ((tag === "input" || tag === "textarea") && el.readOnly) ||
  ((bits & 1024) !== 0 && el.getAttribute("aria-readonly") === "true");

// The wire text of an element record: raw, hidden descendants left out.
function elementText(rec, el, tag) {
  if (tag === "input" || tag === "select" || tag === "textarea") return "";
  const raw = rec.content ?? visibleText(el);
  if (/\S/.test(raw) || !(rec.interactive || rec.disabled)) return raw;
  // An image-only link or button: its picture's alt text is what a user would read.
  const img = el.querySelector("img[alt]");
  return img ? img.getAttribute("alt") : raw;
}

function describe(rec, index) {
  const el = rec.owner;
  const isText = rec.node.nodeType === 3;
  const tag = isText ? "#text" : el.localName;
  const plain = isText ? rec.node.data : elementText(rec, el, tag);
  const text = wireString(plain, WIRE_TEXT);
  const pairs = isText ? null : attributesOf(el);
  let selectors = selectorOwner.get(el);
  if (selectors === undefined) {
    selectorOwner.set(el, index);
    const row = pairs === null ? null : { text, pairs };
    if (rec.xpath !== null) {
      selectors = wireXPaths(xpathSelectors(el, rec.ctx, rec.xpath, rec.anchor, row));
    } else {
      selectors = inClosedRoot(el) ? closedSelectors(el) : cssSelectors(el, rec.ctx);
    }
  }
  let frame = -1;
  if (rec.ctx.frame.length) {
    frame = frameIndex.get(rec.ctx);
    if (frame === undefined) {
      frame = framePaths.push(rec.ctx.frame) - 1;
      frameIndex.set(rec.ctx, frame);
    }
  }
  const r = rec.rect;
  const box = [round(r.left + geometry.pageX + rec.ctx.offX),
    round(r.top + geometry.pageY + rec.ctx.offY), round(r.width), round(r.height)];
  const chunk = chunkOf(rec);
  let wireText = text;
  if (typeof text === "string" && text.length >= 8) {
    const earlier = textRows.get(text);
    if (earlier === undefined) textRows.set(text, index);
    else wireText = earlier;
  }
  let tagNumber = tagIndex.get(tag);
  if (tagNumber === undefined) {
    tagNumber = tags.push(tag) - 1;
    tagIndex.set(tag, tagNumber);
  }
  if (isText) return [tagNumber, wireText, 0, selectors, frame, chunk, box, 0];
  const bits = rec.ctx.index.flags.get(el) || 0;
  const flags = (rec.interactive ? 1 : 0) | (rec.disabled ? 2 : 0) |
    (rec.interactive || rec.disabled ? (isReadOnly(el, tag, bits) ? 4 : 0) : 0) |
    (rec.ariaHidden ? 8 : 0);
  const row = [tagNumber, wireText, pairs.length ? pairs : 0, selectors, frame, chunk, box,
    flags];
  const tail = [tag === "select" ? optionsOf(el) : 0, "", ""];
  if (rec.interactive) {
    const role = el.getAttribute("role") || implicitRole(el);
    let roleNumber = roleIndex.get(role);
    if (roleNumber === undefined) {
      roleNumber = roles.push(role) - 1;
      roleIndex.set(role, roleNumber);
    }
    tail[1] = roleNumber;
    const name = capText(accessibleName(el, rec.ctx, plain) || "", 100);
    tail[2] = name === plain ? 1 : name !== "" && name === attrOf(pairs, "aria-label") ? 2 : name;
  }
  // A control that shows no text and has no label of its own: say what it looks like.
  if ((rec.interactive || rec.disabled) && !/\S/.test(plain) && tag !== "input" &&
    tag !== "select" && tag !== "textarea" && attrOf(pairs, "aria-label") === undefined &&
    attrOf(pairs, "title") === undefined && attrOf(pairs, "alt") === undefined) {
    const hint = hintOf(el, tag, rec.ctx.computed, WIRE_HINT);
    if (hint) tail.push(hint);
  }
  let keep = tail.length;
  // Empty: options 0, role/name/hint "" (a role is a table index, 0 included).
  while (keep > 0 && tail[keep - 1] === (keep === 1 ? 0 : "")) keep--;
  for (let i = 0; i < keep; i++) row.push(tail[i]);
  return row;
}
