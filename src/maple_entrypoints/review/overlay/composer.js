// The composer: the box where the reviewer types a comment on one element and sends it.

import { anchorFor, withSource } from "./anchor.js";
import { postComment } from "./api.js";
import { pageContext } from "./context.js";
import { viewportRect } from "./frames.js";
import { boxOf } from "./locate.js";
import { createShots } from "./shots.js";
import { outline } from "./ui.js";

/** How long Send waits for the source's place (a source map to read) before going without it. */
const SOURCE_WAIT_MS = 3000;

/**
 * @typedef {object} Composer
 * @property {(element: Element, point?: import("./types.js").Point | null, back?: Element | null) => void} open
 *   shows the composer for `element`, focused; the element's anchor, the page's address and an
 *   image of the page are taken now, so a comment begun before the app navigates is stored for
 *   the page and element the reviewer picked, and shows what they saw; `back` is where focus
 *   was before, where it returns when the composer closes
 * @property {() => void} pageChanged the app navigated while the composer may be open
 * @property {() => void} close hides it and gives focus back where it was
 * @property {() => Promise<void>} send posts the comment, closing the composer once it is stored
 * @property {() => boolean} isOpen
 */

/**
 * @param {import("./ui.js").Ui} ui
 * @param {{ api: string, appOrigin: string, branch: string, say: (text: string) => void, sent: () => void,
 *   author: () => { id: string, name: string }, sources: string }} options author: who sends it, as
 *   this browser names them; sources: the working tree's path (see framework.js)
 * @returns {Composer}
 */
export function createComposer(ui, { api, appOrigin, branch, say, sent, author, sources }) {
  /** @type {Element | null} */
  let back = null;
  /** @type {{ anchor: Promise<import("./types.js").Anchor>, context: import("./types.js").PageContext } | null} */
  let picked = null;
  const shots = createShots(ui);

  /**
   * @param {Element} element
   * @param {import("./types.js").Point | null} [point]
   * @param {Element | null} [focused]
   */
  function open(element, point, focused) {
    back = focused || null;
    const anchor = anchorFor(element, boxOf(element));
    /** @type {Promise<import("./types.js").Anchor>} */
    const late = new Promise((resolve) => setTimeout(() => resolve(anchor), SOURCE_WAIT_MS));
    picked = { anchor: Promise.race([withSource(element, anchor, sources), late]), context: pageContext(appOrigin, element) };
    shots.take(element, point || null);
    ui.where.hidden = true;
    outline(ui, element);
    const r = viewportRect(element);
    // within the viewport even where it is narrower than the composer (which then shrinks)
    const top = Math.max(8, Math.min(window.innerHeight - 180, r.bottom + 8));
    const left = Math.max(8, Math.min(window.innerWidth - 336, r.left));
    ui.composer.style.cssText = "display:block;top:" + top + "px;left:" + left + "px;";
    ui.textarea.value = "";
    ui.problem.hidden = true;
    ui.textarea.focus();
  }

  function close() {
    ui.composer.style.display = "none";
    outline(ui, null);
    const to = back;
    back = null;
    picked = null;
    shots.clear();
    // where focus was before the comment began; never an element it was not on (a field would
    // take it, and a phone open its keyboard)
    const focusable = to && to.isConnected && typeof (/** @type {HTMLElement} */ (to)).focus === "function";
    if (focusable) /** @type {HTMLElement} */ (to).focus({ preventScroll: true });
    else ui.textarea.blur();
  }

  async function send() {
    const body = ui.textarea.value.trim();
    if (!body || !picked || ui.sendButton.disabled) {
      ui.textarea.focus();
      return;
    }
    ui.sendButton.disabled = true; // a second press (or Ctrl+Enter) while this one is on its way stores nothing
    try {
      const { attachments, context } = await shots.store(api);
      const comment = { branch, body, anchor: await picked.anchor, context: { ...picked.context, ...context }, author: author() };
      await postComment(api, { ...comment, createdAt: new Date().toISOString(), ...(attachments.length ? { attachments } : {}) });
    } catch (error) {
      // in the composer, where the reviewer is looking, and announced (role=alert); text kept
      const message = error instanceof Error ? error.message : String(error);
      const why = /[.!?]$/.test(message) ? message : message + ".";
      ui.problem.textContent = "The comment was not sent: " + why + " Your text is kept; Send tries again.";
      ui.problem.hidden = false;
      return;
    } finally {
      ui.sendButton.disabled = false;
    }
    ui.problem.hidden = true;
    close();
    say("Comment sent.");
    sent();
  }

  function pageChanged() {
    if (!picked) return;
    outline(ui, null);
    ui.where.textContent = "For " + new URL(picked.context.url).pathname + ", where you picked the element.";
    ui.where.hidden = false;
  }

  ui.sendButton.addEventListener("click", () => void send());
  ui.cancelButton.addEventListener("click", close);
  ui.textarea.addEventListener("keydown", (event) => {
    if (event.key === "Escape") {
      event.preventDefault();
      close();
    }
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      void send();
    }
  });
  return { open, close, send, pageChanged, isOpen: () => picked !== null };
}
