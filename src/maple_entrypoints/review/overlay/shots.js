// The images a comment carries: the capture of what the reviewer saw when they picked the
// element, and an image they paste or drop into the composer. Both are stored through the
// route's /media when the comment is sent and attached as Maple attachments.

import { postMedia } from "./api.js";
import { MAX_IMAGE_BYTES, captureAround, rectOf } from "./capture.js";
import { viewportRect } from "./frames.js";
import { el } from "./ui.js";

/** How long Send waits for a capture still being drawn before the comment goes without it. */
const CAPTURE_WAIT_MS = 5000;

/** What the route stores: raster images only. */
const OFFERED_TYPES = ["image/png", "image/jpeg", "image/webp", "image/gif"];

/**
 * @typedef {object} Shots
 * @property {(element: Element, point: { x: number, y: number } | null) => void} take starts
 *   capturing the page around `element`, picked at `point` (viewport CSS pixels; null: from
 *   the keyboard, the element's centre)
 * @property {() => void} clear forgets both images
 * @property {(api: string) => Promise<{ attachments: import("./types.js").Attachment[], context: import("./types.js").PickGeometry }>} store
 *   uploads the images, answering the comment's attachments and the pick's geometry
 */

/**
 * @param {import("./ui.js").Ui} ui
 * @returns {Shots}
 */
export function createShots(ui) {
  const note = el("p", { class: "shot", hidden: "" });
  ui.composer.insertBefore(note, ui.problem);
  /** @type {Promise<import("./capture.js").Capture | null> | null} */
  let capturing = null;
  /** @type {Blob | null} */
  let offered = null;
  /** @type {import("./types.js").PickGeometry | null} */
  let geometry = null;
  /** @type {{ attachments: import("./types.js").Attachment[], context: import("./types.js").PickGeometry } | null} */
  let stored = null; // what a send that then failed uploaded: a retry attaches it again

  /** @param {string} text */
  function show(text) {
    note.textContent = text;
    note.hidden = !text;
  }

  /**
   * @param {Element} element
   * @param {{ x: number, y: number } | null} point
   */
  function take(element, point) {
    const box = rectOf(viewportRect(element));
    const click = point || { x: Math.round(box.x + box.width / 2), y: Math.round(box.y + box.height / 2) };
    geometry = { elementBox: box, clickPoint: { x: Math.round(click.x), y: Math.round(click.y) } };
    offered = null;
    stored = null;
    show("");
    capturing = captureAround(element, ui.host);
  }

  function clear() {
    capturing = null;
    offered = null;
    geometry = null;
    stored = null;
    show("");
  }

  /** @param {FileList | File[] | null | undefined} files */
  function offer(files) {
    const image = Array.from(files || []).find((file) => file.type.startsWith("image/"));
    if (!image) return false;
    if (OFFERED_TYPES.indexOf(image.type) < 0) show("Only a PNG, JPEG, WebP or GIF image can be attached.");
    else if (image.size > MAX_IMAGE_BYTES) show("That image is over 2 MB; it is not attached.");
    else {
      offered = image;
      stored = null;
      show("Your image is attached" + (image.name ? ": " + image.name : "") + ".");
    }
    return true;
  }

  /** @param {string} api */
  async function store(api) {
    if (stored) return stored;
    /** @type {import("./types.js").Attachment[]} */
    const attachments = [];
    /** @type {import("./types.js").PickGeometry} */
    const context = { ...(geometry || {}) };
    /** @type {Promise<null>} */
    const late = new Promise((resolve) => setTimeout(() => resolve(null), CAPTURE_WAIT_MS));
    const shot = capturing ? await Promise.race([capturing, late]) : null;
    if (shot) {
      const ref = await postMedia(api, shot.image);
      if (ref) {
        attachments.push({ ...ref, source: "capture" });
        context.captureArea = shot.area;
      }
    }
    if (offered) {
      const ref = await postMedia(api, offered);
      if (ref) attachments.push({ ...ref, source: "offered" });
    }
    stored = { attachments, context };
    return stored;
  }

  ui.textarea.addEventListener("paste", (event) => {
    if (event.clipboardData && offer(event.clipboardData.files)) event.preventDefault();
  });
  ui.composer.addEventListener("dragover", (event) => event.preventDefault());
  ui.composer.addEventListener("drop", (event) => {
    event.preventDefault();
    offer(event.dataTransfer && event.dataTransfer.files);
  });
  return { take, clear, store };
}
