// The composer: the box where the reviewer types a comment on one element and sends it.

import { anchorFor } from "./anchor.js";
import { postComment } from "./api.js";
import { pageContext } from "./context.js";
import { createShots } from "./shots.js";
import { outline } from "./ui.js";

/**
 * @typedef {object} Composer
 * @property {(element: Element, point?: import("./types.js").Point | null) => void} open shows
 *   the composer for `element`, focused; the element's anchor, the page's address and an image
 *   of the page are taken now, so a comment begun before the app navigates is stored for the
 *   page and element the reviewer picked, and shows what they saw
 * @property {() => void} pageChanged the app navigated while the composer may be open
 * @property {() => void} close hides it and gives focus back to the element
 * @property {() => Promise<void>} send posts the comment, closing the composer once it is stored
 * @property {() => boolean} isOpen
 */

/**
 * @param {import("./ui.js").Ui} ui
 * @param {{ api: string, appOrigin: string, branch: string, say: (text: string) => void, sent: () => void,
 *   author: () => { id: string, name: string } }} options author: who sends it, as this browser names them
 * @returns {Composer}
 */
export function createComposer(ui, { api, appOrigin, branch, say, sent, author }) {
  /** @type {Element | null} */
  let target = null;
  /** @type {{ anchor: import("./types.js").Anchor, context: import("./types.js").PageContext } | null} */
  let picked = null;
  const shots = createShots(ui);

  /**
   * @param {Element} element
   * @param {import("./types.js").Point | null} [point]
   */
  function open(element, point) {
    target = element;
    picked = { anchor: anchorFor(element), context: pageContext(appOrigin) };
    shots.take(element, point || null);
    ui.where.hidden = true;
    outline(ui, element);
    const r = element.getBoundingClientRect();
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
    const back = target;
    target = null;
    picked = null;
    shots.clear();
    if (back instanceof HTMLElement || back instanceof SVGElement) back.focus({ preventScroll: true });
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
      const comment = { branch, body, anchor: picked.anchor, context: { ...picked.context, ...context }, author: author() };
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
