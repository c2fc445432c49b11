// What a secret's target field looks like (see shared/field_facts.js). Three ways to run it:
//   on the element's handle, (element) => facts;
//   on a locator's matches with evaluate_all, (elements) => [facts of each] (no handle);
//   as an installed page script, ({xpath}) => facts of the one element the XPath finds in this
//   document, or null (none, several, or a malformed XPath). This needs no Playwright selector
//   engine in the page's world, which Playwright sets up on first use in each document.
if (Array.isArray(options)) return options.map((element) => fieldFacts(element));
if (options instanceof Element) return fieldFacts(options);
let matches;
try {
  matches = elementsByXPath(options.xpath);
} catch (error) {
  return null;
}
return matches.length === 1 ? fieldFacts(matches[0]) : null;
