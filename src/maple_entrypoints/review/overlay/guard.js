// What the app must not see: input meant for the overlay. Keys typed and clicks made in the
// overlay stop at its host element, so the app's own listeners (a modal closed by Escape, a
// single-key shortcut, a click-outside handler) never fire for them; and while the reviewer is
// picking an element or writing a comment, pointer input on the page goes to the overlay only.

/** Events that bubble out of the shadow root (composed) and must stop at the host. */
const OVERLAY_EVENTS = [
  "keydown", "keyup", "keypress", "beforeinput", "input", "pointerdown", "pointerup", "mousedown",
  "mouseup", "click", "dblclick", "contextmenu", "touchstart", "touchend", "wheel",
];

/** Pointer events on the page the overlay takes while it is busy (picking or composing). */
const PAGE_POINTER_EVENTS = ["pointerdown", "pointerup", "mousedown", "mouseup", "touchstart", "touchend", "dblclick"];

/**
 * Stops the overlay's own input at its host, after the overlay's listeners have run.
 * @param {HTMLElement} host
 */
export function keepInputInOverlay(host) {
  for (const type of OVERLAY_EVENTS) host.addEventListener(type, (event) => event.stopPropagation());
}

/**
 * While `busy()`, pointer input on the page reaches neither the app nor the element under it (no
 * focus moves, nothing is clicked); a click on the page is given to `clicked` instead.
 * @param {HTMLElement} host
 * @param {() => boolean} busy
 * @param {(target: Element, point: { x: number, y: number }) => void} clicked
 */
export function holdPagePointer(host, busy, clicked) {
  /** @param {Event} event */
  const fromPage = (event) => busy() && event.composedPath().indexOf(host) < 0;
  for (const type of PAGE_POINTER_EVENTS) {
    document.addEventListener(type, (event) => {
      if (!fromPage(event)) return;
      event.stopPropagation();
      if (type === "mousedown") event.preventDefault(); // the page's element does not take focus
    }, true);
  }
  document.addEventListener("click", (event) => {
    if (!fromPage(event)) return;
    event.preventDefault();
    event.stopPropagation();
    if (event.target instanceof Element) clicked(event.target, { x: event.clientX, y: event.clientY });
  }, true);
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
