// Part 2: the ops. (Part 1, the watcher, is installed once per document.)
const version = () => ({ doc: w.doc, changes: w.changes });
if (op === "version") return version();
if (op === "start") return w.arm(false) || null;
if (op === "arm") {
  w.arm(frames);
  return version();
}
const started = now();
const armedAt = w.armedAt;
const armed = armedAt >= 0;
// A click whose handler scrolled the page by script: what that scroll sets off comes with the
// next frames as well, so it gets the same two frames as an action that scrolls (below).
const clicked = armed ? w.clickPosition : null;
const movedByClick = Array.isArray(clicked) &&
  (window.scrollX !== clicked[0] || window.scrollY !== clicked[1]);
const animating = () => {
  for (const animation of document.getAnimations()) {
    if (animation.playState !== "running") continue;
    const timing = animation.effect && animation.effect.getComputedTiming();
    if (!timing || !Number.isFinite(timing.endTime)) continue; // spinners never end
    const left = (timing.endTime - (timing.localTime || 0)) / Math.abs(animation.playbackRate || 1);
    if (left <= maxMs) return true;
  }
  return false;
};
// A frame only runs in a visible tab: a hidden one never runs the callbacks we track.
const framesPending = () => w.frames.size > 0 && document.visibilityState !== "hidden";
const yieldTask = () => new Promise((resolve) => w.setTimer(resolve, 0));
// Two animation frames from now and a task after them (the callbacks an
// IntersectionObserver queues in the first frame have run by then), or RENDER_WAIT_MS on a
// page whose frames are held back. Waited for after an action armed with `frames` (one
// that scrolls; a click's own wait for its element to be stable already spans frames). A
// hidden tab, or a watcher from an older script without the page's own
// requestAnimationFrame, waits for none.
const scrolled = w.armFrames === true;
let rendered = document.visibilityState === "hidden" || !w.rawRaf;
// A scroll the action set off and not over: moving until its scrollend (in a browser
// without scrollend, until SCROLL_IDLE_MS pass without a scroll event: frames can come
// further apart than that), or, after a key with something to scroll, not started yet. Only
// up to SCROLL_MAX_MS after arm: a page that scrolls by itself all the time is not waited for.
const scrollEndSent = "onscrollend" in window;
const keyScroll = () => {
  const key = w.keyScroll;
  return Boolean(key && key.room && !key.event.defaultPrevented);
};
const scrolling = () => {
  if (!scrolled || !armed || now() - armedAt >= SCROLL_MAX_MS) return false;
  if (!w.sawScroll) return now() - armedAt < SCROLL_START_MS && keyScroll();
  return scrollEndSent ? !w.scrollEnded : now() - w.lastScroll < SCROLL_IDLE_MS;
};
// True once two frames and a task have run; false when `limitMs` (at most the time left)
// passed first.
const nextRender = (limitMs) =>
  new Promise((resolve) => {
    w.rawRaf.call(window, () => w.rawRaf.call(window, () => w.setTimer(() => resolve(true), 0)));
    w.setTimer(() => resolve(false), Math.max(0, Math.min(limitMs, maxMs - (now() - started))));
  });
return (async () => {
  // Let tasks the action queued (message-channel hops of a framework scheduler) run first.
  await yieldTask();
  await yieldTask();
  let why = "timeout";
  let wasMoving = false;
  let calmAfter = -1; // the last change two frames were seen to pass after
  while (now() - started < maxMs) {
    const moving = animating();
    if (wasMoving && !moving && w.awaitFrames && document.visibilityState !== "hidden") w.awaitFrames();
    wasMoving = moving;
    const scroll = scrolling();
    // An animation or scroll that just ended fires its events after: the quiet window
    // restarts.
    if (moving || scroll) w.lastChange = now();
    const busy = w.pending.size > 0 || w.requests.size > 0 || w.leaving >= 0 ||
      framesPending() || moving || scroll;
    if (busy) w.reacted = true;
    if (!busy && armed && !fresh && !w.reacted) {
      // What a scroll sets off comes with a rendering step, not as a task: scroll events,
      // IntersectionObserver callbacks (a list that loads more when scrolled to its end).
      // After one, "unchanged" is only said once two frames have passed.
      if (!rendered && (scrolled || movedByClick)) {
        await nextRender(RENDER_WAIT_MS);
        rendered = true;
        continue;
      }
      why = "unchanged";
      break;
    }
    const quietFrom = fresh ? Math.max(w.lastChange, started) : w.lastChange;
    if (!busy && now() - quietFrom >= quietMs) {
      why = "quiet";
      break;
    }
    const tracked = armed && !fresh && now() - armedAt < ARM_MAX_MS;
    if (!busy && tracked && w.rawRaf && document.visibilityState !== "hidden") {
      // The page reacted and nothing it started is pending: two frames later with no new
      // change, it has rendered what the action set off. Frames later than the quiet window
      // leave it to the rule above.
      if (calmAfter === w.lastChange) {
        why = "rendered";
        break;
      }
      const last = w.lastChange;
      if (await nextRender(quietMs - (now() - last))) calmAfter = last;
      continue;
    }
    await new Promise((resolve) => w.setTimer(resolve, 10));
  }
  w.armedAt = -1;
  w.armFrames = false;
  w.keyScroll = null;
  w.leaving = -1; // a navigation that never came (a 204 answer) is waited for only once
  return { ...version(), why, opened: w.opened };
})();
