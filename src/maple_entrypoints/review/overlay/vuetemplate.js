// Where in a Vue single-file component's template an element is written. Vue's development
// data names the component and its file (`__vueParentComponent.type.__file`) but no line, so the
// overlay reads the file as the dev server serves it (Vite's `?raw`), finds its <template>, and
// walks from the component's root down to the element, tag by tag, telling siblings apart by
// their static class, id and the like and by their order. An element it cannot place (content a
// parent passed into a slot, a template it cannot read) gets no line.

import { readSameOrigin } from "./sourcemap.js";

/**
 * @typedef {object} TemplateNode
 * @property {string} tag lowercase
 * @property {Map<string, string>} attributes the static ones (no `:`, `@`, `v-` prefix)
 * @property {number} line from 1
 * @property {number} column from 1
 * @property {TemplateNode[]} children
 */

/** Tags that render no element of their own: their children stand in their place. */
const TRANSPARENT = new Set(["template", "transition", "keep-alive", "keepalive", "teleport", "suspense"]);
const VOID = new Set(["area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"]);
const ATTRIBUTE = /\s*([^\s=/>"']+)(?:\s*=\s*("[^"]*"|'[^']*'|[^\s>]+))?/y;

/** @type {Map<string, Promise<TemplateNode[] | null>>} by file */
const templates = new Map();

/**
 * The template's top-level nodes, parsed from a component file's text.
 * @param {string} text the whole .vue file
 * @returns {TemplateNode[] | null}
 */
export function parseTemplate(text) {
  const open = /^<template(\s[^>]*)?>/m.exec(text);
  if (!open) return null;
  const starts = [0];
  for (let i = 0; i < text.length; i++) if (text[i] === "\n") starts.push(i + 1);
  /** @param {number} at */
  const place = (at) => {
    let low = 0;
    let high = starts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (starts[middle] <= at) low = middle;
      else high = middle - 1;
    }
    return { line: low + 1, column: at - starts[low] + 1 };
  };
  /** @type {TemplateNode} */
  const top = { tag: "#root", attributes: new Map(), line: 0, column: 0, children: [] };
  /** @type {TemplateNode[]} */
  const stack = [top];
  let at = open.index + open[0].length;
  const end = text.lastIndexOf("</template>");
  while (at < end) {
    const next = text.indexOf("<", at);
    const mustache = text.indexOf("{{", at);
    if (next < 0 || next >= end) break;
    if (mustache >= 0 && mustache < next) {
      const closed = text.indexOf("}}", mustache);
      at = closed < 0 ? end : closed + 2;
      continue;
    }
    if (text.startsWith("<!--", next)) {
      const closed = text.indexOf("-->", next);
      at = closed < 0 ? end : closed + 3;
      continue;
    }
    const closing = /^<\/([\w-]+)\s*>/.exec(text.slice(next, next + 100));
    if (closing) {
      const tag = closing[1].toLowerCase();
      const depth = stack.map((n) => n.tag).lastIndexOf(tag);
      if (depth > 0) stack.length = depth;
      at = next + closing[0].length;
      continue;
    }
    const name = /^<([A-Za-z][\w-]*)/.exec(text.slice(next, next + 100));
    if (!name) {
      at = next + 1;
      continue;
    }
    /** @type {TemplateNode} */
    const node = { tag: name[1].toLowerCase(), attributes: new Map(), ...place(next), children: [] };
    ATTRIBUTE.lastIndex = next + name[0].length;
    for (let found = ATTRIBUTE.exec(text); found && found.index < end; found = ATTRIBUTE.exec(text)) {
      if (!/^[:@#]|^v-/.test(found[1])) node.attributes.set(found[1].toLowerCase(), (found[2] || "").replace(/^["']|["']$/g, ""));
      at = ATTRIBUTE.lastIndex;
    }
    const rest = /^\s*(\/?)>/.exec(text.slice(at, at + 20));
    at += rest ? rest[0].length : 1;
    stack[stack.length - 1].children.push(node);
    if (!(rest && rest[1]) && !VOID.has(node.tag)) stack.push(node);
  }
  return top.children;
}

/**
 * The nodes that stand at this level: those of transparent wrappers in their place.
 * @param {TemplateNode[]} nodes
 * @returns {TemplateNode[]}
 */
function level(nodes) {
  return nodes.flatMap((node) => (TRANSPARENT.has(node.tag) ? level(node.children) : [node]));
}

/**
 * Whether a template node could have made this element: the same tag, and every static class,
 * id, type, role and name it writes on the element.
 * @param {TemplateNode} node
 * @param {Element} element
 * @returns {boolean}
 */
function couldBe(node, element) {
  if (node.tag !== element.tagName.toLowerCase()) return false;
  for (const [name, value] of node.attributes) {
    if (name === "class") {
      if (value.split(/\s+/).some((token) => token && !element.classList.contains(token))) return false;
    } else if (["id", "type", "role", "name"].indexOf(name) >= 0 && element.getAttribute(name) !== value) {
      return false;
    }
  }
  return true;
}

/**
 * The template node for the last element of `path`, matched level by level from `nodes`.
 * @param {TemplateNode[]} nodes
 * @param {Element[]} path from the component's root element down to the element
 * @returns {TemplateNode | null}
 */
function matchPath(nodes, path) {
  const [element, ...below] = path;
  const candidates = level(nodes).filter((node) => couldBe(node, element));
  // siblings of one tag in the page and in the template are likely in the same order
  let index = 0;
  for (let sibling = element.previousElementSibling; sibling; sibling = sibling.previousElementSibling) {
    if (sibling.tagName === element.tagName) index++;
  }
  const first = Math.min(index, candidates.length - 1);
  const order = [candidates[first], ...candidates.filter((_, i) => i !== first)];
  for (const node of order) {
    if (!node) continue;
    if (!below.length) return node;
    const deeper = matchPath(node.children, below);
    if (deeper) return deeper;
  }
  return null;
}

/**
 * @param {string} file the component's file, an absolute path
 * @returns {Promise<TemplateNode[] | null>}
 */
function templateOf(file) {
  let loading = templates.get(file);
  if (!loading) {
    loading = readSameOrigin("/@fs" + file.split("/").map(encodeURIComponent).join("/") + "?raw").then((text) => {
      const raw = text && /^export default ("(?:[^"\\]|\\.)*")/.exec(text);
      try {
        return raw ? parseTemplate(String(JSON.parse(raw[1]))) : null;
      } catch {
        return null;
      }
    });
    templates.set(file, loading);
  }
  return loading;
}

/**
 * Where in its component's template the element is written, or null.
 * @param {Element} element an element Vue made (it has `__vueParentComponent`)
 * @param {string} file the component's file
 * @returns {Promise<{ line: number, column: number } | null>}
 */
export async function templatePosition(element, file) {
  const instance = /** @type {any} */ (element).__vueParentComponent;
  /** @type {Element[]} */
  const path = [element];
  for (let up = element.parentElement; up && /** @type {any} */ (up).__vueParentComponent === instance; up = up.parentElement) {
    path.unshift(up);
  }
  const nodes = file.startsWith("/") ? await templateOf(file) : null;
  const node = nodes && matchPath(nodes, path);
  return node ? { line: node.line, column: node.column } : null;
}
