// Where a comment points: a CSS selector for the element, its text with the text around it, and
// the `data-maple-src` / `data-maple-key` an app may tag its elements with.

/**
 * A selector that finds `element` again: its unique id, or a path of tags from the nearest
 * ancestor with a unique id.
 * @param {Element} element
 * @returns {string}
 */
export function selectorFor(element) {
  if (element.id && document.querySelectorAll("#" + CSS.escape(element.id)).length === 1) {
    return "#" + CSS.escape(element.id);
  }
  /** @type {string[]} */
  const parts = [];
  /** @type {Element | null} */
  let node = element;
  while (node && node !== document.documentElement) {
    if (node.id && document.querySelectorAll("#" + CSS.escape(node.id)).length === 1) {
      parts.unshift("#" + CSS.escape(node.id));
      break;
    }
    const tagName = node.tagName;
    let tag = tagName.toLowerCase();
    const parent = /** @type {Element | null} */ (node.parentElement);
    if (parent) {
      const same = Array.from(parent.children).filter((c) => c.tagName === tagName);
      if (same.length > 1) tag += ":nth-of-type(" + (same.indexOf(node) + 1) + ")";
    }
    parts.unshift(tag);
    node = parent;
  }
  return parts.join(" > ");
}

/**
 * The element's text (up to 200 characters) with up to 32 characters before and after it.
 * @param {Element} element
 * @returns {import("./types.js").Quote | undefined}
 */
export function quoteFor(element) {
  const exact = (element.textContent || "").replace(/\s+/g, " ").trim().slice(0, 200);
  if (!exact) return undefined;
  const around = ((element.parentElement || document.body).textContent || "").replace(/\s+/g, " ");
  const at = around.indexOf(exact);
  /** @type {import("./types.js").Quote} */
  const quote = { exact };
  if (at >= 0) {
    quote.prefix = around.slice(Math.max(0, at - 32), at);
    quote.suffix = around.slice(at + exact.length, at + exact.length + 32);
  }
  return quote;
}

/**
 * @param {Element} element
 * @returns {import("./types.js").Anchor}
 */
export function anchorFor(element) {
  /** @type {import("./types.js").Anchor} */
  const anchor = { selector: selectorFor(element) };
  const quote = quoteFor(element);
  if (quote) anchor.quote = quote;
  const tagged = element.closest("[data-maple-src]");
  const source = tagged && tagged.getAttribute("data-maple-src");
  if (source) anchor.source = source;
  const keyed = element.closest("[data-maple-key]");
  const key = keyed && keyed.getAttribute("data-maple-key");
  if (key) anchor.key = key;
  return anchor;
}
