// The scroll geometry of the view the agent describes: where the window is scrolled to, its
// size, and the position of the main scroller (the document, or the scroll container the
// serializer found, given as its "xpath=..." / "css=..." selector).
(containerSelector) => {
  let scroller = null;
  if (containerSelector && containerSelector.startsWith("xpath=")) {
    scroller = document.evaluate(containerSelector.slice(6), document, null,
      XPathResult.FIRST_ORDERED_NODE_TYPE, null).singleNodeValue;
  } else if (containerSelector && containerSelector.startsWith("css=")) {
    scroller = document.querySelector(containerSelector.slice(4));
  }
  const main = scroller || document.scrollingElement || document.documentElement;
  return [window.scrollY, window.innerHeight, window.innerWidth,
    main.scrollTop, main.scrollHeight, main.clientHeight];
}
