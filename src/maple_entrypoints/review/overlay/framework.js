// What the framework knows about an element in a development build: the component that made it
// and where in the source, found in the framework's own development data. React 18 keeps the
// JSX's position on each fiber (`_debugSource`); React 19 keeps an owner stack instead
// (`_debugStack`, where the element was created), whose position in the served module is mapped
// back to the edited file through the dev server's source map; Vue 3 keeps the component on each
// element (`__vueParentComponent`, with `type.__file`), and the element's tag is found in the
// component's template. Production builds have none of it: then there is nothing to say.
// Everything read here is the page's, so it is checked before it is stored: a path inside the
// working tree, numbers that are numbers, a name that is a name.

import { isElement, isShadowRoot } from "./frames.js";
import { originalPosition } from "./sourcemap.js";
import { templatePosition } from "./vuetemplate.js";

/**
 * @typedef {object} Made The component that made an element, and where.
 * @property {string} component its display name
 * @property {string} file the file: an absolute path, or its URL on the dev server
 * @property {number} [line] from 1
 * @property {number} [column] from 1
 * @property {string} [stack] the module URL and position to map (React 19), "url:line:column"
 * @property {"react" | "vue"} framework
 */

/** How far up from the picked element (through shadow hosts) the framework's data is looked for. */
const UP = 8;

/**
 * A React fiber's own key on a DOM element (`__reactFiber$<random>`), or undefined.
 * @param {Element} element
 * @returns {any}
 */
function fiberOf(element) {
  for (const key of Object.keys(element)) {
    if (key.startsWith("__reactFiber$")) return /** @type {any} */ (element)[key];
  }
  return undefined;
}

/**
 * @param {any} type a component: a function, a class, or memo/forwardRef's object
 * @returns {string}
 */
function nameOf(type) {
  if (typeof type === "function") return String(type.displayName || type.name || "");
  if (type && typeof type === "object") return String(type.displayName || nameOf(type.type) || nameOf(type.render) || "");
  return "";
}

/**
 * The first frame of an owner stack that is the app's code (not React's, not a dependency's).
 * @param {string} stack
 * @returns {{ url: string, line: number, column: number } | null}
 */
