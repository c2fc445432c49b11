// Added with page.add_init_script: each new document of the page's top frame gets its watcher
// (settle/, put where the marker is) before any script of its own runs, armed from its
// start. The first look at the document then knows what loading it set off (short timers,
// requests) and when its DOM last changed, instead of waiting a whole quiet window to find
// out. Frames get none: the watcher only watches the top document.
(() => {
  if (window !== window.top) return;
  const settle = (
    /* STAGEHAND_PY_SCRIPT */
  );
  settle(/* WATCH_OPTIONS */);
})();
