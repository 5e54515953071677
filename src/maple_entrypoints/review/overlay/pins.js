// The comments on the page: a numbered pin on each commented element and an entry in the list.

import { describeStatus } from "./entries.js";
import { containersOf, isShadowRoot, viewportRect } from "./frames.js";
import { locateAll } from "./locate.js";
import { presenceOf, presenceText } from "./presence.js";
import { awaitingReviewer } from "./thread.js";

/**
 * Whether a comment belongs to the page now shown: matched by path, since the proxy's port
 * changes from run to run and the page does not (a comment with no URL belongs everywhere).
 * @param {import("./types.js").StoredComment} comment
 * @returns {boolean}
 */
export function onThisPage(comment) {
  const url = comment.context && comment.context.url;
  if (!url) return true;
  try {
    return new URL(url).pathname === location.pathname;
  } catch {
    return true;
  }
}

/**
 * The element's parent, through an open shadow root to its host.
 * @param {Element} element
 * @returns {Element | null}
 */
function composedParent(element) {
  if (element.parentElement) return element.parentElement;
  const root = element.getRootNode();
  return isShadowRoot(root) ? root.host : null;
}

/**
 * The part of the element's box that can be seen, in the top page's viewport: none when it is
 * hidden or scrolled out of the viewport, out of a scrolling (or clipping) ancestor, or out of
 * the frame it is in, so no pin is drawn for it; its pin goes on the visible part, never over
 * the header or footer around a scroller.
 * @param {Element} element
 * @returns {DOMRect | null}
 */
export function visibleBox(element) {
  if (!element.checkVisibility({ visibilityProperty: true })) return null;
  const box = element.getBoundingClientRect();
  if (box.width === 0 && box.height === 0) return null;
  const view = element.ownerDocument.defaultView || window;
  let top = Math.max(box.top, 0);
  let left = Math.max(box.left, 0);
  let bottom = Math.min(box.bottom, view.innerHeight);
  let right = Math.min(box.right, view.innerWidth);
  // up to the body: an overflow set on it or the root applies to the viewport, clipped above
  const body = element.ownerDocument.body;
  for (let node = composedParent(element); node && node !== body; node = composedParent(node)) {
    const style = view.getComputedStyle(node);
    if (style.overflowX !== "visible" || style.overflowY !== "visible") {
      const clip = node.getBoundingClientRect();
      top = Math.max(top, clip.top);
      left = Math.max(left, clip.left);
      bottom = Math.min(bottom, clip.bottom);
      right = Math.min(right, clip.right);
    }
    if (style.position === "fixed") break; // no ancestor above a fixed element clips it
  }
  if (!(bottom > top && right > left)) return null;
  const frame = view !== window ? view.frameElement : null;
  if (!frame) return new DOMRect(left, top, right - left, bottom - top);
  // in a frame: where its viewport is in the top page, and only what the frame shows
  const shown = visibleBox(frame);
  const at = frame.getBoundingClientRect();
  const x = at.left + frame.clientLeft;
  const y = at.top + frame.clientTop;
  if (!shown) return null;
  const inTop = { top: Math.max(top + y, shown.top), left: Math.max(left + x, shown.left), bottom: Math.min(bottom + y, shown.bottom), right: Math.min(right + x, shown.right) };
  return inTop.bottom > inTop.top && inTop.right > inTop.left ? new DOMRect(inTop.left, inTop.top, inTop.right - inTop.left, inTop.bottom - inTop.top) : null;
}

/** A pin's size; pins on one element sit side by side, this far apart. */
const PIN_PX = 24;

/**
 * The app's fixed or sticky element at `node` or around it (its bars), if any.
 * @param {Element | null} node
 * @returns {Element | null}
 */
function barAround(node) {
  for (let at = node; at && at !== document.body && at !== document.documentElement; at = at.parentElement) {
    const position = getComputedStyle(at).position;
    if (position === "fixed" || position === "sticky") return at;
  }
  return null;
}

/**
 * The element's visible box less what the app's own fixed or sticky bars (a sticky header,
 * bottom tabs, a cookie banner) cover of it where its pin would go; null when they cover it.
 * Hit-testing where the pin would sit finds them: a bar that is not the element's own
 * container is on top there.
 * @param {Element} element
 * @param {DOMRect} visible
 * @param {Element} host the overlay's host, which is over everything and is skipped
 * @returns {DOMRect | null}
 */
