// The bare JavaScript floor of a page snapshot (benchmarks/serialize.py): visit every element
// of the document once and read its rectangle, the one layout read every view needs, and
// return the numbers as one JSON string. No filtering, naming, chunking or parsing: what
// take_snapshot does on top of this is what the ratio measures.
() => {
  const rows = [];
  for (const element of document.getElementsByTagName("*")) {
    const box = element.getBoundingClientRect();
    rows.push([box.x, box.y, box.width, box.height]);
  }
  return JSON.stringify(rows);
}
