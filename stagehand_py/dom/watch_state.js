// The quick half of settle/, for a document whose watcher settle/ already installed:
// {op: "version"} reads its version, {op: "arm", frames} also starts tracking what the next
// action sets off (see settle/). Returns null when there is no watcher yet (the caller then
// runs settle/, which installs one). Kept tiny: it runs around every action.
({ op, frames }) => {
  const w = window[Symbol.for("stagehand_py.watch")];
  if (!w) return null;
  if (op === "arm") w.arm(frames);
  return { doc: w.doc, changes: w.changes };
}
