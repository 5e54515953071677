// The page as the reviewer saw it, stored with each comment.

import { isShadowRoot } from "./frames.js";

/**
 * A CSS colour's relative luminance (0 black, 1 white) and opacity, or null when unreadable.
 * @param {string} colour as getComputedStyle gives it: `rgb(…)` or `rgba(…)`
 * @returns {{ luminance: number, alpha: number } | null}
 */
function readColour(colour) {
  const found = colour.match(/rgba?\(\s*([\d.]+)[,\s]+([\d.]+)[,\s]+([\d.]+)(?:\s*[,/]\s*([\d.]+%?))?/);
  if (!found) return null;
  const channel = (/** @type {string} */ c) => {
    const v = Number(c) / 255;
    return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
  };
  const alpha = found[4] === undefined ? 1 : found[4].endsWith("%") ? parseFloat(found[4]) / 100 : Number(found[4]);
  return { luminance: 0.2126 * channel(found[1]) + 0.7152 * channel(found[2]) + 0.0722 * channel(found[3]), alpha };
}

/**
 * @param {Element} element
 * @returns {Element | null}
 */
function hostOf(element) {
  const root = element.getRootNode();
  return isShadowRoot(root) ? root.host : null;
}

/**
 * The page's colour scheme where the reviewer picked, not the system's preference: the
 * background behind the element (its own or its nearest ancestor's that is painted), dark when
 * it is; on a page that paints none, what its `color-scheme` makes the browser draw.
 * @param {Element | null} element
 * @returns {"dark" | "light"}
 */
export function pageScheme(element) {
  /** @type {Element | null} */
  let at = element || document.body;
  for (; at; at = at.parentElement || hostOf(at)) {
    const view = at.ownerDocument.defaultView || window;
    const colour = readColour(view.getComputedStyle(at).backgroundColor);
    if (colour && colour.alpha >= 0.5) return colour.luminance < 0.2 ? "dark" : "light";
  }
  const scheme = getComputedStyle(document.documentElement).colorScheme || "";
  const prefersDark = window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches;
  if (/\bdark\b/.test(scheme) && (!/\blight\b/.test(scheme) || prefersDark)) return "dark";
  return "light";
}

/**
 * @param {string} appOrigin the app's own origin (`http://localhost:3000`), which the proxy names
 *   in the script's data-maple-app; the page's address is stored on it, not on the proxy's
 *   origin, whose port changes from run to run. Empty: the address as the browser has it.
 * @param {Element | null} [element] the element picked, whose background tells the scheme
 * @returns {import("./types.js").PageContext}
 */
export function pageContext(appOrigin, element = null) {
  return {
    url: appOrigin ? appOrigin + location.pathname + location.search + location.hash : location.href,
    viewportWidth: window.innerWidth,
    viewportHeight: window.innerHeight,
    devicePixelRatio: window.devicePixelRatio || 1,
    colorScheme: pageScheme(element),
  };
}
