// Fingerprint fields of live elements (see shared/fingerprint.js). Three ways to call it:
//   locator.evaluate(<this script>)      one element -> its fields;
//   locator.evaluate_all(<this script>)  all matches -> a list (count and fields in one trip);
//   as an installed page script, {xpaths: [...], facts} -> a JSON string: per XPath {count,
//   fields} or {count: 0, error}, or {count: 1, same: i} when the one match is the element of
//   XPath i before it (one element is read once); with facts true, one match also brings its
//   field facts (what the secret scope check reads of a field, shared/field_facts.js), so a
//   replayed step that types a variable checks its element and reads its field in one round
//   trip; with guard (an XPath condition on the element), the facts also say whether it holds
//   (home). A string crosses to Python at a fraction of the cost of the object it encodes.
// The last is how a cache replay checks a step, in the top document's main world: through the
// page's DevTools session on Chromium, else a plain page.evaluate. Neither needs Playwright's
// selector engine in that world (~25 ms to set up in each new document, on top of the
// utility-world one that fill/click use anyway).
const holds = (condition, element) => {
  try {
    const count = document.evaluate(`count(${condition})`, element, null, XPathResult.NUMBER_TYPE);
    return count.numberValue === 1;
  } catch (error) {
    return false;
  }
};
if (Array.isArray(options)) return options.map((element) => fingerprintFields(element));
if (!Array.isArray(options.xpaths)) return fingerprintFields(options);
const firstAt = new Map(); // element -> the index of the XPath that read it
const answers = options.xpaths.map((xpath, index) => {
  let elements;
  try {
    elements = elementsByXPath(xpath);
  } catch (error) {
    return { count: 0, error: String(error.message || error) };
  }
  if (elements.length !== 1) return { count: elements.length, fields: null };
  if (firstAt.has(elements[0])) return { count: 1, same: firstAt.get(elements[0]) };
  firstAt.set(elements[0], index);
  const answer = { count: 1, fields: fingerprintFields(elements[0]) };
  if (options.facts) {
    answer.facts = fieldFacts(elements[0]);
    // Whether the secret scope's XPath condition holds here in the page's world: the caller
    // then has Playwright's isolated world prove it again as the value is typed.
    if (options.guard) answer.facts.home = holds(options.guard, elements[0]);
  }
  return answer;
});
return JSON.stringify(answers);
