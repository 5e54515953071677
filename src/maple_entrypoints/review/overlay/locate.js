// Finding a comment's element again, never a different one. Candidates come from the element
// found last time, the selector, the quoted text and (in a development build) the component
// and file that made it; every signal is scored together: the selector, the text, the words
// just before and after it in its row or card, the component and file, `data-maple-key`, the
// tag and its ancestors', and the stored box as a tie-breaker. A candidate whose surrounding
// words, component, file, key or tag disagree is rejected outright. The best is taken only when
// it is clearly best; otherwise the comment's element has "moved" (candidates, none clearly
// it) or is "gone" (none at all), and no pin is drawn at a guess. After a resolution the text
// may have changed with the fix, so a changed text costs nothing then.

import { madeHint } from "./framework.js";
import { isDocument, rootFor, viewportRect } from "./frames.js";
import { itemOf, redacted, squeezed, textBeside, textOf, typedValuesKept } from "./text.js";

/**
 * @typedef {"found" | "moved" | "gone"} Finding
 * @typedef {{ element: Element | null, finding: Finding }} Located
 * @typedef {import("./frames.js").Root} Root
 */

/** The least score an element is taken with, and its least lead over the next candidate. */
const ENOUGH = 4;
const LEAD = 1.5;
/** The most elements one selector or text contributes. */
const MOST = 24;

/** @type {Map<string, Element>} the element each comment was found at last */
const remembered = new Map();

/**
 * The element's box on the page (not the viewport, and through the frames it is in): where it
 * was, to tell it among several that say the same text.
 * @param {Element} element
 * @returns {import("./types.js").Box}
 */
export function boxOf(element) {
  const r = viewportRect(element);
  const round = (/** @type {number} */ n) => Math.round(n);
  return { x: round(r.left + window.scrollX), y: round(r.top + window.scrollY), width: round(r.width), height: round(r.height) };
}

/**
 * Whether two runs of words agree: equal, or one the end (`fromEnd`) or start of the other, so
 * a row's words cut differently still agree. Null when the stored side is empty.
 * @param {string | undefined} stored
 * @param {string} now
 * @param {boolean} fromEnd
 * @returns {boolean | null}
 */
function agrees(stored, now, fromEnd) {
  const a = squeezed(stored);
  if (!a) return null;
  const b = now;
  if (a === b) return true;
  const [short, long] = a.length <= b.length ? [a, b] : [b, a];
  if (short.length < 3) return false;
  return fromEnd ? long.endsWith(short) : long.startsWith(short);
}

/**
 * Lookups shared by every comment in one pass over the page (built only if a comment needs them).
 */
class Pass {
  /** @param {string} root the working tree's path, for the framework's file names */
  constructor(root) {
    this.root = root;
    /** @type {Map<Root, string[]>} */
    this.typed = new Map();
    /** @type {Map<Root, Map<string, Element[]>>} */
    this.texts = new Map();
    /** @type {Set<string>} */
    this.wanted = new Set();
  }

  /**
   * @param {Root} root
   * @returns {string[]}
   */
  typedIn(root) {
    let values = this.typed.get(root);
    if (!values) {
      values = typedValuesKept(root.ownerDocument || /** @type {Document} */ (root));
      this.typed.set(root, values);
    }
    return values;
  }

  /**
   * The elements of `root` whose words are `exact`: one walk over the root's text, for every
   * quote asked for in this pass (each element's text begins with its first text's words).
   * @param {Root} root
   * @param {string} exact
   * @returns {Element[]}
   */
  saying(root, exact) {
    let index = this.texts.get(root);
    if (!index) {
      index = new Map();
      this.texts.set(root, index);
      /** @type {Map<string, string[]>} */
      const byFirst = new Map();
      for (const quote of this.wanted) {
        const first = quote.split(" ")[0];
        byFirst.set(first, [...(byFirst.get(first) || []), quote]);
      }
      const typed = this.typedIn(root);
      const doc = root.ownerDocument || /** @type {Document} */ (root);
      const walker = doc.createTreeWalker(root, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const words = squeezed(node.nodeValue);
        const quotes = words && byFirst.get(words.split(" ")[0]);
        if (!quotes) continue;
        for (let at = node.parentElement, depth = 0; at && depth < 6; at = at.parentElement, depth++) {
          const text = redacted(textOf(at), typed);
          for (const quote of quotes) {
            const hit = quote.length >= 200 ? text.startsWith(quote) : text === quote;
            if (!hit) continue;
            const list = index.get(quote) || [];
            if (list.indexOf(at) < 0 && list.length < MOST) list.push(at);
            index.set(quote, list);
          }
          if (text.length > 200 && !quotes.some((q) => q.length >= 200)) break;
        }
      }
    }
    return index.get(exact) || [];
  }
}

const STEP = /^([a-z][a-z0-9-]*)(?::nth-of-type\((\d+)\))?$/;

