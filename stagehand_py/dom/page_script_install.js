// Install a page script into this document under a versioned key, then run it once.
// Python puts the script's source (a function expression) where the marker is. The global is
// not enumerable, so the page's own code does not trip over it when listing window's keys.
// A page that locks its globals (its own Object.defineProperty refuses window) gets the
// script run without being kept: every call then installs it again, which also runs it.
async ({ key, arg }) => {
  const script = (
    /* STAGEHAND_PY_SCRIPT */
  );
  if (typeof globalThis[key] !== "function") {
    try {
      Object.defineProperty(globalThis, key, {
        value: script,
        enumerable: false,
        writable: false,
        configurable: true,
      });
    } catch (error) {
      // not kept in this document
    }
  }
  return { installed: true, value: await script(arg) };
}
