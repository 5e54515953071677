// The overlay's DOM: a host element on the page holding an open shadow root, and in it the
// highlight box, the composer, the pins, the comment list, the bar and a live region.
// A constructed stylesheet and DOM built node by node: no inline <style> for a strict
// style-src to block, and no HTML strings for Trusted Types to refuse.

import { viewportRect } from "./frames.js";
import { OVERLAY_CSS } from "./styles.js";

/**
 * @typedef {object} Ui
 * @property {HTMLDivElement} host the element on the page; events from inside the overlay come from it
 * @property {HTMLDivElement} box the outline drawn over the element being picked
 * @property {HTMLDivElement} composer
 * @property {HTMLParagraphElement} where the picked page, once the app has navigated away
 * @property {HTMLTextAreaElement} textarea
 * @property {HTMLParagraphElement} problem why the last send failed, shown in the composer
 * @property {HTMLButtonElement} sendButton
 * @property {HTMLButtonElement} cancelButton
 * @property {HTMLDivElement} pins
 * @property {HTMLDivElement} panel
 * @property {HTMLOListElement} list
 * @property {HTMLButtonElement} listButton
 * @property {HTMLInputElement} nameInput the reviewer's name, sent as the author
 * @property {HTMLInputElement} hideResolvedBox the toggle that hides resolved comments
 * @property {HTMLSpanElement} count
 * @property {HTMLDivElement} bar the buttons at the bottom right
 * @property {HTMLButtonElement} modeButton
 * @property {HTMLButtonElement} foldButton folds the overlay down to itself, a tab at the right edge
 * @property {HTMLDivElement} live the polite live region screen readers announce
 * @property {HTMLDivElement} hint what to do in comment mode, shown while in it
 */

/**
 * An element with attributes and children (text or nodes).
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Record<string, string>} [attributes]
 * @param {(Node | string)[]} [children]
 * @returns {HTMLElementTagNameMap[K]}
 */
export function el(tag, attributes, children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes || {})) node.setAttribute(name, value);
  for (const child of children || []) {
    node.appendChild(typeof child === "string" ? document.createTextNode(child) : child);
  }
  return node;
}

/**
 * Builds the overlay and mounts it on the page.
 * @returns {Ui}
 */
export function buildUi() {
  const host = el("div", { "data-maple-overlay": "python" });
  host.style.cssText = "all: initial; position: fixed; inset: 0; pointer-events: none; z-index: 2147483647;";
  const root = host.attachShadow({ mode: "open" });
  const sheet = new CSSStyleSheet();
  sheet.replaceSync(OVERLAY_CSS);
  root.adoptedStyleSheets = [sheet];

  const box = el("div", { class: "box", part: "highlight" });
  const textarea = el("textarea", { id: "maple-body", placeholder: "What should change here?" });
  const where = el("p", { class: "where", hidden: "" });
  const problem = el("p", { class: "problem", role: "alert", hidden: "" });
  const cancelButton = el("button", { class: "cancel", type: "button" }, ["Cancel"]);
  const sendButton = el("button", { class: "send", type: "button" }, ["Send"]);
  const composer = el("div", { class: "composer", role: "dialog", "aria-label": "New review comment" }, [
    el("label", { class: "sr", for: "maple-body" }, ["Comment"]),
    where,
    textarea,
    problem,
    el("div", { class: "row" }, [cancelButton, sendButton]),
  ]);
  const pins = el("div", { class: "pins" });
  const list = el("ol");
  const nameInput = el("input", { class: "name", type: "text", placeholder: "Guest", maxlength: "80", autocomplete: "name" });
  const hideResolvedBox = el("input", { class: "hide-resolved", type: "checkbox" });
  const tools = el("div", { class: "tools" }, [
    el("label", {}, ["Your name ", nameInput]),
    el("label", {}, [hideResolvedBox, " Hide resolved"]),
  ]);
  const panel = el("div", { class: "panel", role: "region", "aria-label": "Review comments" }, [tools, list]);
  const count = el("span", { class: "count" }, ["0"]);
  const listButton = el(
    "button",
    { class: "list", type: "button", "aria-expanded": "false", title: "Comments (Alt+Shift+L)" },
    ["Comments ", count],
  );
  const modeButton = el(
    "button",
    { class: "mode", type: "button", "aria-pressed": "false", title: "Comment mode (Alt+Shift+C)" },
    ["Comment"],
  );
  const foldButton = el(
    "button",
    { class: "fold", type: "button", "aria-expanded": "true", title: "Fold the review bar away" },
    ["Hide"],
  );
  const live = el("div", { class: "sr", "aria-live": "polite" });
  // on a touch screen, Escape is rarely at hand: the Comment button leaves as it entered
  const coarse = window.matchMedia("(pointer: coarse)").matches;
  const hint = el("div", { class: "hint", "aria-hidden": "true", hidden: "" }, [
    coarse ? "Tap an element to comment — tap Comment to cancel" : "Click an element to comment — Esc to cancel",
  ]);
  const bar = el("div", { class: "bar" }, [listButton, modeButton, foldButton]);
  // later is on top: pins under the composer, the list and the bar
  root.append(pins, box, hint, composer, panel, bar, live);
  document.documentElement.appendChild(host);
  return {
    host, box, composer, where, textarea, problem, sendButton, cancelButton, pins, panel, list, listButton, count,
    bar, modeButton, foldButton, live, hint, nameInput, hideResolvedBox,
  };
}

/**
 * Folds the overlay down to its fold button, a narrow tab halfway down the right edge (away from
 * an app's header and bottom tabs, which a phone's layout puts at the top and bottom), or
 * unfolds it. Folded, the pins, the list and the bar's other buttons are not shown.
 * @param {Ui} ui
 * @param {boolean} folded
 */
export function fold(ui, folded) {
  ui.host.toggleAttribute("data-maple-folded", folded);
  ui.foldButton.setAttribute("aria-expanded", folded ? "false" : "true");
  ui.foldButton.textContent = folded ? "Maple" : "Hide";
  ui.foldButton.title = folded ? "Show the review bar" : "Fold the review bar away";
}

/**
 * Draws the highlight box over `element`, or hides it.
 * @param {Ui} ui
 * @param {Element | null} element
 */
export function outline(ui, element) {
  if (!element) {
    ui.box.style.display = "none";
    return;
  }
  const r = viewportRect(element);
  ui.box.style.cssText =
    "display:block;left:" + r.left + "px;top:" + r.top + "px;width:" + r.width + "px;height:" + r.height + "px;";
}