function clearOfBars(element, visible, host) {
  const containers = containersOf(element);
  let { top, bottom } = visible;
  for (let round = 0; round < 4 && bottom - top > 0; round++) {
    const x = Math.min(visible.right - 2, Math.max(visible.left + 2, visible.right - PIN_PX / 2));
    let moved = false;
    for (const y of [Math.max(0, top - PIN_PX / 2 + 1), top + 1]) {
      const hit = document.elementsFromPoint(x, y).find((found) => found !== host);
      if (!hit || hit === element || element.contains(hit) || hit.contains(element) || containers.indexOf(hit) >= 0) continue;
      const bar = barAround(hit);
      if (!bar || bar.contains(element) || containers.some((c) => bar.contains(c))) continue;
      const covered = bar.getBoundingClientRect();
      if (covered.top <= top) top = Math.max(top, covered.bottom + PIN_PX / 2);
      else bottom = Math.min(bottom, covered.top);
      moved = true;
      break;
    }
    if (!moved) break;
  }
  return bottom - top > 0 ? new DOMRect(visible.left, top, visible.width, bottom - top) : null;
}

/**
 * Where an element's pin goes: half over the top edge of its visible box, at the end of its
 * content (a heading as wide as the page gets its pin by its text, not 700 px away), further
 * right for each earlier comment on the same element, or to the left where that would leave
 * the viewport: always inside the window.
 * @param {Element} element
 * @param {DOMRect} visible the element's visible box, clear of the app's bars
 * @param {number} earlier how many comments on this element already have a pin
 * @returns {{ left: number, top: number }}
 */
function pinPlace(element, visible, earlier) {
  const content = element.ownerDocument.createRange();
  content.selectNodeContents(element);
  const end = content.getBoundingClientRect();
  const offset = element.ownerDocument === document ? 0 : viewportRect(element).left - element.getBoundingClientRect().left;
  const right = end.width > 0 ? Math.min(visible.right, end.right + offset + PIN_PX / 2) : visible.right;
  const step = PIN_PX + 2;
  const most = window.innerWidth - PIN_PX - 2;
  const first = Math.min(most, Math.max(2, right - PIN_PX / 2));
  const toTheRight = Math.floor((most - first) / step); // how many fit beside the first
  const left = earlier <= toTheRight ? first + earlier * step : first - (earlier - toTheRight) * step;
  return {
    left: Math.max(2, Math.min(most, left)),
    top: Math.max(0, Math.min(window.innerHeight - PIN_PX, visible.top - PIN_PX / 2)),
  };
}

/**
 * Whether two boxes overlap.
 * @param {{ left: number, top: number, right: number, bottom: number }} a
 * @param {{ left: number, top: number, right: number, bottom: number }} b
 * @returns {boolean}
 */
function overlap(a, b) {
  return a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
}

/** How many of a comment's first words its pin's accessible name quotes. */
const NAMED_WORDS = 8;

/**
 * What a screen reader says for a pin: "Comment 2 by Ana: The Pay button overlaps the total at…",
 * with ", resolved" for a resolved one and a note of an agent's question waiting for the reviewer.
 * @param {import("./types.js").StoredComment} comment
 * @param {number} number
 * @returns {string}
 */
export function pinName(comment, number) {
  const words = comment.body.trim().split(/\s+/);
  const quoted = words.slice(0, NAMED_WORDS).join(" ") + (words.length > NAMED_WORDS ? "…" : "");
  const author = comment.author && comment.author.name ? " by " + comment.author.name : "";
  const asks = awaitingReviewer(comment) ? ", the agent asks you a question" : "";
  const presence = presenceOf(comment, Date.now());
  const onIt = presence.kind === "on-it" ? ", " + presenceText(presence) : "";
  return "Comment " + number + author + ": " + quoted + (comment.status === "resolved" ? ", resolved" : "") + asks +
    onIt;
}

/**
 * Makes a comment's pin show its number, status and place. A pin is a button: Tab reaches it,
 * and Enter (or a press) opens its entry in the list.
 * @param {HTMLButtonElement} pin
 * @param {import("./types.js").StoredComment} comment
 * @param {number} number
 * @param {{ left: number, top: number }} at
 */
function drawPin(pin, comment, number, at) {
  pin.className = "pin " + comment.status;
  pin.textContent = String(number);
  pin.setAttribute("aria-label", pinName(comment, number));
  pin.setAttribute("data-maple-status", comment.status);
  pin.toggleAttribute("data-maple-waiting", awaitingReviewer(comment));
  const presence = presenceOf(comment, Date.now());
  pin.setAttribute("data-maple-presence", presence.kind);
  pin.title = comment.body + " (" + describeStatus(comment) + "; " + presenceText(presence) + ")";
  pin.style.left = at.left + "px";
  pin.style.top = at.top + "px";
}

