// The page's text as an anchor quotes it: whitespace runs as one space, and never what a person
// typed. Fields (inputs, textareas, selects' choices, contenteditable regions) hold the person's
// words, not the app's, so their text is left out of every quote, prefix and suffix; the
// overlay's own host and scripts and styles are not the page's text either.

import { isShadowRoot } from "./frames.js";

/** Elements whose text is not the app's own words: the reviewer's or the app user's typing. */
export const FIELDS = "input, textarea, select, [contenteditable]:not([contenteditable=false])";
const SKIPPED = FIELDS + ", script, style, noscript, template, [data-maple-overlay]";

/**
 * Text as the anchor quotes it: whitespace runs as one space, trimmed.
 * @param {string | null | undefined} text
 * @returns {string}
 */
export function squeezed(text) {
  return (text || "").replace(/\s+/g, " ").trim();
}

/** Elements whose own text is never the app's words. */
const SKIPPED_TAGS = new Set(["TEXTAREA", "SELECT", "OPTION", "SCRIPT", "STYLE", "NOSCRIPT", "TEMPLATE"]);

/**
 * Whether a text node's words are left out: inside a field, a script or a style (the overlay's
 * own text is in its shadow root, where no walk over the page goes).
 * @param {Node} node
 * @returns {boolean}
 */
function skipped(node) {
  const parent = node.parentElement;
  if (!parent) return true;
  if (SKIPPED_TAGS.has(parent.tagName) || parent.isContentEditable) return true;
  const grand = parent.parentElement; // an <option> in an <optgroup>, say
  return !!grand && SKIPPED_TAGS.has(grand.tagName);
}

/**
 * The element's own words, squeezed: its text without any field's, script's or style's. Empty
 * for a field itself.
 * @param {Element} element
 * @returns {string}
 */
export function textOf(element) {
  if (element.matches(SKIPPED) || element.closest(FIELDS)) return "";
  if (!element.querySelector(SKIPPED)) return squeezed(element.textContent);
  const walker = element.ownerDocument.createTreeWalker(element, NodeFilter.SHOW_TEXT);
  let text = "";
  for (let node = walker.nextNode(); node; node = walker.nextNode()) if (!skipped(node)) text += node.nodeValue;
  return squeezed(text);
}

/** How many characters of text before and after an element a quote keeps. */
export const AROUND = 32;

/**
 * The item an element belongs to: the nearest ancestor (up to six levels) that repeats among
 * its siblings (a list's row, a card), whose text is what tells it from its neighbours; the
 * element's root (document body or shadow root) when it is in none.
 * @param {Element} element
 * @returns {Node}
 */
export function itemOf(element) {
  let node = element.parentElement;
  for (let depth = 0; node && depth < 6 && node !== element.ownerDocument.body; depth++, node = node.parentElement) {
    const same = (/** @type {Element | null} */ other) => !!other && other.tagName === node?.tagName && other.className === node?.className;
    if (same(node.previousElementSibling) || same(node.nextElementSibling)) return node;
  }
  const root = element.getRootNode();
  return isShadowRoot(root) ? root : element.ownerDocument.body || element.ownerDocument.documentElement;
}

/**
 * Up to AROUND characters of the words before (`before`) or after the element within `within`,
 * squeezed; fields' text is never read.
 * @param {Element} element
 * @param {Node} within
 * @param {boolean} before
 * @returns {string}
 */
export function textBeside(element, within, before) {
  const walker = element.ownerDocument.createTreeWalker(within, NodeFilter.SHOW_TEXT);
  let node = null;
  if (before) {
    walker.currentNode = element;
    node = walker.previousNode();
  } else {
    // past the element's own text: from its last descendant on
    /** @type {Node} */
    let last = element;
    while (last.lastChild) last = last.lastChild;
    walker.currentNode = last;
    node = walker.nextNode();
  }
  /** @type {string[]} */
  const parts = [];
  let chars = 0;
  for (; node && chars < AROUND; node = before ? walker.previousNode() : walker.nextNode()) {
    if (skipped(node) || element.contains(node)) continue;
    const value = node.nodeValue || "";
    parts.push(value);
    chars += value.trim().length;
  }
  const text = (before ? parts.reverse() : parts).join(" ");
  const words = squeezed(text);
  return before ? words.slice(-AROUND) : words.slice(0, AROUND);
}

/** What stands in a kept text where the app showed what a person typed. */
export const TYPED = "[typed]";

/** @type {WeakMap<Document, string[]>} what each document's fields held at their last input */
const typedKept = new WeakMap();

/**
 * typedValues, read again only after an input event in the document (typing, pasting,
 * autofill), so a redraw does not look at every field.
 * @param {Document} doc
 * @returns {string[]}
 */
export function typedValuesKept(doc) {
  let values = typedKept.get(doc);
  if (!values) {
    values = typedValues(doc);
    typedKept.set(doc, values);
    doc.addEventListener("input", () => typedKept.delete(doc), { capture: true, once: true });
  }
  return values;
}

/**
 * What the document's fields hold now (typed values, at least 3 characters), longest first: an
 * app that shows what was typed elsewhere ("Thank you, Ada") must not get it into a comment.
 * @param {Document} doc
 * @returns {string[]}
 */
export function typedValues(doc) {
  /** @type {string[]} */
  const values = [];
  for (const field of Array.from(doc.querySelectorAll(FIELDS)).slice(0, 200)) {
    const tag = field.tagName;
    const type = tag === "INPUT" ? /** @type {HTMLInputElement} */ (field).type : "";
    if (/^(checkbox|radio|submit|button|reset|image|file|range|color)$/.test(type)) continue;
    const value = tag === "INPUT" || tag === "TEXTAREA" ? /** @type {HTMLInputElement} */ (field).value
      : tag === "SELECT" ? "" : field.textContent || "";
    const words = squeezed(value);
    if (words.length >= 3) values.push(words.slice(0, 500));
  }
  return values.sort((a, b) => b.length - a.length);
}

/**
 * `text` with every typed value in it replaced by TYPED.
 * @param {string} text
 * @param {string[]} typed
 * @returns {string}
 */
export function redacted(text, typed) {
  let out = text;
  for (const value of typed) if (out.indexOf(value) >= 0) out = out.split(value).join(TYPED);
  return out;
}
