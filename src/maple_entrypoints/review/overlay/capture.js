// What the reviewer saw: an image of the page around the element they picked, taken when they
// picked it, so an open modal, a filled form or a scrolled page is in it. modern-screenshot
// (vendored, pinned) redraws the page's DOM into a canvas; the proxy serves the app from the
// overlay's own origin, so the app's images and styles can be read into it without a prompt.

import { frameDocuments, viewportRect } from "./frames.js";
import { domToCanvas } from "./vendor/modern-screenshot.js";

/** Space kept around the element on each side, in CSS pixels. */
const MARGIN = 160;
/** A viewport this narrow is a phone's: the capture spans its width, so the element's row shows. */
const NARROW = 640;
/** The longest side of an image, in pixels: a larger crop is scaled down to it. */
const MAX_SIDE = 1600;
/** How long the rasteriser may wait for one of the page's images or fonts, in milliseconds. */
const FETCH_MS = 3000;
/** The largest image the overlay sends, in bytes (the route refuses more than 10 MB). */
export const MAX_IMAGE_BYTES = 2 * 1024 * 1024;

/**
 * @typedef {object} Rect A rectangle in the viewport, CSS pixels.
 * @property {number} x
 * @property {number} y
 * @property {number} width
 * @property {number} height
 */

/**
 * @typedef {object} Capture
 * @property {Blob} image PNG, or JPEG when the PNG is over MAX_IMAGE_BYTES
 * @property {Rect} area the part of the viewport the image shows
 */

/**
 * @param {DOMRect} r
 * @returns {Rect}
 */
export function rectOf(r) {
  return { x: Math.round(r.left), y: Math.round(r.top), width: Math.round(r.width), height: Math.round(r.height) };
}

/**
 * The element's box with MARGIN around it, inside the viewport.
 * @param {Rect} box
 * @returns {Rect}
 */
function areaAround(box) {
  const narrow = window.innerWidth <= NARROW;
  const left = narrow ? 0 : Math.max(0, box.x - MARGIN);
  const top = Math.max(0, box.y - MARGIN);
  const right = narrow ? window.innerWidth : Math.min(window.innerWidth, box.x + box.width + MARGIN);
  const bottom = Math.min(window.innerHeight, box.y + box.height + MARGIN);
  return { x: left, y: top, width: Math.max(1, right - left), height: Math.max(1, bottom - top) };
}

/** Elements whose height is their own, not their content's: their copies keep it. */
const SIZED = /^(IMG|INPUT|BUTTON|SELECT|TEXTAREA|VIDEO|CANVAS|IFRAME|HTML)$/;

/**
 * The rasteriser fixes every copied element's height at its computed value, and a fixed height
 * stops a last child's bottom margin from collapsing through its parent (a heading's margin at
 * the end of a <main> then pushes everything after it up by the margin). An element that clips
 * nothing gets the height as a minimum instead, which lays out as the page did.
 * A fixed element is drawn where it is on screen: the rasteriser moves the whole page copy by
 * the page's scroll, so a fixed element's copy is moved back by as much.
 * @param {Node} copy
 * @param {Window} view the window the copied document is in
 */
function unfixHeight(copy, view) {
  if (!(copy instanceof HTMLElement)) return; // the copies are made in the page's document
  asPlaceholder(copy);
  const style = copy.style;
  if (style.position === "fixed") {
    // as the copied styles are applied after this, only an important value holds
    if (/px$/.test(style.top)) style.setProperty("top", parseFloat(style.top) + view.scrollY + "px", "important");
    if (/px$/.test(style.left)) style.setProperty("left", parseFloat(style.left) + view.scrollX + "px", "important");
  }
  if (!style.height || SIZED.test(copy.tagName)) return;
  // a fixed or absolute box has its insets copied too: without its height it would stretch
  if (/fixed|absolute/.test(style.position)) return;
  if (/^(table|inline)/.test(style.display) || /auto|scroll|hidden|clip/.test(style.overflow + style.overflowY)) return;
  style.minHeight = style.height;
  style.height = "auto";
  style.blockSize = "auto";
}

/** The colour of each placeholder text on the page, read before a capture (see asPlaceholder). */
const placeholderColours = new Map();

/**
 * Reads the colour the page draws each empty field's placeholder in.
 * @param {Document} doc
 */
function notePlaceholders(doc) {
  for (const field of Array.from(doc.querySelectorAll("input[placeholder], textarea[placeholder]"))) {
    const input = /** @type {HTMLInputElement} */ (field);
    if (input.value) continue;
    const colour = (doc.defaultView || window).getComputedStyle(input, "::placeholder").color;
    placeholderColours.set(input.placeholder, colour || "#757575");
  }
}

/**
 * An empty field's copy shows its placeholder as the page does, in the placeholder's colour,
 * not as text someone typed (the copy cannot carry the page's ::placeholder style).
 * @param {HTMLElement} copy
 */
