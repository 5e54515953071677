// Client-side navigation: a single-page app changes the address with history.pushState or
// replaceState (no event fires for those) or the reviewer goes Back or Forward (popstate).

/**
 * Calls `changed` right after every change of the page's address that loads no new document.
 * @param {() => void} changed
 */
export function onNavigation(changed) {
  let last = location.href;
  const check = () => {
    if (location.href === last) return;
    last = location.href;
    changed();
  };
  for (const name of /** @type {const} */ (["pushState", "replaceState"])) {
    const original = history[name];
    history[name] = function (data, unused, url) {
      original.call(this, data, unused, url);
      check();
    };
  }
  window.addEventListener("popstate", check);
  window.addEventListener("hashchange", check);
}
