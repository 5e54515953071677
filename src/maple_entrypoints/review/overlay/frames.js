// Where an element lives: in the top page, in an open shadow root, or in a same-origin frame,
// and how to get back there. An anchor's `within` lists, from the top page down, a selector for
// each shadow host or iframe on the way, each in its own document or shadow root.

/**
 * @typedef {Document | ShadowRoot} Root where selectors are run: a document or a shadow root
 */

// A frame's nodes belong to the frame's window, where `instanceof Element` (of this window) is
// false: nodes are told apart by their nodeType.

/**
 * @param {unknown} node
 * @returns {node is Element}
 */
export function isElement(node) {
  return !!node && typeof node === "object" && /** @type {Node} */ (node).nodeType === 1;
}

/**
 * @param {unknown} node
 * @returns {node is ShadowRoot}
 */
export function isShadowRoot(node) {
  return !!node && typeof node === "object" && /** @type {Node} */ (node).nodeType === 11 && "host" in node;
}

/**
 * @param {unknown} node
 * @returns {node is Document}
 */
export function isDocument(node) {
  return !!node && typeof node === "object" && /** @type {Node} */ (node).nodeType === 9;
}

/**
 * The element's own root: its shadow root, or the document it is in (a frame's, maybe).
 * @param {Element} element
 * @returns {Root}
 */
export function rootOf(element) {
  const root = element.getRootNode();
  return isShadowRoot(root) ? root : element.ownerDocument;
}

/**
 * The shadow hosts and iframes the element sits in, from the top page down.
 * @param {Element} element
 * @returns {Element[]}
 */
export function containersOf(element) {
  /** @type {Element[]} */
  const out = [];
  /** @type {Element | null} */
  let at = element;
  while (at) {
    const root = at.getRootNode();
    if (isShadowRoot(root)) at = root.host;
    else at = isDocument(root) && root.defaultView && root.defaultView !== window ? root.defaultView.frameElement : null;
    if (at) out.unshift(at);
  }
  return out;
}

/**
 * The root inside a container: a shadow host's open shadow root, a same-origin iframe's
 * document; null when there is none to enter (closed, cross-origin, not loaded).
 * @param {Element} container
 * @returns {Root | null}
 */
export function inside(container) {
  if (container.tagName === "IFRAME") {
    try {
      return /** @type {HTMLIFrameElement} */ (container).contentDocument;
    } catch {
      return null; // cross-origin
    }
  }
  return container.shadowRoot;
}

/**
 * The root an anchor's `within` leads to from the top page, or null when a step is missing.
 * @param {string[] | undefined} within
 * @returns {Root | null}
 */
export function rootFor(within) {
  /** @type {Root | null} */
  let root = document;
  for (const selector of within || []) {
    let container = null;
    try {
      container = root.querySelector(selector);
    } catch {
      return null;
    }
    root = container && inside(container);
    if (!root) return null;
  }
  return root;
}

/**
 * The element's border box in the top page's viewport: through each frame it is in, offset by
 * the frame's place and border.
 * @param {Element} element
 * @returns {DOMRect}
 */
export function viewportRect(element) {
  const r = element.getBoundingClientRect();
  let x = r.left;
  let y = r.top;
  let view = element.ownerDocument.defaultView;
  while (view && view !== window && view.frameElement) {
    const frame = view.frameElement;
    const box = frame.getBoundingClientRect();
    x += box.left + frame.clientLeft;
    y += box.top + frame.clientTop;
    view = frame.ownerDocument.defaultView;
  }
  return new DOMRect(x, y, r.width, r.height);
}

/**
 * The same-origin frames of a document whose documents can be read, at any depth.
 * @param {Document} doc
 * @returns {Document[]}
 */
export function frameDocuments(doc) {
  /** @type {Document[]} */
  const out = [];
  for (const frame of Array.from(doc.querySelectorAll("iframe"))) {
    const inner = inside(frame);
    if (isDocument(inner)) out.push(inner, ...frameDocuments(inner));
  }
  return out;
}

/**
 * The innermost element an event happened on, through open shadow roots.
 * @param {Event} event
 * @returns {Element | null}
 */
export function eventElement(event) {
  const first = event.composedPath()[0];
  return isElement(first) ? first : isElement(event.target) ? event.target : null;
}
