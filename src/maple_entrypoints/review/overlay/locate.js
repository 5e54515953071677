// Finding a comment's element again. The selector is tried first; when it finds nothing, or a
// positional path (`li:nth-of-type(2) > span`) now lands on an element with other text, the
// quoted text stored with the anchor finds the element, the stored box choosing among several
// with that text. A comment neither finds has no element: it is listed as gone, never pinned at
// a guess.

/**
 * Text as the anchor quotes it: whitespace runs as one space, trimmed.
 * @param {string | null} text
 * @returns {string}
 */
function squeezed(text) {
  return (text || "").replace(/\s+/g, " ").trim();
}

/**
 * Whether `element`'s text is the quoted text (a quote is cut at 200 characters).
 * @param {Element} element
 * @param {string} exact
 * @returns {boolean}
 */
function saysQuote(element, exact) {
  const text = squeezed(element.textContent);
  return exact.length >= 200 ? text.startsWith(exact) : text === exact;
}

/**
 * How far an element is from where the comment's element was: its box against the stored box
 * (page coordinates), position and size alike. Without a stored box every element is as near.
 * @param {Element} element
 * @param {import("./types.js").Box | undefined} box
 * @returns {number}
 */
function distance(element, box) {
  if (!box) return 0;
  const r = element.getBoundingClientRect();
  return (
    Math.abs(r.left + window.scrollX - box.x) + Math.abs(r.top + window.scrollY - box.y) +
    Math.abs(r.width - box.width) + Math.abs(r.height - box.height)
  );
}

/**
 * The element whose text is the quote, the one nearest the stored box among several; null when
 * no element on the page says it.
 * @param {import("./types.js").Quote} quote
 * @param {import("./types.js").Box | undefined} box
 * @returns {Element | null}
 */
function byQuote(quote, box) {
  const body = document.body;
  if (!body || squeezed(body.textContent).indexOf(quote.exact) < 0) return null;
  /** @type {Element | null} */
  let best = null;
  let bestScore = Infinity;
  for (const element of Array.from(body.querySelectorAll("*"))) {
    if (element.closest("[data-maple-overlay], script, style") || !saysQuote(element, quote.exact)) continue;
    const around = squeezed((element.parentElement || body).textContent);
    const context = (quote.prefix ? around.indexOf(quote.prefix.trim()) >= 0 : true) &&
      (quote.suffix ? around.indexOf(quote.suffix.trim()) >= 0 : true);
    const score = distance(element, box) + (context ? 0 : 1e6);
    if (score < bestScore) {
      best = element;
      bestScore = score;
    }
  }
  return best;
}

/**
 * The element the selector finds, or null (none, or a selector the browser refuses).
 * @param {string | undefined} selector
 * @returns {Element | null}
 */
function bySelector(selector) {
  if (!selector) return null;
  try {
    return document.querySelector(selector);
  } catch {
    return null;
  }
}

/**
 * The element a comment is about, or null when it is gone. A selector that names the element
 * (an id, a test attribute, a label) is trusted whatever its text now says, as the fix the
 * comment asked for may have changed it; a positional path only while its element still says
 * the quote, as rows that moved would otherwise hand the comment to a neighbour.
 * @param {import("./types.js").StoredComment} comment
 * @returns {Element | null}
 */
export function locate(comment) {
  const anchor = comment.anchor || {};
  const found = bySelector(anchor.selector);
  const quote = anchor.quote;
  if (!quote || !quote.exact) return found;
  if (found && (saysQuote(found, quote.exact) || !/:nth-of-type\(/.test(anchor.selector || ""))) return found;
  // the search reads the whole page, so an element it found is kept while it still says the quote
  const before = refound.get(comment.id);
  if (before && before.isConnected && saysQuote(before, quote.exact)) return before;
  const element = byQuote(quote, anchor.box);
  if (element) refound.set(comment.id, element);
  else refound.delete(comment.id);
  return element;
}

/** @type {Map<string, Element>} the elements found by their quote, by comment id */
const refound = new Map();

/**
 * The element's box on the page (not the viewport): where it was, to tell it among several
 * that say the same text.
 * @param {Element} element
 * @returns {import("./types.js").Box}
 */
export function boxOf(element) {
  const r = element.getBoundingClientRect();
  const round = (/** @type {number} */ n) => Math.round(n);
  return { x: round(r.left + window.scrollX), y: round(r.top + window.scrollY), width: round(r.width), height: round(r.height) };
}
