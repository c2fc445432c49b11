// Install a page script into this document under a versioned key, then run it once.
// Python puts the script's source (a function expression) where the marker is. The global is
// not enumerable, so the page's own code does not trip over it when listing window's keys.
async ({ key, arg }) => {
  const script = (
    /* STAGEHAND_PY_SCRIPT */
  );
  if (typeof globalThis[key] !== "function") {
    Object.defineProperty(globalThis, key, {
      value: script,
      enumerable: false,
      writable: false,
      configurable: true,
    });
  }
  return { installed: true, value: await globalThis[key](arg) };
}
