// What the reviewer sees of who is on a comment: nobody yet, an agent "on it" (its claim,
// maple's `claim` key), waiting for you (the agent's unanswered question), or resolved. The same
// order as maple_core.claim_views.presence_of: resolved, then waiting, then a live claim. Every name
// here is someone else's words: shown as text, never parsed as HTML.

import { awaitingReviewer } from "./thread.js";

/**
 * @typedef {"nobody" | "on-it" | "waiting-for-you" | "resolved"} PresenceKind
 * @typedef {{ kind: PresenceKind, claim: import("./types.js").Claim | null }} Presence
 */

/** The longest lease a claim can have: none is live further ahead of now (maple's MAX_LEASE_S). */
const HORIZON_MS = 3600 * 1000;

/**
 * The comment's claim while it is live at `now` (milliseconds since the epoch), else null.
 * @param {import("./types.js").StoredComment} comment
 * @param {number} now
 * @returns {import("./types.js").Claim | null}
 */
export function liveClaim(comment, now) {
  const claim = comment.claim;
  if (!claim || typeof claim !== "object" || typeof claim.expires !== "string" || typeof claim.agent !== "string") {
    return null;
  }
  const ends = Date.parse(claim.expires);
  return Number.isFinite(ends) && ends > now && ends - now <= HORIZON_MS ? claim : null;
}

/**
 * @param {import("./types.js").StoredComment} comment
 * @param {number} now milliseconds since the epoch
 * @returns {Presence}
 */
export function presenceOf(comment, now) {
  if (comment.status === "resolved") return { kind: "resolved", claim: null };
  if (awaitingReviewer(comment)) return { kind: "waiting-for-you", claim: null };
  const claim = liveClaim(comment, now);
  return claim ? { kind: "on-it", claim } : { kind: "nobody", claim: null };
}

/**
 * A time as the reviewer's clock shows it: "14:05".
 * @param {string} stamp
 * @returns {string}
 */
function clockTime(stamp) {
  const when = new Date(stamp);
  if (Number.isNaN(when.getTime())) return "?";
  return when.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
}

/**
 * The presence in words: "on it: claude-code since 14:05", "waiting for you", "resolved", "nobody yet".
 * @param {Presence} presence
 * @returns {string}
 */
export function presenceText(presence) {
  if (presence.kind === "resolved") return "resolved";
  if (presence.kind === "waiting-for-you") return "waiting for you";
  if (presence.kind === "on-it" && presence.claim) {
    return "on it: " + presence.claim.agent.slice(0, 64) + " since " + clockTime(presence.claim.since);
  }
  return "nobody yet";
}

/**
 * When the presence of some comment changes without anything written: the first live claim's
 * end, in milliseconds from `now` (null when none lapses).
 * @param {import("./types.js").StoredComment[]} comments
 * @param {number} now
 * @returns {number | null}
 */
export function nextLapse(comments, now) {
  let soonest = null;
  for (const comment of comments) {
    const claim = liveClaim(comment, now);
    if (!claim) continue;
    const left = Date.parse(claim.expires) - now;
    if (soonest === null || left < soonest) soonest = left;
  }
  return soonest;
}
