// The page as the reviewer saw it, stored with each comment.

/**
 * @param {string} appOrigin the app's own origin (`http://localhost:3000`), which the proxy names
 *   in the script's data-maple-app; the page's address is stored on it, not on the proxy's
 *   origin, whose port changes from run to run. Empty: the address as the browser has it.
 * @returns {import("./types.js").PageContext}
 */
export function pageContext(appOrigin) {
  return {
    url: appOrigin ? appOrigin + location.pathname + location.search + location.hash : location.href,
    viewportWidth: window.innerWidth,
    viewportHeight: window.innerHeight,
    devicePixelRatio: window.devicePixelRatio || 1,
    colorScheme: window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light",
  };
}
