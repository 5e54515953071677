// Where the bar sits: at the bottom right, or just above the app's own fixed or sticky controls
// there (a phone layout's bottom tabs, a cookie banner), so that it never covers them.

/** The bar's distance from the window's edges, and from the app's controls under it. */
const BAR_MARGIN = 16;
/** An app's bar taller than this share of the window is its layout, not a bar: ignored. */
const BAR_SHARE = 1 / 3;

/**
 * The fixed or sticky element at `node` or around it, if any.
 * @param {Element | null} node
 * @returns {Element | null}
 */
function pinnedAround(node) {
  for (let at = node; at && at !== document.body && at !== document.documentElement; at = at.parentElement) {
    const position = getComputedStyle(at).position;
    if (position === "fixed" || position === "sticky") return at;
  }
  return null;
}

/**
 * How far above the window's bottom edge the bar goes: above the top of any fixed or sticky
 * element of the app that sits along the bottom edge where the bar would be.
 * @param {DOMRect} bar the bar's box
 * @param {Element} host the overlay's host, over the app's elements there
 * @returns {number}
 */
function clearance(bar, host) {
  let bottom = BAR_MARGIN;
  const y = window.innerHeight - BAR_MARGIN - bar.height / 2;
  const right = window.innerWidth - BAR_MARGIN;
  for (const x of [right - bar.width, right - bar.width / 2, right - 1]) {
    const pinned = pinnedAround(document.elementsFromPoint(x, y).find((hit) => hit !== host) || null);
    if (!pinned) continue;
    const box = pinned.getBoundingClientRect();
    const alongBottom = box.bottom >= window.innerHeight - BAR_MARGIN && box.height <= window.innerHeight * BAR_SHARE;
    if (alongBottom) bottom = Math.max(bottom, window.innerHeight - box.top + BAR_MARGIN / 2);
  }
  return bottom;
}

/**
 * Moves the bar, and the list opened above it, clear of the app's bottom controls.
 * @param {import("./ui.js").Ui} ui
 */
export function dock(ui) {
  ui.bar.style.bottom = "";
  const bottom = clearance(ui.bar.getBoundingClientRect(), ui.host);
  ui.bar.style.bottom = bottom + "px";
  ui.panel.style.bottom = bottom + 48 + "px";
}
