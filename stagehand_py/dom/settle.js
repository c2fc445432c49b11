// Resolve once the DOM has been quiet (no mutations) for `quietMs`, or after `maxMs`.
// Used after every action so the next snapshot sees the page the action produced.
({ quietMs, maxMs }) =>
  new Promise((resolve) => {
    const root = document.documentElement;
    if (!root) {
      resolve("no-document");
      return;
    }
    let quietTimer = null;
    let done = false;
    const finish = (why) => {
      if (done) return;
      done = true;
      observer.disconnect();
      clearTimeout(quietTimer);
      clearTimeout(capTimer);
      resolve(why);
    };
    const restartQuiet = () => {
      clearTimeout(quietTimer);
      quietTimer = setTimeout(() => finish("quiet"), quietMs);
    };
    const observer = new MutationObserver(restartQuiet);
    observer.observe(root, { subtree: true, childList: true, attributes: true, characterData: true });
    const capTimer = setTimeout(() => finish("timeout"), maxMs);
    restartQuiet();
  })
