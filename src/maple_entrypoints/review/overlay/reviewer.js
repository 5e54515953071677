// Who the reviewer is, as this browser remembers them: an id made once and the name they typed,
// kept in localStorage for every page of every run on this proxy's origin, with whether they
// hide resolved comments and folded the overlay away. The route records
// them as the author of the comments sent from here (provenance "client"), and the overlay
// offers to edit or delete the comments that carry this id.

const REVIEWER_KEY = "maple:reviewer";

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
 * The reviewer this browser remembers, made (and remembered) on the first visit. A browser that
 * refuses storage gets a reviewer for this page only.
 * @returns {ReviewerName}
 */
export function rememberedReviewer() {
  try {
    const kept = JSON.parse(localStorage.getItem(REVIEWER_KEY) || "null");
    if (kept && typeof kept.id === "string" && kept.id && typeof kept.name === "string") {
      return { id: kept.id, name: kept.name, hideResolved: kept.hideResolved === true, folded: kept.folded === true };
    }
  } catch {
    // unreadable or refused: start afresh below
  }
  const made = { id: newReviewerId(), name: "", hideResolved: false, folded: false };
  rememberReviewer(made);
  return made;
}

/**
 * Keeps the reviewer for the next visit (silently not, where the browser refuses storage).
 * @param {ReviewerName} reviewer
 */
export function rememberReviewer(reviewer) {
  try {
    localStorage.setItem(REVIEWER_KEY, JSON.stringify(reviewer));
  } catch {
    // storage refused (a private window's quota, a policy): the name lasts for this page
  }
}
