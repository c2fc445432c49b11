// The page watcher: one per document, installed on first use (or at the document's start by
// watch_from_start.js), in the page's main world. The parts of this directory, in name order,
// are the body of ONE function, `(options) => {...}` (see dom._js.load_js): part 1 installs
// the watcher, part 2 runs the op asked for.
//
// It counts DOM changes (a version the act loop compares to know whether a snapshot is still
// current) and tells when the page has settled after an action. Ops:
//   {op: "version"}  -> {doc, changes}: `doc` is a random id of this document (a navigation
//                       gives a new one), `changes` counts mutation records seen so far;
//   {op: "arm", frames} -> the same, and from now until the next settle the watcher tracks
//                       the work an action starts: short timers (setTimeout up to
//                       shortTimerMs, and the timers those callbacks start), animation frames
//                       it requests, fetch/XHR requests and windows it opens; `frames`: the
//                       action scrolls, so what it sets off may come with the next frames;
//   {op: "start"} -> null: "arm" at the document's start, for what loading it sets off;
//   {op: "settle", quietMs, maxMs} -> a promise of {doc, changes, why, opened} (`opened`:
//       windows the armed action opened with window.open), resolved when
//       - no DOM change for quietMs (counted from the last change, or from the end of the last
//         tracked timer or request), and no tracked timer or request is pending, no finite
//         CSS transition/animation is running (document.getAnimations()), no scroll the
//         action set off is still moving or, after a key with room to scroll, yet to start,
//         and no navigation away from the document has started (the Navigation API's navigate
//         event; the evaluate then ends with the document, and the caller settles the next
//         one);
//       - or, after an action the page reacted to (armed, up to ARM_MAX_MS before), once
//         nothing it set off is pending or moving and two frames and a task have passed with
//         no further change: what it set off has been rendered (frames held back past the
//         quiet window: the rule above);
//       - or, right after an action that changed nothing (armed, and since then no mutation,
//         timer, animation frame, request or animation; after a scroll, for two frames): the
//         page did not react. Style is up to date when we look (document.getAnimations()
//         flushes it), so a transition the action triggered is seen even before the next
//         frame;
//       - or after maxMs whatever happens (why: "timeout").
//     A watcher installed by this very call knows nothing of the past, so it waits the full
//     quiet window from now (the classic DOM-quiet settle).
// Mutations inside open shadow roots are counted too (roots attached later included); those
// inside iframes are not. Intervals, infinite animations and timers longer than
// shortTimerMs are never waited for: they would keep a busy page from ever settling.
const { op, quietMs, maxMs, shortTimerMs, frames } = options;
const KEY = Symbol.for("stagehand_py.watch");
const SHORT_TIMER_MS = shortTimerMs || 1000;
const ARM_MAX_MS = 15000; // an action that never settled stops arming after this
const MAX_CHAIN = 3; // timers started by tracked timers' callbacks, at most this deep
// The longest wait for two frames before saying "unchanged": on a loaded machine frames
// come late (beside the test suite, 100 ms was not always enough), not never.
const RENDER_WAIT_MS = 1000;
const SCROLL_IDLE_MS = 100; // a smooth scroll sends an event each frame while it moves
const SCROLL_START_MS = 1000; // the longest a key's scroll is waited for to start
const SCROLL_MAX_MS = 2000; // the longest a scroll the action set off is waited for
// Playwright's page.clock swaps the page's timers and clock for fakes that stand still while
// paused, and keeps the real ones in __pwClock.builtins: the watcher waits on those.
let real = null;
try {
  real = window.__pwClock && window.__pwClock.builtins;
} catch (error) {
  // a page's own getter that throws: the page's timers it is
}
const builtin = (name, fallback) =>
  (real && typeof real[name] === "function" ? real[name] : fallback);
const clock = real && real.performance && typeof real.performance.now === "function"
  ? real.performance : performance;
