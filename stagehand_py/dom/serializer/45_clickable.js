// Serializer part 4c: an element's text without its hidden descendants. (What pages make
// clickable without markup is 44_clickable.js, shared with the aria view.)
//
// Only what shows no text is asked whether it is clickable: anything with text is a line
// already, and clicking that line reaches whatever listens around it. So a page full of click
// listeners does not turn every div into a numbered element. Styles are read only for these
// few text-less elements and their parents (pointerOf).

// The text a user sees in `el`: its text nodes, minus those of hidden descendants (a closed
// menu inside a menu item, a hidden tooltip inside a button). The common case, an element
// without child elements, is its textContent.
function visibleText(el) {
  if (el.childElementCount === 0 && !shadowOf(el)) return el.textContent;
  const parts = [];
  const visit = (node) => {
    for (let c = node.firstChild; c; c = c.nextSibling) {
      if (c.nodeType === 3) parts.push(c.data);
      else if (c.nodeType === 1 && !SKIP_TAGS.has(c.localName) && shownInText(c)) visit(c);
    }
  };
  visit(el);
  return parts.join("");
}

function shownInText(el) {
  if (el.hasAttribute("hidden")) return false;
  if (el.checkVisibility(CHECK)) return true;
  // display:contents has no box of its own, so checkVisibility() calls it hidden.
  return el.ownerDocument.defaultView.getComputedStyle(el).display === "contents";
}
