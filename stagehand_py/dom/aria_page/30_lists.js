// Part 3: containers that may hold a virtualised list (the ADR's rule): a scroller whose
// overflow-y is auto or scroll and whose content is at least twice its height, or any element
// with role list, listbox, grid, table or tree (explicit, or implied by ul/ol/table). Each
// comes with the metrics a VLIST_NOT_REACHED report names.
function lists() {
  const LIST_ROLES = new Set(["list", "listbox", "grid", "table", "tree"]);
  const IMPLIED = { ul: "list", ol: "list", table: "table" };
  const out = [];
  for (const el of all) {
    if (el === doc.documentElement || el === doc.body) continue; // the page, not a list
    if (inClosed.has(el)) continue; // no locator of Playwright's reaches it to scroll
    const explicit = (el.getAttribute("role") || "").trim().split(/\s+/)[0];
    const role = explicit || IMPLIED[el.localName] || "";
    const style = win.getComputedStyle(el);
    const ratio = el.clientHeight > 0 ? el.scrollHeight / el.clientHeight : 0;
    const scrolls = /auto|scroll/.test(style.overflowY) && ratio >= opts.minRatio;
    if (!scrolls && !LIST_ROLES.has(role)) continue;
    const r = el.getBoundingClientRect();
    if (r.width < 1 || r.height < 1 || style.visibility !== "visible") continue;
    const selector = durableSelector(el);
    if (!selector) continue;
    out.push({
      selector, role, scrolls, ratio, clientHeight: el.clientHeight,
      scrollHeight: el.scrollHeight, scrollTop: el.scrollTop,
    });
  }
  return { lists: out };
}
