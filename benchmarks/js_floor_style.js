// The JavaScript floor of a page view that decides what is seen (benchmarks/serialize.py):
// js_floor.js (every element's rectangle), plus the computed style each element's visibility
// and stacking come from (visibility, opacity, position), read once per element in the same
// visit. Still no filtering, naming, chunking or parsing.
() => {
  const rows = [];
  for (const element of document.getElementsByTagName("*")) {
    const box = element.getBoundingClientRect();
    const style = getComputedStyle(element);
    rows.push([box.x, box.y, box.width, box.height, style.visibility, style.opacity, style.position]);
  }
  return JSON.stringify(rows);
}
