// The role and accessible name of one element inside a closed shadow root (the aria view's
// check that a located element is still the one the model saw). Run with locator.evaluate:
// `options` is that element.
return { role: closedRole(options), name: closedName(options) };