function appFrame(stack) {
  for (const line of stack.split("\n").slice(1, 12)) {
    const found = line.match(/\(?((?:https?:)\/\/[^\s()]+):(\d+):(\d+)\)?\s*$/);
    if (!found) continue;
    const url = found[1];
    if (/\/node_modules\/|\/\.vite[^/]*\/deps\/|\/@react-refresh|\/@vite\//.test(url)) continue;
    return { url, line: Number(found[2]), column: Number(found[3]) };
  }
  return null;
}

/**
 * What React's development data says made this element, or null.
 * @param {Element} element
 * @returns {Made | null}
 */
function fromReact(element) {
  const fiber = fiberOf(element);
  if (!fiber || typeof fiber !== "object") return null;
  const owner = fiber._debugOwner;
  const component = owner ? (owner.type !== undefined ? nameOf(owner.type) : String(owner.name || "")) : "";
  const source = fiber._debugSource;
  if (source && typeof source.fileName === "string") {
    return { component, file: source.fileName, line: source.lineNumber, column: source.columnNumber, framework: "react" };
  }
  const stack = fiber._debugStack && typeof fiber._debugStack.stack === "string" ? fiber._debugStack.stack : "";
  const frame = stack ? appFrame(stack) : null;
  if (frame) {
    const file = frame.url.replace(/[?#].*$/, "");
    return { component, file, stack: frame.url + ":" + frame.line + ":" + frame.column, framework: "react" };
  }
  return component ? { component, file: "", framework: "react" } : null;
}

/**
 * What Vue's development data says made this element, or null.
 * @param {Element} element
 * @returns {Made | null}
 */
function fromVue(element) {
  const instance = /** @type {any} */ (element).__vueParentComponent;
  const type = instance && instance.type;
  if (!type || typeof type !== "object") return null;
  const file = typeof type.__file === "string" ? type.__file : "";
  const component = String(type.__name || type.name || (file.split("/").pop() || "").replace(/\.vue$/, ""));
  return { component, file, framework: "vue" };
}

/**
 * The element the framework's data is on: the element or its nearest ancestor (through open
 * shadow roots) the framework made, with what it says; null for a page no framework renders.
 * @param {Element} element
 * @returns {{ element: Element, made: Made } | null}
 */
export function madeBy(element) {
  /** @type {Element | null} */
  let at = element;
  for (let depth = 0; at && depth < UP; depth++) {
    const made = fromReact(at) || fromVue(at);
    if (made) return { element: at, made };
    const parent = /** @type {Element | null} */ (at.parentElement);
    const root = at.getRootNode();
    at = parent || (isShadowRoot(root) && isElement(root.host) ? root.host : null);
  }
  return null;
}

/**
 * `file` relative to the working tree `root`, or "" when it is not inside it or not a plain
 * path (a page may put anything in its development data).
 * @param {string} file an absolute path, or a URL of the dev server (`http://…/src/App.tsx`,
 *   whose path is the file's within the server's root, or `/@fs/` and an absolute path)
 * @param {string} root the working tree's absolute path (the proxy names it), or ""
 * @returns {string}
 */
export function relativePath(file, root) {
  let path = file;
  if (/^https?:\/\//.test(path)) {
    try {
      path = decodeURIComponent(new URL(path).pathname);
    } catch {
      return "";
    }
    path = path.startsWith("/@fs/") ? path.slice(4) : path.slice(1);
  }
  if (path.startsWith("/")) {
    const top = root.replace(/\/$/, "") + "/";
    if (!root || !path.startsWith(top)) return ""; // outside the working tree: not the app's file
    path = path.slice(top.length);
  }
  const plain = /^[\w.@+-]+(\/[\w.@+-]+)*$/.test(path) && path.length <= 300;
  return plain && !path.split("/").some((part) => part === ".." || part === ".") ? path : "";
}

/**
 * A component's name as the anchor keeps it: a name, at most 100 characters.
 * @param {string} name
 * @returns {string}
 */
function componentName(name) {
  return /^[\w$.:-]{1,100}$/.test(name) ? name : "";
}

/**
 * @param {unknown} n
 * @returns {boolean}
 */
function position(n) {
  return typeof n === "number" && Number.isInteger(n) && n > 0 && n < 1e7;
}

/**
 * Where the element is in the source, in Maple's anchor fields: `component`, `source` as a
 * path in the working tree with line and column, and `locatedBy: "owner-stack"` (found from
 * the framework's development data, as an agent should know to check). Empty when the page
 * has no such data, or it is not believable.
 * @param {Element} element
 * @param {string} root the working tree's absolute path
 * @returns {Promise<{ component?: string, source?: string, locatedBy?: "owner-stack" }>}
 */
export async function sourceOf(element, root) {
  const found = madeBy(element);
  if (!found) return {};
  const { made } = found;
  /** @type {{ component?: string, source?: string, locatedBy?: "owner-stack" }} */
  const out = {};
  const component = componentName(made.component);
  if (component) out.component = component;
  let { file, line, column } = made;
  if (made.stack) {
    const at = made.stack.match(/^(.*):(\d+):(\d+)$/);
    const original = at && (await originalPosition(at[1], Number(at[2]), Number(at[3])));
    if (original) ({ file, line, column } = original);
    else line = column = undefined;
  } else if (made.framework === "vue" && file) {
    const place = await templatePosition(found.element, file);
    if (place) ({ line, column } = place);
  }
  const path = relativePath(file, root);
  if (path && position(line) && position(column)) {
    out.source = path + ":" + line + ":" + column;
    out.locatedBy = "owner-stack";
  }
  return out;
}

/**
 * The component and file that made an element, as the re-find compares them (no fetching; the
 * line is left out, as a fix moves lines): "Card @ src/Cards.tsx", or "" when unknown.
 * @param {Element} element
 * @param {string} root
 * @returns {{ component: string, file: string } | null}
 */
export function madeHint(element, root) {
  const found = madeBy(element);
  if (!found) return null;
  return { component: componentName(found.made.component), file: relativePath(found.made.file, root) };
}

