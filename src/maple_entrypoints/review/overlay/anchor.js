// Where a comment points: a CSS selector for the element, its text with the text around it, and
// the `data-maple-src` / `data-maple-key` an app may tag its elements with, and the element's box
// (which, with the text, finds it again when the selector breaks: see locate.js).

import { boxOf } from "./locate.js";

/** Attributes apps put on elements for their tests: stable names, meant to be selected by. */
const TEST_ATTRIBUTES = ["data-testid", "data-test", "data-cy"];

/**
 * `[name="value"]`, the value quoted as a CSS string.
 * @param {string} name
 * @param {string} value
 * @returns {string}
 */
function attribute(name, value) {
  return "[" + name + '="' + value.replace(/["\\]/g, "\\$&").replace(/\n/g, "\\a ") + '"]';
}

/**
 * Whether `selector` finds `element` and nothing else on the page.
 * @param {string} selector
 * @param {Element} element
 * @returns {boolean}
 */
function findsOnly(selector, element) {
  try {
    const found = document.querySelectorAll(selector);
    return found.length === 1 && found[0] === element;
  } catch {
    return false;
  }
}

/**
 * A selector that names `element` by itself, as the app does, when one finds only it: its id,
 * a test attribute, or its role and accessible name where the name is an attribute
 * (`button[aria-label="Close"]`, `input[name="q"]`). Null when it has no such name.
 * @param {Element} element
 * @returns {string | null}
 */
function ownName(element) {
  const tag = element.tagName.toLowerCase();
  /** @type {string[]} */
  const candidates = [];
  if (element.id) candidates.push("#" + CSS.escape(element.id));
  for (const name of TEST_ATTRIBUTES) {
    const value = element.getAttribute(name);
    if (value) candidates.push(attribute(name, value));
  }
  const label = element.getAttribute("aria-label");
  if (label) {
    const role = element.getAttribute("role");
    candidates.push((role ? attribute("role", role) : tag) + attribute("aria-label", label));
  }
  const name = element.getAttribute("name");
  if (name && ["input", "select", "textarea", "button"].indexOf(tag) >= 0) {
    candidates.push(tag + attribute("name", name));
  }
  return candidates.find((selector) => findsOnly(selector, element)) || null;
}

/**
 * A selector that finds `element` again: its own name (see ownName), else the shortest path of
 * tags down from the nearest ancestor with one (or from the root), positions only where a tag
 * repeats among siblings.
 * @param {Element} element
 * @returns {string}
 */
export function selectorFor(element) {
  /** @type {string[]} */
  const parts = [];
  /** @type {Element | null} */
  let node = element;
  while (node && node !== document.documentElement) {
    const named = ownName(node);
    if (named) {
      parts.unshift(named);
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
  const anchor = { selector: selectorFor(element), box: boxOf(element) };
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
