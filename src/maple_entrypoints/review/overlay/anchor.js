// Where a comment points: what the element is, so it is found again and the agent knows where
// it lives. A CSS selector that prefers the app's stable names (an id, a test attribute,
// `data-maple-key`, a role with its label) over positions; the element's text with the words
// just before and after it; its tag and its ancestors' (its structure); the path through the
// shadow roots and same-origin frames it is in; its box; a redacted copy of the markup around
// it; and, in a development build, its component and its place in the source (framework.js).
// Nothing a person typed into the app's fields is ever taken (see text.js and markup.js).

import { containersOf, rootOf } from "./frames.js";
import { sourceOf } from "./framework.js";
import { markupAround } from "./markup.js";
import { itemOf, redacted, textBeside, textOf, typedValues } from "./text.js";

/** Attributes apps put on elements for their tests: stable names, meant to be selected by. */
const TEST_ATTRIBUTES = ["data-testid", "data-test", "data-cy", "data-maple-key"];
/** How many ancestors the anchor's structure names. */
const ANCESTRY = 4;

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
 * Whether `selector` finds `element` and nothing else in its root.
 * @param {string} selector
 * @param {Element} element
 * @returns {boolean}
 */
function findsOnly(selector, element) {
  try {
    const found = rootOf(element).querySelectorAll(selector);
    return found.length === 1 && found[0] === element;
  } catch {
    return false;
  }
}

/**
 * Whether an id was made by a framework rather than written by someone (React's useId
 * `:r1:`, `«r1»`, `_r_1_`; Vue's `v-0-1`; long runs of digits or hex), and so changes between
 * renders: no name to find an element by.
 * @param {string} id
 * @returns {boolean}
 */
function generatedId(id) {
  return /^:.*:$|[«»]|^_?r_[0-9a-z]+_?$|^v[-:]\d|\d{4,}|^[0-9a-f-]{12,}$/i.test(id);
}

/**
 * A selector that names `element` by itself, as the app does, when one finds only it: its id,
 * a test attribute or `data-maple-key`, or its role and accessible name where the name is an
 * attribute (`button[aria-label="Close"]`, `input[name="q"]`). Null when it has no such name.
 * Never a field's value: what a person typed is not a name.
 * @param {Element} element
 * @param {string[]} typed what the page's fields hold now (see text.js)
 * @returns {string | null}
 */
function ownName(element, typed) {
  const tag = element.tagName.toLowerCase();
  /** @type {string[]} */
  const candidates = [];
  if (element.id && !generatedId(element.id)) candidates.push("#" + CSS.escape(element.id));
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
  if (tag.indexOf("-") > 0) candidates.push(tag); // a custom element's tag names what it is
  // a frame's accessible name is its title, an image's its alt text
  const titled = tag === "iframe" ? element.getAttribute("title") : tag === "img" ? element.getAttribute("alt") : null;
  if (titled) candidates.push(tag + attribute(tag === "iframe" ? "title" : "alt", titled));
  const kept = candidates.filter((selector) => redacted(selector, typed) === selector);
  return kept.find((selector) => findsOnly(selector, element)) || null;
}

/**
 * A selector that finds `element` again in its root: its own name (see ownName), else the
 * shortest path of tags down from the nearest ancestor with one (or from the root), positions
 * only where a tag repeats among siblings.
 * @param {Element} element
 * @param {string[]} [typed] what the page's fields hold now: no name holding it is used
 * @returns {string}
 */
export function selectorFor(element, typed = []) {
  /** @type {string[]} */
  const parts = [];
  /** @type {Element | null} */
  let node = element;
  while (node && node !== node.ownerDocument.documentElement) {
    const named = ownName(node, typed);
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

/** The longest quote kept. */
export const QUOTE_CHARS = 200;

/**
 * The element's words (up to QUOTE_CHARS characters) with the words just before and after it in
 * its item (a row, a card: see text.js); none for a field, whose text is the person's.
 * @param {Element} element
 * @param {string[]} typed what the page's fields hold now: replaced wherever the app shows it
 * @returns {import("./types.js").Quote | undefined}
 */
export function quoteFor(element, typed) {
  const exact = redacted(textOf(element), typed).slice(0, QUOTE_CHARS);
  if (!exact) return undefined;
  const item = itemOf(element);
  /** @type {import("./types.js").Quote} */
  const quote = { exact };
  const prefix = redacted(textBeside(element, item, true), typed);
  const suffix = redacted(textBeside(element, item, false), typed);
  if (prefix) quote.prefix = prefix;
  if (suffix) quote.suffix = suffix;
  return quote;
}

/**
 * The element's tag and its ancestors' up to ANCESTRY, innermost first: `p < li < ul < main`.
 * @param {Element} element
 * @returns {string}
 */
export function ancestryOf(element) {
  /** @type {string[]} */
  const tags = [];
  for (let at = /** @type {Element | null} */ (element); at && tags.length <= ANCESTRY; at = at.parentElement) {
    tags.push(at.tagName.toLowerCase());
  }
  return tags.join(" < ");
}

/**
 * The anchor of the element picked: everything but what the framework says, at once.
 * @param {Element} element
 * @param {import("./types.js").Box} box where it is on the page (see locate.js)
 * @returns {import("./types.js").Anchor}
 */
export function anchorFor(element, box) {
  const typed = typedValues(element.ownerDocument);
  const containers = containersOf(element);
  /** @type {import("./types.js").Anchor} */
  const anchor = { selector: selectorFor(element, typed), box, ancestry: ancestryOf(element) };
  if (containers.length) anchor.within = containers.map((container) => selectorFor(container, typed));
  const quote = quoteFor(element, typed);
  if (quote) anchor.quote = quote;
  const tagged = element.closest("[data-maple-src]");
  const source = tagged && tagged.getAttribute("data-maple-src");
  if (source && /^[\w.@+\-/]{1,300}:\d{1,7}:\d{1,7}$/.test(source) && !/(^|\/)\.\.?\//.test(source)) {
    anchor.source = source;
    anchor.locatedBy = "tagger";
  }
  const keyed = element.closest("[data-maple-key]");
  const key = keyed && keyed.getAttribute("data-maple-key");
  if (key) anchor.key = key.slice(0, 200);
  anchor.markup = markupAround(element, typed);
  return anchor;
}

/**
 * The anchor with what the framework's development data says (component, source, locatedBy)
 * added where the app tagged nothing itself.
 * @param {Element} element
 * @param {import("./types.js").Anchor} anchor
 * @param {string} root the working tree's absolute path
 * @returns {Promise<import("./types.js").Anchor>}
 */
export async function withSource(element, anchor, root) {
  if (anchor.source) return anchor;
  try {
    return { ...anchor, ...(await sourceOf(element, root)) };
  } catch {
    return anchor; // a page whose data the overlay cannot read still gets its comment
  }
}