const now = () => clock.now();
// At a document's start there may be no element yet: the document itself is watched.
const root = document.documentElement || (op === "start" ? document : null);
let fresh = false;
let w = window[KEY];
if (!w) {
  if (!root) return op === "settle" ? { doc: null, changes: 0, why: "no-document" } : null;
  fresh = true;
  const setTimer = builtin("setTimeout", window.setTimeout).bind(window);
  const clearTimer = builtin("clearTimeout", window.clearTimeout).bind(window);
  w = {
    doc: Math.random().toString(36).slice(2) + now().toFixed(0),
    changes: 0,
    lastChange: now(),
    armedAt: -1,
    reacted: false, // something happened since arm (mutation, timer, request, animation)
    pending: new Map(), // tracked timer id -> due time
    requests: new Set(),
    leaving: -1, // when a navigation away from this document started (-1: none)
    opened: 0, // windows opened since the last arm
    chain: 0, // depth of the tracked timer callback running now (0: none)
    frames: new Set(), // tracked requestAnimationFrame ids not run yet
    frameChain: 0, // depth of the tracked rAF callback running now
    chainCallback: null,
    setTimer,
    clearTimer,
  };
  try {
    Object.defineProperty(window, KEY, { value: w, enumerable: false });
  } catch (error) {
    // a page that locks its globals: see below
  }
  // Refused (it threw, or did nothing): a plain property, which a symbol key keeps out of
  // the page's own listings. Without it every call would wrap the timers once more.
  if (window[KEY] !== w) window[KEY] = w;
  const observer = new MutationObserver((records) => {
    w.changes += records.length;
    w.lastChange = now();
    w.reacted = true;
  });
  const watch = (node) =>
    observer.observe(node, { subtree: true, childList: true, attributes: true, characterData: true });
  watch(root);
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_ELEMENT);
  for (let el = walker.currentNode; el; el = walker.nextNode()) if (el.shadowRoot) watch(el.shadowRoot);
  const attachShadow = Element.prototype.attachShadow;
  if (attachShadow) {
    Element.prototype.attachShadow = function (...args) {
      const shadow = attachShadow.apply(this, args);
      watch(shadow);
      return shadow;
    };
  }
  const tracking = () =>
    (w.armedAt >= 0 && now() - w.armedAt < ARM_MAX_MS) || w.chain > 0 || w.frameChain > 0;
  // A finished timer or request may still render: the quiet window starts again.
  const finished = () => {
    w.lastChange = now();
  };
  const originalSetTimeout = window.setTimeout;
  // Timers and frames of a page whose clock is Playwright's run when the test moves that clock,
  // not in real time: never waited for.
  const faked = (original, name) => Boolean(real) && original !== real[name];
  const fakeTimers = faked(originalSetTimeout, "setTimeout");
  window.setTimeout = function (callback, delay, ...rest) {
    const ms = Number(delay) || 0;
    // A tracked callback that schedules itself again is polling (a clock): not followed.
    const polling = w.chain > 0 && callback === w.chainCallback;
    if (typeof callback !== "function" || ms > SHORT_TIMER_MS || polling || w.chain >= MAX_CHAIN ||
        fakeTimers || !tracking()) {
      return originalSetTimeout.call(window, callback, delay, ...rest);
    }
    const depth = w.chain + 1;
    let id = 0;
    const run = function (...args) {
      w.pending.delete(id);
      const outer = [w.chain, w.chainCallback];
      w.chain = depth;
      w.chainCallback = callback;
      try {
        return callback.apply(this, args);
      } finally {
        [w.chain, w.chainCallback] = outer;
        finished();
      }
    };
    id = originalSetTimeout.call(window, run, delay, ...rest);
    w.pending.set(id, now() + ms);
    w.reacted = true;
    return id;
  };
  for (const name of ["clearTimeout", "clearInterval"]) {
    const original = window[name];
    window[name] = function (id) {
      w.pending.delete(id);
      return original.call(window, id);
    };
  }
  const track = () => {
    const token = {};
    w.requests.add(token);
    w.reacted = true;
    return () => {
      if (w.requests.delete(token)) finished();
    };
  };
  const originalFetch = window.fetch;
  if (originalFetch) {
    window.fetch = function (...args) {
      if (!tracking()) return originalFetch.apply(this, args);
      const done = track();
      let promise;
      try {
        promise = originalFetch.apply(this, args);
      } catch (error) {
        done();
        throw error;
      }
      promise.then(done, done);
      return promise;
    };
  }
  // A response's body is read after fetch's own promise resolves: reading it is work too.
  const body = window.Response && Response.prototype;
  for (const name of ["arrayBuffer", "blob", "bytes", "formData", "json", "text"]) {
    const read = body && body[name];
    if (typeof read !== "function") continue;
    body[name] = function (...args) {
      if (!tracking()) return read.apply(this, args);
      const done = track();
      const promise = read.apply(this, args);
      promise.then(done, done);
      return promise;
    };
  }
  // Animation frames an action requests (and those their callbacks request, a few deep:
  // the double-rAF that starts a CSS transition; never an endless rAF loop).
  const originalRaf = window.requestAnimationFrame;
  w.rawRaf = builtin("requestAnimationFrame", originalRaf);
  window.requestAnimationFrame = function (callback) {
    if (typeof callback !== "function" || !tracking() || w.frameChain >= MAX_CHAIN ||
      faked(originalRaf, "requestAnimationFrame")) {
      return originalRaf.call(window, callback);
    }
    const depth = w.frameChain + 1;
    let id = 0;
    id = originalRaf.call(window, (time) => {
      w.frames.delete(id);
      const outer = w.frameChain;
      w.frameChain = depth;
      try {
        return callback(time); // what it renders counts as a DOM change
      } finally {
        w.frameChain = outer;
      }
    });
    w.frames.add(id);
    w.reacted = true;
    return id;
  };
  // An animation's end events (transitionend, animationend) are sent at the next rendering
  // step, which a busy machine can hold back longer than the quiet window: wait for it.
  w.awaitFrames = () => {
    const done = track();
    w.rawRaf.call(window, () => w.rawRaf.call(window, done));
  };
  const cancelFrame = window.cancelAnimationFrame;
  window.cancelAnimationFrame = function (id) {
    w.frames.delete(id);
    return cancelFrame.call(window, id);
  };
  // A link or form that leaves this document: wait for the next one instead of settling on
  // a page about to go (downloads and same-document navigations stay).
  if (window.navigation) {
    window.navigation.addEventListener("navigate", (event) => {
      if (event.destination.sameDocument || event.downloadRequest !== null) return;
      w.leaving = now();
      w.reacted = true;
    });
    const arrived = () => {
      w.leaving = -1;
    };
    window.navigation.addEventListener("navigatesuccess", arrived);
    window.navigation.addEventListener("navigateerror", arrived);
  }
  // Windows an action opens (a tab opened from a timer a moment after a click): counted so
  // the caller can wait for their popup events. With noopener, open() returns null.
  const originalOpen = window.open;
  window.open = function (...args) {
    const opened = originalOpen.apply(this, args);
    if (tracking() && (opened !== null || /noopener|noreferrer/i.test(String(args[2] || "")))) {
      w.opened += 1;
      w.reacted = true;
    }
    return opened;
  };
  // Scrolls an action sets off: a smooth scroll sends a scroll event each frame while it
  // moves, then scrollend (the last position may be sent with it). A key that scrolls
  // starts its scroll a few frames later, more on a loaded machine: at keydown we note
  // whether the key has something to scroll.
  const KEY_DIRECTION = { End: 1, PageDown: 1, ArrowDown: 1, " ": 1, Home: -1, PageUp: -1, ArrowUp: -1 };
  // A scroller around the focused element, or the page, with room in the key's direction
  // (a key typed into a field, or Space on a button, does something else).
  const keyHasRoom = (event) => {
    const direction = KEY_DIRECTION[event.key] * (event.key === " " && event.shiftKey ? -1 : 1);
    const target = event.composedPath()[0];
    if (!direction || !(target instanceof Element)) return false;
    if (target.isContentEditable || target.closest("input, textarea, select")) return false;
    if (event.key === " " && target.closest("button, summary")) return false;
    const room = (el) =>
      direction > 0 ? el.scrollHeight - el.clientHeight - el.scrollTop > 1 : el.scrollTop > 1;
    const up = (el) => el.parentElement || (el.parentNode instanceof ShadowRoot ? el.parentNode.host : null);
    for (let el = target; el; el = up(el)) {
      const scroller = /auto|scroll|overlay/.test(getComputedStyle(el).overflowY);
      if (scroller && el.scrollHeight > el.clientHeight && room(el)) return true;
    }
    return Boolean(document.scrollingElement && room(document.scrollingElement));
  };
  const scrollOptions = { capture: true, passive: true };
  window.addEventListener("scroll", () => {
    w.lastScroll = now();
    w.sawScroll = true;
  }, scrollOptions);
  window.addEventListener("scrollend", () => {
    w.scrollEnded = true;
  }, scrollOptions);
  // Where the page stood when an armed action's click reached it (after Playwright scrolled
  // its target into view, before the page's own handlers ran): a handler that scrolls the
  // page by script moves it from there.
  window.addEventListener("click", () => {
    if (w.armedAt >= 0) w.clickPosition = [window.scrollX, window.scrollY];
  }, scrollOptions);
  window.addEventListener("keydown", (event) => {
    if (w.armFrames && w.armedAt >= 0) w.keyScroll = { event, room: keyHasRoom(event) };
  }, scrollOptions);
  w.arm = (frames) => {
    w.armedAt = now();
    w.reacted = false;
    w.opened = 0;
    w.armFrames = Boolean(frames);
    w.clickPosition = null;
    w.sawScroll = false;
    w.scrollEnded = false;
    w.keyScroll = null;
  };
  const send = XMLHttpRequest.prototype.send;
  XMLHttpRequest.prototype.send = function (...args) {
    if (tracking()) {
      const done = track();
      this.addEventListener("loadend", done, { once: true });
    }
    return send.apply(this, args);
  };
}
