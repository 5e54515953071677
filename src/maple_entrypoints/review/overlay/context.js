// The page as the reviewer saw it, stored with each comment.

/** @returns {import("./types.js").PageContext} */
export function pageContext() {
  return {
    url: location.href,
    viewportWidth: window.innerWidth,
    viewportHeight: window.innerHeight,
    devicePixelRatio: window.devicePixelRatio || 1,
    colorScheme: window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light",
  };
}