/**
 * The field of a list entry the reviewer is writing in (`data-maple-field`, see thread.js), as
 * a function that focuses the same field of the rebuilt entry with the caret where it was; null
 * when focus is elsewhere. A comment's thread changing under the reviewer leaves them typing.
 * @param {import("./ui.js").Ui} ui
 * @returns {(() => void) | null}
 */
function fieldInUse(ui) {
  const active = ui.host.shadowRoot && ui.host.shadowRoot.activeElement;
  if (!(active instanceof HTMLTextAreaElement)) return null;
  const field = active.getAttribute("data-maple-field");
  const item = active.closest("[data-maple-comment]");
  const id = item && item.getAttribute("data-maple-comment");
  if (!field || !id) return null;
  const { selectionStart, selectionEnd } = active;
  return () => {
    const again = Array.from(ui.list.querySelectorAll("textarea[data-maple-field]")).find(
      (t) => t.getAttribute("data-maple-field") === field &&
        t.closest("[data-maple-comment]")?.getAttribute("data-maple-comment") === id,
    );
    if (!(again instanceof HTMLTextAreaElement)) return;
    again.focus();
    again.setSelectionRange(selectionStart, selectionEnd);
  };
}

/**
 * A function that redraws the pins and the list for those of the comments on this page (without
 * the resolved ones while `hideResolved()`). The list is rebuilt only when what it shows
 * changes, and a comment keeps its pin from one redraw to the next, so a reviewer's focus in
 * the list or on a pin survives a redraw.
 * @param {import("./ui.js").Ui} ui
 * @param {{ entry: (comment: import("./types.js").StoredComment, finding: import("./locate.js").Finding) => HTMLLIElement,
 *   hideResolved: () => boolean, open: (id: string) => void, sources: string }} options entry:
 *   makes a comment's list entry (see entries.js); open: shows a comment's entry in the list,
 *   focused; sources: the working tree's path (see framework.js)
 * @returns {(comments: import("./types.js").StoredComment[]) => void}
 */
export function pinBoard(ui, { entry, hideResolved, open, sources }) {
  let listed = "";
  /** @type {Map<string, HTMLButtonElement>} */
  const kept = new Map();
  return (comments) => {
    const hide = hideResolved();
    const shown = comments.filter((c) => onThisPage(c) && !(hide && c.status === "resolved"));
    const located = locateAll(shown, sources);
    const now = Date.now();
    const signature = JSON.stringify(shown.map((c, i) => [
      c.id, c.body, c.status, c.resolution, c.author, c.replies, located[i].finding, presenceOf(c, now),
    ]));
    if (signature !== listed) {
      listed = signature;
      const writing = fieldInUse(ui);
      ui.list.replaceChildren(...shown.map((c, i) => entry(c, located[i].finding)));
      if (writing) writing();
    }
    const composing = ui.composer.style.display === "block" ? ui.composer.getBoundingClientRect() : null;
    /** @type {HTMLButtonElement[]} */
    const pins = [];
    /** @type {Map<Element, number>} */
    const pinned = new Map();
    shown.forEach((c, i) => {
      const element = located[i].element;
      const seen = element && visibleBox(element);
      const box = element && seen && clearOfBars(element, seen, ui.host);
      if (!element || !box) return;
      const earlier = pinned.get(element) || 0;
      pinned.set(element, earlier + 1);
      let pin = kept.get(c.id);
      if (!pin) {
        pin = document.createElement("button");
        pin.type = "button";
        pin.setAttribute("data-maple-comment", c.id);
        pin.addEventListener("click", () => open(c.id));
        kept.set(c.id, pin);
      }
      const at = pinPlace(element, box, earlier);
      const area = { left: at.left, top: at.top, right: at.left + PIN_PX, bottom: at.top + PIN_PX };
      if (composing && overlap(area, composing)) return; // never over the comment being written
      drawPin(pin, c, i + 1, at);
      pins.push(pin);
    });
    for (const id of kept.keys()) if (!shown.some((c) => c.id === id)) kept.delete(id);
    const drawn = Array.from(ui.pins.children);
    // moving a focused pin would blur it: the children change only when which pins show does
    if (drawn.length !== pins.length || pins.some((pin, i) => drawn[i] !== pin)) ui.pins.replaceChildren(...pins);
    ui.count.textContent = String(shown.length);
  };
}
