// Fingerprint fields of live elements (see shared/fingerprint.js). Three ways to call it:
//   locator.evaluate(<this script>)      one element -> its fields;
//   locator.evaluate_all(<this script>)  all matches -> a list (count and fields in one trip);
//   as an installed page script, {xpaths: [...], facts} -> per XPath {count, fields} or
//   {count: 0, error}; with facts true, one match also brings its field facts (what the
//   secret scope check reads of a field, shared/field_facts.js), so a replayed step that types
//   a variable checks its element and reads its field in one round trip.
// The last is how a cache replay checks a step: plain page.evaluate needs only Playwright's
// small main-world helper, not its selector engine there (~25 ms to set up in each new
// document, on top of the utility-world one that fill/click use anyway).
if (Array.isArray(options)) return options.map((element) => fingerprintFields(element));
if (!Array.isArray(options.xpaths)) return fingerprintFields(options);
return options.xpaths.map((xpath) => {
  let elements;
  try {
    elements = elementsByXPath(xpath);
  } catch (error) {
    return { count: 0, error: String(error.message || error) };
  }
  if (elements.length !== 1) return { count: elements.length, fields: null };
  const answer = { count: 1, fields: fingerprintFields(elements[0]) };
  if (options.facts) answer.facts = fieldFacts(elements[0]);
  return answer;
});
