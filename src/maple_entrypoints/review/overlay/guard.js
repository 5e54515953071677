// What the app must not see: input meant for the overlay. Keys typed in the overlay are stopped
// on the window, before any listener of the app's document or elements, and given to the
// overlay's own listeners again inside its shadow root; clicks made in the overlay stop at its
// host. While the reviewer is picking an element or writing a comment, pointer input on the
// page, in its open shadow roots and in its same-origin frames goes to the overlay only: no
// element of the app is clicked or takes focus, and keys pressed in a frame reach no listener of
// its app.

import { eventElement, frameDocuments, viewportRect } from "./frames.js";

/** Keyboard and text events, stopped on the window when they come from inside the overlay. */
const KEY_EVENTS = ["keydown", "keyup", "keypress", "beforeinput", "input"];

/** Pointer events that bubble out of the shadow root (composed) and must stop at the host. */
const POINTER_EVENTS = ["pointerdown", "pointerup", "mousedown", "mouseup", "click", "dblclick", "contextmenu", "touchstart", "touchend", "wheel"];

/** Pointer events on the page the overlay takes while it is busy (picking or composing). */
const PAGE_POINTER_EVENTS = ["pointerdown", "pointerup", "mousedown", "mouseup", "touchstart", "touchend", "dblclick"];

/**
 * The same event again, for the overlay's own listeners only: not composed, so it never leaves
 * the shadow root.
 * @param {Event} event
 * @returns {Event}
 */
function againInside(event) {
  const base = { bubbles: true, cancelable: event.cancelable, composed: false };
  if (event instanceof KeyboardEvent) {
    const { key, code, location: where, ctrlKey, shiftKey, altKey, metaKey, repeat, isComposing } = event;
    return new KeyboardEvent(event.type, { ...base, key, code, location: where, ctrlKey, shiftKey, altKey, metaKey, repeat, isComposing });
  }
  if (event instanceof InputEvent) {
    return new InputEvent(event.type, { ...base, data: event.data, inputType: event.inputType, isComposing: event.isComposing });
  }
  return new Event(event.type, base);
}

/**
 * Keeps the overlay's input from the app: keys and text from inside the overlay stop on the
 * window (capture phase, before the app's document and element listeners) and are handed to
 * the overlay's own listeners again; pointer input stops at its host after the overlay's
 * listeners have run. Only a listener the app put on the window for the capture phase before
 * the overlay loaded still sees keys.
 * @param {HTMLElement} host
 */
export function keepInputInOverlay(host) {
  for (const type of KEY_EVENTS) {
    window.addEventListener(type, (event) => {
      const path = event.composedPath();
      if (path.indexOf(host) < 0 || !event.isTrusted) return;
      event.stopImmediatePropagation();
      const target = path[0];
      if (!(target instanceof Node) || target === host) return;
      const copy = againInside(event);
      target.dispatchEvent(copy);
      if (copy.defaultPrevented) event.preventDefault();
    }, true);
  }
  for (const type of POINTER_EVENTS) host.addEventListener(type, (event) => event.stopPropagation());
}

/**
 * @typedef {object} PickHandlers
 * @property {() => boolean} busy whether the overlay is picking or composing
 * @property {() => boolean} picking whether it is picking
 * @property {(target: Element, point: { x: number, y: number }) => void} clicked a click on
 *   the page while busy: the element (inside shadow roots and frames) and the point in the
 *   top page's viewport
 * @property {(target: Element) => void} hovered the pointer is over this element while picking
 * @property {() => void} cancelled Escape in a frame while picking
 */

/**
 * While busy, pointer input on `doc` reaches neither the app nor the element under it (no focus
 * moves, nothing is clicked); a click is given to `clicked` instead.
 * @param {Document} doc the top page or a frame's document
 * @param {HTMLElement} host
 * @param {PickHandlers} handlers
 */
function holdPointerIn(doc, host, handlers) {
  const framed = doc !== document;
  /** @param {Event} event */
  const fromPage = (event) => handlers.busy() && event.composedPath().indexOf(host) < 0;
  for (const type of PAGE_POINTER_EVENTS) {
    doc.addEventListener(type, (event) => {
      if (!fromPage(event)) return;
      event.stopPropagation();
      if (type === "mousedown" || (framed && type === "pointerdown")) event.preventDefault(); // nothing takes focus
    }, true);
  }
  doc.addEventListener("click", (event) => {
    if (!fromPage(event)) return;
    event.preventDefault();
    event.stopPropagation();
    const target = eventElement(event);
    if (!target) return;
    const frame = framed ? viewportRect(target) : null;
    const inner = target.getBoundingClientRect();
    const x = frame ? event.clientX + frame.left - inner.left : event.clientX;
    const y = frame ? event.clientY + frame.top - inner.top : event.clientY;
    handlers.clicked(target, { x, y });
  }, true);
  doc.addEventListener("mousemove", (event) => {
    if (!handlers.picking()) return;
    const target = eventElement(event);
    if (target && target !== host && event.composedPath().indexOf(host) < 0) handlers.hovered(target);
  }, true);
  if (framed) {
    doc.addEventListener("keydown", (event) => {
      if (!handlers.busy()) return;
      event.stopPropagation(); // the frame's app hears nothing while the reviewer comments
      if (event.key === "Escape" && handlers.picking()) {
        event.preventDefault();
        handlers.cancelled();
      }
    }, true);
  }
}

/**
 * Holds pointer input on the page and in every same-origin frame while the overlay is busy;
 * call the returned function when frames may have appeared (it adds the new ones).
 * @param {HTMLElement} host
 * @param {PickHandlers} handlers
 * @returns {() => void}
 */
export function holdPagePointer(host, handlers) {
  /** @type {WeakSet<Document>} */
  const held = new WeakSet();
  const hold = () => {
    for (const doc of [document, ...frameDocuments(document)]) {
      if (held.has(doc)) continue;
      held.add(doc);
      holdPointerIn(doc, host, handlers);
    }
  };
  hold();
  return hold;
}

/**
 * Whether the element that has focus got it from the keyboard (Tab, or a script while the
 * reviewer was typing) rather than from a click.
 * @returns {() => boolean}
 */
export function trackFocusOrigin() {
  let pointerLast = false;
  let focusedByPointer = false;
  document.addEventListener("pointerdown", () => { pointerLast = true; }, true);
  document.addEventListener("keydown", () => { pointerLast = false; }, true);
  document.addEventListener("focusin", () => { focusedByPointer = pointerLast; }, true);
  return () => !focusedByPointer;
}

/**
 * The element that has focus, inside open shadow roots and same-origin frames; null for none.
 * @returns {Element | null}
 */
export function focusedElement() {
  /** @type {Element | null} */
  let at = document.activeElement;
  for (let depth = 0; at && depth < 8; depth++) {
    const inner = at.shadowRoot ? at.shadowRoot.activeElement : at.tagName === "IFRAME" ? frameFocus(/** @type {HTMLIFrameElement} */ (at)) : null;
    if (!inner) break;
    at = inner;
  }
  return at === document.body ? null : at;
}

/**
 * @param {HTMLIFrameElement} frame
 * @returns {Element | null}
 */
function frameFocus(frame) {
  try {
    const doc = frame.contentDocument;
    return doc && doc.activeElement !== doc.body ? doc.activeElement : null;
  } catch {
    return null;
  }
}