/**
 * What an anchor's selector finds, walked child by child where it is the overlay's own kind of
 * path (`body > main > article:nth-of-type(292) > h3`, from the body or from one named
 * element): the browser's `:nth-of-type` makes it count siblings for every element it tries,
 * which on a long list costs a hundred times more. Null when the selector is of another kind.
 * @param {Root} root
 * @param {string} selector
 * @returns {Element[] | null}
 */
function walked(root, selector) {
  const steps = selector.split(" > ");
  /** @type {Element | null} */
  let at = null;
  const first = 1;
  if (steps[0] === "body" || steps[0] === "head") {
    at = isDocument(root) ? (steps[0] === "body" ? root.body : root.head) : null;
  } else if (!STEP.test(steps[0])) {
    const named = root.querySelectorAll(steps[0]);
    if (named.length !== 1) return null;
    at = named[0];
  } else {
    return null; // a path from a shadow root's top: any depth may match it
  }
  for (let i = first; at && i < steps.length; i++) {
    const step = STEP.exec(steps[i]);
    if (!step) return null;
    const tag = step[1].toUpperCase();
    const wanted = step[2] ? Number(step[2]) : 0;
    /** @type {Element | null} */
    let found = null;
    let same = 0;
    for (let child = at.firstElementChild; child; child = child.nextElementSibling) {
      if (child.tagName !== tag) continue;
      same++;
      if (!wanted || same === wanted) {
        found = found || child;
        if (wanted) break;
      }
    }
    if (!wanted && same > 1) return null; // `li` among several: the browser matches each
    at = found;
  }
  return at ? [at] : [];
}

/**
 * The element found last time, alone, when it is still where a path from the body says: such a
 * path names one element, so nothing else can match it (checked by the browser on that one
 * element, which is far cheaper than searching the page). Null otherwise.
 * @param {Element | undefined} before
 * @param {Root} root
 * @param {string | undefined} selector
 * @returns {Element[] | null}
 */
function stillThere(before, root, selector) {
  if (!before || !selector || !selector.startsWith("body > ") || !before.isConnected) return null;
  if (before.getRootNode() !== root) return null;
  try {
    return before.matches(selector) ? [before] : null;
  } catch {
    return null;
  }
}

/**
 * The elements a selector finds in `root`, none when the browser refuses it.
 * @param {Root} root
 * @param {string | undefined} selector
 * @returns {Element[]}
 */
function selected(root, selector) {
  if (!selector) return [];
  try {
    return walked(root, selector) || Array.from(root.querySelectorAll(selector)).slice(0, MOST);
  } catch {
    return [];
  }
}

/**
 * How well `element` fits the anchor: a score, or null when a signal rules it out.
 * @param {Element} element
 * @param {Partial<import("./types.js").Anchor>} anchor
 * @param {{ bySelector: boolean, wasIt: boolean, resolved: boolean, typed: string[], pass: Pass }} how
 * @returns {number | null}
 */