function asPlaceholder(copy) {
  if (copy.tagName !== "INPUT" && copy.tagName !== "TEXTAREA") return;
  const field = /** @type {HTMLInputElement} */ (copy);
  const placeholder = field.getAttribute("placeholder");
  const colour = placeholder && placeholderColours.get(placeholder);
  if (!placeholder || !colour || field.value || (field.getAttribute("value") || "")) return;
  field.removeAttribute("placeholder");
  // the copied styles fix the text's fill to the field's own colour: both go
  field.style.setProperty("color", colour, "important");
  field.style.setProperty("-webkit-text-fill-color", colour, "important");
  if (copy.tagName === "TEXTAREA") field.textContent = placeholder;
  else field.setAttribute("value", placeholder);
  field.value = placeholder;
}

/**
 * Draws each same-origin frame inside `area` where it is on the page: the page's copy cannot
 * hold a frame's document, so each is drawn on its own.
 * @param {CanvasRenderingContext2D} context the image being made
 * @param {Rect} area the part of the viewport the image shows
 * @param {number} fit the image's scale
 */
async function drawFrames(context, area, fit) {
  for (const doc of frameDocuments(document)) {
    const frame = doc.defaultView && doc.defaultView.frameElement;
    if (!frame || !doc.documentElement) continue;
    const outer = viewportRect(frame);
    const x = outer.left + frame.clientLeft;
    const y = outer.top + frame.clientTop;
    const width = frame.clientWidth;
    const height = frame.clientHeight;
    if (x >= area.x + area.width || y >= area.y + area.height || x + width <= area.x || y + height <= area.y) continue;
    notePlaceholders(doc);
    const view = doc.defaultView || window;
    const inner = await domToCanvas(doc.documentElement, {
      width, height, scale: 1, timeout: FETCH_MS,
      onCloneEachNode: (copy) => unfixHeight(copy, view),
    });
    context.fillStyle = canvasColour(doc);
    context.fillRect((x - area.x) * fit, (y - area.y) * fit, width * fit, height * fit);
    context.drawImage(inner, (x - area.x) * fit, (y - area.y) * fit, width * fit, height * fit);
  }
}

/**
 * The colour the browser paints behind the page: the root's background, else the body's (CSS
 * propagates it to the canvas), else white; the rasteriser leaves it transparent.
 * @param {Document} [doc] the page, or a frame's document
 * @returns {string}
 */
function canvasColour(doc = document) {
  const view = doc.defaultView || window;
  for (const element of [doc.documentElement, doc.body]) {
    const colour = element ? view.getComputedStyle(element).backgroundColor : "";
    if (colour && colour !== "transparent" && !/^rgba\(.*,\s*0\)$/.test(colour)) return colour;
  }
  return "#fff";
}

/**
 * @param {HTMLCanvasElement} canvas
 * @param {string} type
 * @param {number} [quality]
 * @returns {Promise<Blob | null>}
 */
function encode(canvas, type, quality) {
  return new Promise((resolve) => canvas.toBlob(resolve, type, quality));
}

/**
 * Draws the viewport as the page shows it now (without the overlay, whose host is `host`), cut to
 * the element and its surroundings, with the element outlined. Null when the page cannot be drawn
 * or the image stays over MAX_IMAGE_BYTES.
 * @param {Element} element
 * @param {HTMLElement} host
 * @returns {Promise<Capture | null>}
 */
export async function captureAround(element, host) {
  // the proxy marks the overlay's tag where the page's policy forbids the data: image drawn through
  if (document.querySelector('script[data-maple-capture="off"]')) return null;
  const box = rectOf(viewportRect(element));
  const area = areaAround(box);
  try {
    placeholderColours.clear();
    notePlaceholders(document);
    const page = await domToCanvas(document.documentElement, {
      width: window.innerWidth,
      height: window.innerHeight,
      scale: 1,
      timeout: FETCH_MS,
      filter: (node) => node !== host,
      onCloneEachNode: (copy) => unfixHeight(copy, window),
      // a scrolled list shows the rows on screen, and the page is drawn at its scroll position
      features: { restoreScrollPosition: true },
    });
    const ratio = page.width / window.innerWidth;
    const fit = Math.min(1, MAX_SIDE / Math.max(area.width, area.height));
    const out = document.createElement("canvas");
    out.width = Math.max(1, Math.round(area.width * fit));
    out.height = Math.max(1, Math.round(area.height * fit));
    const context = out.getContext("2d");
    if (!context) return null;
    context.fillStyle = canvasColour();
    context.fillRect(0, 0, out.width, out.height);
    context.drawImage(page, area.x * ratio, area.y * ratio, area.width * ratio, area.height * ratio, 0, 0, out.width, out.height);
    await drawFrames(context, area, fit);
    context.strokeStyle = "#b45309";
    context.lineWidth = 2;
    context.strokeRect((box.x - area.x) * fit, (box.y - area.y) * fit, box.width * fit, box.height * fit);
    let image = await encode(out, "image/png");
    if (image && image.size > MAX_IMAGE_BYTES) image = await encode(out, "image/jpeg", 0.85);
    return image && image.size <= MAX_IMAGE_BYTES ? { image, area } : null;
  } catch {
    return null; // a page the rasteriser cannot draw still gets its comment, without an image
  }
}
