// Who the reviewer is, as this browser remembers them: an id made once and the name they typed,
// with whether they hide resolved comments and folded the overlay away. The route records them
// as the author of the comments sent from here (provenance "client"), and the overlay offers to
// edit or delete the comments that carry this id.
//
// It is kept twice: in localStorage, which belongs to one origin, so to one port of the proxy;
// and in a cookie for the proxy's /__maple/ paths, which the browser sends to every port of
// this machine, so the next `maple review`, on another port, knows the same reviewer (the proxy
// reads the cookie back at /__maple/api/reviewer). The app never receives the cookie: its paths are
// not under /__maple/.

const REVIEWER_KEY = "maple:reviewer";
const COOKIE = "maple-reviewer";
const RECALL = "/__maple/api/reviewer";

/**
 * @typedef {object} ReviewerName
 * @property {string} id this browser's own id, the same on every visit
 * @property {string} name what the reviewer calls themselves; empty until they say
 * @property {boolean} hideResolved whether they chose to hide resolved comments
 * @property {boolean} folded whether they folded the overlay away
 */

/**
 * A fresh id: a UUID where the browser makes them (a page on 127.0.0.1 or localhost is a
 * secure context), else random digits.
 * @returns {string}
 */
function newReviewerId() {
  if (typeof crypto !== "undefined" && typeof crypto.randomUUID === "function") return crypto.randomUUID();
  return Array.from({ length: 4 }, () => Math.random().toString(36).slice(2, 10)).join("-");
}

/**
 * A kept reviewer, or null when `kept` is not one.
 * @param {any} kept
 * @returns {ReviewerName | null}
 */
function reviewerOf(kept) {
  if (!kept || typeof kept.id !== "string" || !/^[\w-]{1,100}$/.test(kept.id) || typeof kept.name !== "string") return null;
  return { id: kept.id, name: kept.name.slice(0, 80), hideResolved: kept.hideResolved === true, folded: kept.folded === true };
}

/**
 * The reviewer this browser remembers on this origin, made (and remembered) on the first
 * visit. A browser that refuses storage gets a reviewer for this page only.
 * @returns {ReviewerName}
 */
export function rememberedReviewer() {
  try {
    const kept = reviewerOf(JSON.parse(localStorage.getItem(REVIEWER_KEY) || "null"));
    if (kept) return kept;
  } catch {
    // unreadable or refused: start afresh below
  }
  const made = { id: newReviewerId(), name: "", hideResolved: false, folded: false };
  keepHere(made); // not in the cookie yet: it may name who this browser was on another port
  return made;
}

/**
 * @param {ReviewerName} reviewer
 */
function keepHere(reviewer) {
  try {
    localStorage.setItem(REVIEWER_KEY, JSON.stringify(reviewer));
  } catch {
    // storage refused (a private window's quota, a policy): the name lasts for this page
  }
}

/**
 * Keeps the reviewer for the next visit, on this port and the next (silently not, where the
 * browser refuses storage).
 * @param {ReviewerName} reviewer
 */
export function rememberReviewer(reviewer) {
  keepHere(reviewer);
  const value = encodeURIComponent(JSON.stringify(reviewer));
  document.cookie = COOKIE + "=" + value + "; path=/__maple/; max-age=31536000; samesite=strict";
}

/**
 * Makes `reviewer` the one this browser was on another port of the proxy, when the cookie says
 * so and it is not that one already, and keeps it for the next port either way; answers
 * whether it changed.
 * @param {ReviewerName} reviewer
 * @returns {Promise<boolean>}
 */
export async function recallReviewer(reviewer) {
  let recalled = null;
  try {
    const answer = await fetch(RECALL, { credentials: "same-origin" });
    recalled = answer.ok ? reviewerOf((await answer.json()).reviewer) : null;
  } catch {
    // no proxy to ask (the page was saved, say): this origin's reviewer stands
  }
  const changed = !!recalled && JSON.stringify(recalled) !== JSON.stringify(reviewer);
  if (recalled) Object.assign(reviewer, recalled);
  rememberReviewer(reviewer);
  return changed;
}
