// A copy of the markup around the picked element, for the agent (get_comment_context): the
// element's parent and what it holds, bounded and redacted. Only attributes that name or
// describe elements are kept (never `value`, `style`, event handlers or other data), no field's
// content (what a person typed), no script or style, texts and attributes cut short, at most
// MAX_CHILDREN children an element and MAX_CHARS characters in all. The picked element carries
// `data-maple-picked`.

import { FIELDS, redacted, squeezed } from "./text.js";

/** The most characters the copy holds. */
export const MAX_CHARS = 2000;
const MAX_CHILDREN = 12;
const MAX_DEPTH = 5;
const MAX_TEXT = 80;
const MAX_ATTRIBUTE = 80;
/** Attributes kept: what names an element, says what it is, or is its app's visible text. */
const KEPT = /^(id|class|role|name|type|href|alt|title|placeholder|for|disabled|hidden|checked|selected|lang|dir|tabindex|aria-[a-z-]+|data-(testid|test|cy|maple-[a-z-]+))$/;
const DROPPED = "script, style, noscript, template, [data-maple-overlay]";

/**
 * @param {string} text
 * @returns {string}
 */
function escaped(text) {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

/**
 * @param {string} text
 * @param {number} most
 * @returns {string}
 */
function cut(text, most) {
  return text.length > most ? text.slice(0, most - 1) + "…" : text;
}

/**
 * The opening tag as the copy writes it: kept attributes only, each value cut short.
 * @param {Element} element
 * @param {boolean} picked
 * @param {string[]} typed
 * @returns {string}
 */
function openTag(element, picked, typed) {
  let tag = "<" + element.tagName.toLowerCase();
  for (const attribute of Array.from(element.attributes)) {
    if (!KEPT.test(attribute.name)) continue;
    if (attribute.name === "href" && /^\s*javascript:/i.test(attribute.value)) continue;
    tag += attribute.value === "" ? " " + attribute.name : " " + attribute.name + '="' + escaped(cut(redacted(attribute.value, typed), MAX_ATTRIBUTE)) + '"';
  }
  return tag + (picked ? " data-maple-picked" : "") + ">";
}

/**
 * The copy of the markup around `element`: its parent (or the element itself at the top of its
 * document or shadow root) with the element marked.
 * @param {Element} element
 * @param {string[]} typed what the page's fields hold now, replaced wherever the app shows it
 * @returns {string}
 */
export function markupAround(element, typed) {
  const top = element.parentElement && element.parentElement !== element.ownerDocument.body ? element.parentElement : element;
  let out = "";
  let full = false;
  /** @param {string} text */
  const write = (text) => {
    if (full) return;
    if (out.length + text.length > MAX_CHARS - 1) {
      out += text.slice(0, Math.max(0, MAX_CHARS - 1 - out.length)) + "…";
      full = true;
    } else out += text;
  };
  /**
   * @param {Node} node
   * @param {number} depth
   */
  const copy = (node, depth) => {
    if (full) return;
    if (node.nodeType === 3) {
      const text = squeezed(node.nodeValue);
      if (text) write(escaped(cut(redacted(text, typed), MAX_TEXT)));
      return;
    }
    if (node.nodeType !== 1) return;
    const el = /** @type {Element} */ (node);
    if (el.matches(DROPPED)) return;
    const tag = el.tagName.toLowerCase();
    write(openTag(el, el === element, typed));
    if (el.matches(FIELDS) || tag === "svg" || tag === "iframe") {
      write("</" + tag + ">"); // a field's content is the person's: never copied
      return;
    }
    if (depth >= MAX_DEPTH) {
      if (el.childNodes.length) write("…");
    } else {
      const children = Array.from(el.childNodes);
      children.slice(0, MAX_CHILDREN).forEach((child) => copy(child, depth + 1));
      if (children.length > MAX_CHILDREN) write("<!-- " + (children.length - MAX_CHILDREN) + " more -->");
    }
    if (!/^(area|base|br|col|embed|hr|img|input|link|meta|source|track|wbr)$/.test(tag)) write("</" + tag + ">");
  };
  copy(top, 0);
  return out;
}
