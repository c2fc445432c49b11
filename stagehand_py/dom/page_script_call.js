// Run a page script that page_script_install.js put into this document earlier: a call then
// sends only this stub and the script's key, not the script itself (a trace records every
// evaluate's source; the serializer alone is tens of kilobytes).
// Returns {installed: false} when this document has no such script yet (a new document, or
// a navigation dropped it): the caller then installs it, which also runs it.
async ({ key, arg }) => {
  const script = globalThis[key];
  if (typeof script !== "function") return { installed: false };
  return { installed: true, value: await script(arg) };
}
