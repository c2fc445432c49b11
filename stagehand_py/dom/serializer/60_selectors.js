// Serializer part 6: several selectors per element, each unique by construction.
const SEP = "\u0001";
const isPassword = (el) => el.localName === "input" && el.type === "password";

function siblingsOf(el) {
  const parent = el.parentNode;
  if (parent instanceof ShadowRoot) {
    return { host: parent.host, own: parent.children, other: parent.host.children };
  }
  if (parent && parent.nodeType === 1) {
    const other = parent.shadowRoot ? parent.shadowRoot.children : null;
    return { host: parent, own: parent.children, other };
  }
  return null;
}

// A css path for Playwright's piercing engine, where `>` also steps from a host into its
// shadow root: a host's light children and its shadow children compete for the same step,
// so a step that could match in both is refused (null) rather than emitted ambiguous.
// With `deep` (the document's deep index) it also returns the tail below the nearest
// ancestor whose id is unique across the document and its shadow roots.
function cssPath(el, deep) {
  const steps = [];
  let anchored = null;
  for (let n = el; n; ) {
    if (deep && n !== el && anchored === null && n.id) {
      const owners = deep.get("#" + n.getAttribute("id"));
      if (owners && owners.length === 1) {
        anchored = "#" + CSS.escape(n.getAttribute("id")) + " > " + steps.join(" > ");
      }
    }
    if (n === n.ownerDocument.documentElement) {
      steps.unshift(CSS.escape(n.localName));
      return { full: steps.join(" > "), anchored };
    }
    const family = siblingsOf(n);
    if (!family) return null;
    const tag = n.localName;
    let position = 0;
    let sameTag = 0;
    for (let i = 0; i < family.own.length; i++) {
      if (family.own[i] === n) position = i + 1;
      if (family.own[i].localName === tag) sameTag++;
    }
    let otherSameTag = false;
    if (family.other) {
      for (const o of family.other) if (o.localName === tag) otherSameTag = true;
    }
    if (sameTag === 1 && !otherSameTag) {
      steps.unshift(CSS.escape(tag));
    } else {
      const rival = family.other ? family.other[position - 1] : null;
      if (rival && rival.localName === tag) return null;
      steps.unshift(`${CSS.escape(tag)}:nth-child(${position})`);
    }
    n = family.host;
  }
  return null;
}

function absXPath(el) {
  const steps = [];
  for (let n = el; n && n.nodeType === 1; n = n.parentNode) {
    if (n === n.ownerDocument.documentElement) return "/" + xpathName(n) + steps.join("");
    if (!(n.parentNode && n.parentNode.nodeType === 1)) return null; // inside a shadow root
    const name = xpathName(n);
    let k = 1;
    for (let s = n.previousElementSibling; s; s = s.previousElementSibling) {
      if (xpathName(s) === name) k++;
    }
    steps.unshift("/" + name + "[" + k + "]");
  }
  return null;
}

// How many of `owners` (elements sharing one name) have value=`value`; counted once per name.
function valueCount(ctx, owners, key, value) {
  let counts = ctx.index.values.get(key);
  if (!counts) {
    counts = new Map();
    for (const o of owners) {
      const v = o.getAttribute("value");
      counts.set(v, (counts.get(v) || 0) + 1);
    }
    ctx.index.values.set(key, counts);
  }
  return counts.get(value) || 0;
}

// XPaths without their "xpath=" prefix, the absolute one first. `row` ({text, pairs} of the
// element's own row, else null): a selector that only repeats what that row already carries
// is a short token instead (see wireXPaths).
function xpathSelectors(el, ctx, xpath, anchor, row) {
  const out = [xpath];
  const light = ctx.index.light;
  const id = el.id;
  const idOwners = id ? light.get("#" + id) : null;
  const name = xpathName(el);
  const short = row !== null && name === el.localName;
  if (idOwners && idOwners.length === 1) {
    out.push(row !== null && attrOf(row.pairs, "id") === id
      ? "#" : "//*[@id=" + xpathLiteral(id) + "]");
  } else if (anchor) out.push(anchor.prefix + xpath.slice(anchor.length));
  let anchored = 0;
  const present = (ctx.index.flags.get(el) & HAS_ANCHOR) !== 0
    ? el.getAttributeNames().filter((a) => ANCHOR_SET.has(a))
    : [];
  if (present.length > 1) present.sort((a, b) => ANCHOR_RANK.get(a) - ANCHOR_RANK.get(b));
  for (const attr of present) {
    if (anchored >= 2) break;
    const v = el.getAttribute(attr);
    if (!v || v.length > 100) continue;
    const owners = light.get(el.localName + SEP + attr + SEP + v);
    if (!owners) continue;
    const test = `[@${attr}=${xpathLiteral(v)}]`;
    const shownValue = short && attrOf(row.pairs, attr) === v;
    if (owners.length === 1) {
      out.push(shownValue ? "@" + attr : `//${name}${test}`);
      anchored++;
    } else if (attr === "name" && !isPassword(el) && el.hasAttribute("value")) {
      // Radio groups share a name; name + value tells the options apart.
      const value = el.getAttribute("value");
      if (valueCount(ctx, owners, el.localName + SEP + v, value) === 1) {
        out.push(shownValue && attrOf(row.pairs, "value") === value
          ? "@name+" : `//${name}${test}[@value=${xpathLiteral(value)}]`);
        anchored++;
      }
    }
  }
  if (anchored === 0 && TEXT_ANCHOR_TAGS.has(el.localName)) {
    const text = xpathSpace(el.textContent);
    if (text && text.length <= 60 && textCount(ctx, el.localName, text) === 1) {
      // "=": the row's own (raw) text, normalized as XPath does, is this very text.
      const same = short && typeof row.text === "string" && xpathSpace(row.text) === text;
      out.push(same ? "=" : `//${name}[normalize-space(.)=${xpathLiteral(text)}]`);
    }
  }
  return out;
}

function cssSelectors(el, ctx) {
  const out = [];
  const deep = ctx.index.deep;
  const path = cssPath(el, deep);
  if (path) out.push("css=" + path.full);
  const id = el.getAttribute("id");
  if (id && deep.get("#" + id).length === 1) out.push("css=#" + CSS.escape(id));
  else if (path && path.anchored) out.push("css=" + path.anchored);
  for (const attr of ANCHOR_ATTRS) {
    if (out.length >= 4) break;
    const v = el.getAttribute(attr);
    if (!v || v.length > 100 || /[\n\r\f]/.test(v)) continue;
    const owners = deep.get(el.localName + SEP + attr + SEP + v);
    if (owners && owners.length === 1) {
      out.push(`css=${CSS.escape(el.localName)}[${attr}=${cssString(v)}]`);
    }
  }
  return out;
}

// Full Playwright selectors ("xpath=..." / "css=..."), as frame paths store them.
function selectorsFor(el, ctx, xpath, anchor) {
  return xpath !== null
    ? xpathSelectors(el, ctx, xpath, anchor, null).map((s) => "xpath=" + s)
    : cssSelectors(el, ctx);
}

// Inside a closed shadow root (see closedShadowSelector in shared/clickable.js): the outer
// host by its absolute XPath, or by its css path through open roots.
function closedSelectors(el) {
  const selector = closedShadowSelector(el, (host) => {
    const xpath = absXPath(host);
    const css = xpath ? null : cssPath(host, null);
    return xpath ? "xpath=" + xpath : css ? "css=" + css.full : null;
  });
  return selector ? [selector] : [];
}