function fit(element, anchor, how) {
  const tags = (anchor.ancestry || "").split(" < ").filter(Boolean);
  if (tags.length && element.tagName.toLowerCase() !== tags[0]) return null;
  let score = how.bySelector ? (/^[#[]|^\w+\[/.test(anchor.selector || "") ? 3 : 2) : 0;
  let disagreements = 0;
  const quote = anchor.quote;
  if (quote && quote.exact) {
    const text = redacted(textOf(element), how.typed);
    const same = quote.exact.length >= 200 ? text.startsWith(quote.exact) : text === quote.exact;
    if (same) score += 3;
    else {
      disagreements++;
      if (!how.resolved) score -= 2; // after a fix its words may well have changed
    }
    const item = itemOf(element);
    for (const [stored, before] of /** @type {[string | undefined, boolean][]} */ ([[quote.prefix, true], [quote.suffix, false]])) {
      const said = agrees(stored, redacted(textBeside(element, item, before), how.typed), before);
      if (said === true) score += 1.5;
      else if (said === false) {
        if (!how.wasIt) return null; // another row's or card's words: another element
        disagreements++;
      }
    }
    if (how.wasIt && disagreements >= 2) return null; // the same node now shows another row
  }
  if (anchor.key) {
    const keyed = element.closest("[data-maple-key]");
    if (!keyed || keyed.getAttribute("data-maple-key") !== anchor.key) return null;
    score += 3;
  }
  if (anchor.component || (anchor.source && anchor.locatedBy === "owner-stack")) {
    const made = madeHint(element, how.pass.root);
    if (made) {
      if (anchor.component && made.component) {
        if (made.component !== anchor.component) return null;
        score += 2;
      }
      const file = (anchor.source || "").replace(/:\d+:\d+$/, "");
      if (file && made.file) {
        const same = file === made.file || file.endsWith("/" + made.file) || made.file.endsWith("/" + file);
        if (!same) return null;
        score += 1;
      }
    }
  }
  if (tags.length > 1) {
    let matching = 0;
    let at = element.parentElement;
    for (let i = 1; i < tags.length && at; i++, at = at.parentElement) {
      if (at.tagName.toLowerCase() !== tags[i]) break;
      matching++;
    }
    if (matching === 0) return null; // a different structure: not the element, whatever it says
    score += matching / (tags.length - 1);
  }
  if (how.wasIt) score += 1;
  return score;
}

/**
 * Where a comment's element is now.
 * @param {import("./types.js").StoredComment} comment
 * @param {Pass} pass
 * @returns {Located}
 */
function find(comment, pass) {
  const anchor = comment.anchor || {};
  const root = rootFor(anchor.within);
  if (!root) return { element: null, finding: "gone" };
  const typed = pass.typedIn(root);
  const resolved = comment.status === "resolved";
  /** @type {Map<Element, number>} */
  const scores = new Map();
  /**
   * @param {Element[]} elements
   * @param {boolean} bySelector
   */
  const consider = (elements, bySelector) => {
    for (const element of elements) {
      if (scores.has(element) || element.closest("[data-maple-overlay]")) continue;
      const wasIt = remembered.get(comment.id) === element;
      const score = fit(element, anchor, { bySelector, wasIt, resolved, typed, pass });
      if (score !== null) scores.set(element, score);
    }
  };
  const before = remembered.get(comment.id);
  const bySelector = stillThere(before, root, anchor.selector) || selected(root, anchor.selector);
  if (before && before.isConnected && bySelector.indexOf(before) < 0) consider([before], false);
  consider(bySelector, true);
  const clear = () => {
    const ranked = Array.from(scores.entries()).sort((a, b) => b[1] - a[1]);
    return ranked.length && ranked[0][1] >= ENOUGH && (ranked.length === 1 || ranked[0][1] - ranked[1][1] >= LEAD) ? ranked : null;
  };
  if (!clear() && anchor.quote && anchor.quote.exact) {
    consider(pass.saying(root, anchor.quote.exact), false);
  }
  if (!clear() && (anchor.component || anchor.locatedBy === "owner-stack")) {
    const tag = (anchor.ancestry || "").split(" < ")[0];
    if (tag) consider(byMaker(root, tag, anchor, pass), false);
  }
  const ranked = Array.from(scores.entries()).sort((a, b) => b[1] - a[1]);
  const box = anchor.box;
  if (ranked.length > 1 && box && ranked[0][1] - ranked[1][1] < LEAD) {
    // equal otherwise: the one nearer where it was, if clearly nearer
    const near = ranked.map(([element, score]) => /** @type {[Element, number]} */ ([element, score - distance(element, box) / 400]));
    near.sort((a, b) => b[1] - a[1]);
    ranked.splice(0, ranked.length, ...near);
  }
  const best = ranked[0];
  if (best && best[1] >= ENOUGH && (ranked.length === 1 || best[1] - ranked[1][1] >= LEAD)) {
    remembered.set(comment.id, best[0]);
    return { element: best[0], finding: "found" };
  }
  remembered.delete(comment.id);
  // several would do and none is clearly it: moved; nothing would: gone
  return { element: null, finding: best && best[1] >= ENOUGH ? "moved" : "gone" };
}

/**
 * The elements of `root` with the anchor's tag that its component and file made.
 * @param {Root} root
 * @param {string} tag
 * @param {Partial<import("./types.js").Anchor>} anchor
 * @param {Pass} pass
 * @returns {Element[]}
 */
function byMaker(root, tag, anchor, pass) {
  /** @type {Element[]} */
  const out = [];
  const file = (anchor.source || "").replace(/:\d+:\d+$/, "");
  for (const element of Array.from(root.querySelectorAll(tag)).slice(0, 2000)) {
    const made = madeHint(element, pass.root);
    if (!made || (anchor.component && made.component !== anchor.component)) continue;
    if (file && made.file && !(file === made.file || file.endsWith("/" + made.file) || made.file.endsWith("/" + file))) continue;
    out.push(element);
    if (out.length >= MOST) break;
  }
  return out;
}

/**
 * How far an element is from the stored box (page coordinates), position and size alike.
 * @param {Element} element
 * @param {import("./types.js").Box} box
 * @returns {number}
 */
function distance(element, box) {
  const r = viewportRect(element);
  return Math.abs(r.left + window.scrollX - box.x) + Math.abs(r.top + window.scrollY - box.y) +
    Math.abs(r.width - box.width) + Math.abs(r.height - box.height);
}

/**
 * Where each comment's element is now, in one pass over the page.
 * @param {import("./types.js").StoredComment[]} comments
 * @param {string} root the working tree's path (see framework.js)
 * @returns {Located[]}
 */
export function locateAll(comments, root) {
  const pass = new Pass(root);
  for (const comment of comments) {
    const exact = comment.anchor && comment.anchor.quote && comment.anchor.quote.exact;
    if (exact) pass.wanted.add(exact);
  }
  return comments.map((comment) => find(comment, pass));
}

/**
 * The element a comment is about now, or null (see locateAll).
 * @param {import("./types.js").StoredComment} comment
 * @param {string} root
 * @returns {Element | null}
 */
export function locate(comment, root) {
  return locateAll([comment], root)[0].element;
}
