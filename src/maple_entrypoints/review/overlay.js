// maple review overlay, joined from overlay/*.js by tests/overlay_bundle.py: edit those
// modules, then run `make overlay`. Dependency-free; injected by `maple review`.
(function () {
"use strict";

// --- overlay/api.js ---
// The route under the proxy's /__maple/api: list this branch's comments, post a new one, and
// edit or delete one of the reviewer's own while it is open.

/**
 * The branch's comments, or null when they could not be read.
 * @param {string} api
 * @param {string} branch
 * @returns {Promise<import("./types.js").StoredComment[] | null>}
 */
async function listComments(api, branch) {
  try {
    const answer = await fetch(api + "/comments?branch=" + encodeURIComponent(branch), { credentials: "same-origin" });
    if (!answer.ok) return null;
    /** @type {{ comments?: import("./types.js").StoredComment[] }} */
    const page = await answer.json();
    return page.comments || [];
  } catch {
    return null;
  }
}

/**
 * Posts a comment; rejects with the route's error message when it is refused.
 * @param {string} api
 * @param {import("./types.js").NewComment} comment
 * @returns {Promise<void>}
 */
async function postComment(api, comment) {
  await refusedOrDone(await fetch(api + "/comments", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(comment),
    credentials: "same-origin",
  }));
}

/**
 * Nothing when the route took the write; rejects with the route's error message otherwise.
 * @param {Response} answer
 * @returns {Promise<void>}
 */
async function refusedOrDone(answer) {
  if (answer.ok) return;
  /** @type {{ error?: string }} */
  const problem = await answer.json().catch(() => ({}));
  throw new Error(problem.error || "the route answered " + answer.status);
}

/**
 * Replaces the body of one of the reviewer's open comments; rejects with the route's reason.
 * @param {string} api
 * @param {string} id the comment's id
 * @param {string} body
 * @param {string} authorId this browser's reviewer id (see reviewer.js), which wrote it
 * @returns {Promise<void>}
 */
async function editComment(api, id, body, authorId) {
  await refusedOrDone(await fetch(api + "/comments/" + encodeURIComponent(id), {
    method: "PATCH",
    headers: { "content-type": "application/json", "x-maple-author": authorId },
    body: JSON.stringify({ body }),
    credentials: "same-origin",
  }));
}

/**
 * Deletes one of the reviewer's open comments; rejects with the route's reason.
 * @param {string} api
 * @param {string} id the comment's id
 * @param {string} authorId this browser's reviewer id, which wrote it
 * @returns {Promise<void>}
 */
async function deleteComment(api, id, authorId) {
  await refusedOrDone(await fetch(api + "/comments/" + encodeURIComponent(id), {
    method: "DELETE",
    headers: { "x-maple-author": authorId },
    credentials: "same-origin",
  }));
}

// --- overlay/locate.js ---
// Finding a comment's element again. The selector is tried first; when it finds nothing, or a
// positional path (`li:nth-of-type(2) > span`) now lands on an element with other text, the
// quoted text stored with the anchor finds the element, the stored box choosing among several
// with that text. A comment neither finds has no element: it is listed as gone, never pinned at
// a guess.

/**
 * Text as the anchor quotes it: whitespace runs as one space, trimmed.
 * @param {string | null} text
 * @returns {string}
 */
function squeezed(text) {
  return (text || "").replace(/\s+/g, " ").trim();
}

/**
 * Whether `element`'s text is the quoted text (a quote is cut at 200 characters).
 * @param {Element} element
 * @param {string} exact
 * @returns {boolean}
 */
function saysQuote(element, exact) {
  const text = squeezed(element.textContent);
  return exact.length >= 200 ? text.startsWith(exact) : text === exact;
}

/**
 * How far an element is from where the comment's element was: its box against the stored box
 * (page coordinates), position and size alike. Without a stored box every element is as near.
 * @param {Element} element
 * @param {import("./types.js").Box | undefined} box
 * @returns {number}
 */
function distance(element, box) {
  if (!box) return 0;
  const r = element.getBoundingClientRect();
  return (
    Math.abs(r.left + window.scrollX - box.x) + Math.abs(r.top + window.scrollY - box.y) +
    Math.abs(r.width - box.width) + Math.abs(r.height - box.height)
  );
}

/**
 * The element whose text is the quote, the one nearest the stored box among several; null when
 * no element on the page says it.
 * @param {import("./types.js").Quote} quote
 * @param {import("./types.js").Box | undefined} box
 * @returns {Element | null}
 */
function byQuote(quote, box) {
  const body = document.body;
  if (!body || squeezed(body.textContent).indexOf(quote.exact) < 0) return null;
  /** @type {Element | null} */
  let best = null;
  let bestScore = Infinity;
  for (const element of Array.from(body.querySelectorAll("*"))) {
    if (element.closest("[data-maple-overlay], script, style") || !saysQuote(element, quote.exact)) continue;
    const around = squeezed((element.parentElement || body).textContent);
    const context = (quote.prefix ? around.indexOf(quote.prefix.trim()) >= 0 : true) &&
      (quote.suffix ? around.indexOf(quote.suffix.trim()) >= 0 : true);
    const score = distance(element, box) + (context ? 0 : 1e6);
    if (score < bestScore) {
      best = element;
      bestScore = score;
    }
  }
  return best;
}

/**
 * The element the selector finds, or null (none, or a selector the browser refuses).
 * @param {string | undefined} selector
 * @returns {Element | null}
 */
function bySelector(selector) {
  if (!selector) return null;
  try {
    return document.querySelector(selector);
  } catch {
    return null;
  }
}

/**
 * The element a comment is about, or null when it is gone. A selector that names the element
 * (an id, a test attribute, a label) is trusted whatever its text now says, as the fix the
 * comment asked for may have changed it; a positional path only while its element still says
 * the quote, as rows that moved would otherwise hand the comment to a neighbour.
 * @param {import("./types.js").StoredComment} comment
 * @returns {Element | null}
 */
function locate(comment) {
  const anchor = comment.anchor || {};
  const found = bySelector(anchor.selector);
  const quote = anchor.quote;
  if (!quote || !quote.exact) return found;
  if (found && (saysQuote(found, quote.exact) || !/:nth-of-type\(/.test(anchor.selector || ""))) return found;
  // the search reads the whole page, so an element it found is kept while it still says the quote
  const before = refound.get(comment.id);
  if (before && before.isConnected && saysQuote(before, quote.exact)) return before;
  const element = byQuote(quote, anchor.box);
  if (element) refound.set(comment.id, element);
  else refound.delete(comment.id);
  return element;
}

/** @type {Map<string, Element>} the elements found by their quote, by comment id */
const refound = new Map();

/**
 * The element's box on the page (not the viewport): where it was, to tell it among several
 * that say the same text.
 * @param {Element} element
 * @returns {import("./types.js").Box}
 */
function boxOf(element) {
  const r = element.getBoundingClientRect();
  const round = (/** @type {number} */ n) => Math.round(n);
  return { x: round(r.left + window.scrollX), y: round(r.top + window.scrollY), width: round(r.width), height: round(r.height) };
}

// --- overlay/anchor.js ---
// Where a comment points: a CSS selector for the element, its text with the text around it, and
// the `data-maple-src` / `data-maple-key` an app may tag its elements with, and the element's box
// (which, with the text, finds it again when the selector breaks: see locate.js).


/** Attributes apps put on elements for their tests: stable names, meant to be selected by. */
const TEST_ATTRIBUTES = ["data-testid", "data-test", "data-cy"];

/**
 * `[name="value"]`, the value quoted as a CSS string.
 * @param {string} name
 * @param {string} value
 * @returns {string}
 */
function attribute(name, value) {
  return "[" + name + '="' + value.replace(/["\\]/g, "\\$&").replace(/\n/g, "\\a ") + '"]';
}

/**
 * Whether `selector` finds `element` and nothing else on the page.
 * @param {string} selector
 * @param {Element} element
 * @returns {boolean}
 */
function findsOnly(selector, element) {
  try {
    const found = document.querySelectorAll(selector);
    return found.length === 1 && found[0] === element;
  } catch {
    return false;
  }
}

/**
 * A selector that names `element` by itself, as the app does, when one finds only it: its id,
 * a test attribute, or its role and accessible name where the name is an attribute
 * (`button[aria-label="Close"]`, `input[name="q"]`). Null when it has no such name.
 * @param {Element} element
 * @returns {string | null}
 */
function ownName(element) {
  const tag = element.tagName.toLowerCase();
  /** @type {string[]} */
  const candidates = [];
  if (element.id) candidates.push("#" + CSS.escape(element.id));
  for (const name of TEST_ATTRIBUTES) {
    const value = element.getAttribute(name);
    if (value) candidates.push(attribute(name, value));
  }
  const label = element.getAttribute("aria-label");
  if (label) {
    const role = element.getAttribute("role");
    candidates.push((role ? attribute("role", role) : tag) + attribute("aria-label", label));
  }
  const name = element.getAttribute("name");
  if (name && ["input", "select", "textarea", "button"].indexOf(tag) >= 0) {
    candidates.push(tag + attribute("name", name));
  }
  return candidates.find((selector) => findsOnly(selector, element)) || null;
}

/**
 * A selector that finds `element` again: its own name (see ownName), else the shortest path of
 * tags down from the nearest ancestor with one (or from the root), positions only where a tag
 * repeats among siblings.
 * @param {Element} element
 * @returns {string}
 */
function selectorFor(element) {
  /** @type {string[]} */
  const parts = [];
  /** @type {Element | null} */
  let node = element;
  while (node && node !== document.documentElement) {
    const named = ownName(node);
    if (named) {
      parts.unshift(named);
      break;
    }
    const tagName = node.tagName;
    let tag = tagName.toLowerCase();
    const parent = /** @type {Element | null} */ (node.parentElement);
    if (parent) {
      const same = Array.from(parent.children).filter((c) => c.tagName === tagName);
      if (same.length > 1) tag += ":nth-of-type(" + (same.indexOf(node) + 1) + ")";
    }
    parts.unshift(tag);
    node = parent;
  }
  return parts.join(" > ");
}

/**
 * The element's text (up to 200 characters) with up to 32 characters before and after it.
 * @param {Element} element
 * @returns {import("./types.js").Quote | undefined}
 */
function quoteFor(element) {
  const exact = (element.textContent || "").replace(/\s+/g, " ").trim().slice(0, 200);
  if (!exact) return undefined;
  const around = ((element.parentElement || document.body).textContent || "").replace(/\s+/g, " ");
  const at = around.indexOf(exact);
  /** @type {import("./types.js").Quote} */
  const quote = { exact };
  if (at >= 0) {
    quote.prefix = around.slice(Math.max(0, at - 32), at);
    quote.suffix = around.slice(at + exact.length, at + exact.length + 32);
  }
  return quote;
}

/**
 * @param {Element} element
 * @returns {import("./types.js").Anchor}
 */
function anchorFor(element) {
  /** @type {import("./types.js").Anchor} */
  const anchor = { selector: selectorFor(element), box: boxOf(element) };
  const quote = quoteFor(element);
  if (quote) anchor.quote = quote;
  const tagged = element.closest("[data-maple-src]");
  const source = tagged && tagged.getAttribute("data-maple-src");
  if (source) anchor.source = source;
  const keyed = element.closest("[data-maple-key]");
  const key = keyed && keyed.getAttribute("data-maple-key");
  if (key) anchor.key = key;
  return anchor;
}

// --- overlay/context.js ---
// The page as the reviewer saw it, stored with each comment.

/**
 * @param {string} appOrigin the app's own origin (`http://localhost:3000`), which the proxy names
 *   in the script's data-maple-app; the page's address is stored on it, not on the proxy's
 *   origin, whose port changes from run to run. Empty: the address as the browser has it.
 * @returns {import("./types.js").PageContext}
 */
function pageContext(appOrigin) {
  return {
    url: appOrigin ? appOrigin + location.pathname + location.search + location.hash : location.href,
    viewportWidth: window.innerWidth,
    viewportHeight: window.innerHeight,
    devicePixelRatio: window.devicePixelRatio || 1,
    colorScheme: window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light",
  };
}

// --- overlay/styles.js ---
// The overlay's one stylesheet, adopted by its shadow root (see ui.js).

const OVERLAY_CSS =
  ":host { all: initial; }" +
  "* { box-sizing: border-box; font: 14px/1.4 system-ui, sans-serif; }" +
  ".bar { position: fixed; right: 16px; bottom: 16px; display: flex; gap: 8px; pointer-events: auto; }" +
  "button { background: #1f2937; color: #fff; border: 0; border-radius: 6px; padding: 8px 12px; cursor: pointer; }" +
  "button[aria-pressed=true] { background: #b45309; }" +
  "button:focus-visible, textarea:focus-visible, li:focus-visible { outline: 3px solid #2563eb; outline-offset: 2px; }" +
  ".box { position: fixed; border: 2px solid #b45309; background: rgba(180,83,9,.08); pointer-events: none; display: none; }" +
  ".composer { position: fixed; width: 320px; background: #fff; color: #111; border: 1px solid #d1d5db; border-radius: 8px; padding: 12px; box-shadow: 0 8px 24px rgba(0,0,0,.18); pointer-events: auto; display: none; }" +
  ".composer textarea { width: 100%; min-height: 80px; border: 1px solid #9ca3af; border-radius: 6px; padding: 6px; color: #111; background: #fff; }" +
  ".composer .row { display: flex; gap: 8px; justify-content: flex-end; margin-top: 8px; }" +
  ".composer .cancel { background: #e5e7eb; color: #111; }" +
  ".composer .where { margin: 0 0 8px; font-size: 12px; color: #4b5563; }" +
  ".composer .problem { margin: 8px 0 0; padding: 6px 8px; border-radius: 6px; background: #fee2e2; color: #991b1b; }" +
  ".pin { position: fixed; width: 24px; height: 24px; border-radius: 12px; background: #b45309; color: #fff; display: flex; align-items: center; justify-content: center; font-weight: 700; font-size: 12px; pointer-events: auto; }" +
  ".pin.resolved { background: #15803d; }" +
  ".panel { position: fixed; right: 16px; bottom: 64px; width: 300px; max-height: 50vh; overflow: auto; background: #fff; color: #111; border: 1px solid #d1d5db; border-radius: 8px; pointer-events: auto; display: none; }" +
  ".panel ol { margin: 0; padding: 8px 8px 8px 28px; }" +
  ".panel li { padding: 4px 0; }" +
  ".status { font-size: 12px; color: #4b5563; }" +
  ".status.resolved { color: #15803d; }" +
  ".panel .tools { display: flex; flex-wrap: wrap; gap: 8px; padding: 8px; border-bottom: 1px solid #e5e7eb; font-size: 12px; }" +
  ".panel .tools input.name { width: 120px; border: 1px solid #9ca3af; border-radius: 4px; padding: 2px 4px; color: #111; background: #fff; }" +
  ".panel li { cursor: pointer; }" +
  ".panel li .body { margin: 0; white-space: pre-wrap; }" +
  ".panel li .row, .panel .editor .row { display: flex; gap: 6px; margin-top: 4px; }" +
  ".panel li button { padding: 2px 8px; font-size: 12px; }" +
  ".panel .editor textarea { width: 100%; min-height: 60px; color: #111; background: #fff; border: 1px solid #9ca3af; border-radius: 4px; }" +
  ".panel .problem { margin: 4px 0 0; padding: 4px 6px; border-radius: 4px; background: #fee2e2; color: #991b1b; }" +
  ".box.shown { border-color: #2563eb; background: rgba(37,99,235,.12); }" +
  ".send:disabled, .save:disabled, .delete:disabled { opacity: .6; cursor: progress; }" +
  ".sr { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }";

// --- overlay/ui.js ---
// The overlay's DOM: a host element on the page holding an open shadow root, and in it the
// highlight box, the composer, the pins, the comment list, the bar and a live region.
// A constructed stylesheet and DOM built node by node: no inline <style> for a strict
// style-src to block, and no HTML strings for Trusted Types to refuse.


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
 * @property {HTMLButtonElement} modeButton
 * @property {HTMLDivElement} live the polite live region screen readers announce
 */

/**
 * An element with attributes and children (text or nodes).
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Record<string, string>} [attributes]
 * @param {(Node | string)[]} [children]
 * @returns {HTMLElementTagNameMap[K]}
 */
function el(tag, attributes, children) {
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
function buildUi() {
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
  const live = el("div", { class: "sr", "aria-live": "polite" });
  root.append(box, composer, pins, panel, el("div", { class: "bar" }, [listButton, modeButton]), live);
  document.documentElement.appendChild(host);
  return {
    host, box, composer, where, textarea, problem, sendButton, cancelButton, pins, panel, list, listButton, count,
    modeButton, live, nameInput, hideResolvedBox,
  };
}

/**
 * Draws the highlight box over `element`, or hides it.
 * @param {Ui} ui
 * @param {Element | null} element
 */
function outline(ui, element) {
  if (!element) {
    ui.box.style.display = "none";
    return;
  }
  const r = element.getBoundingClientRect();
  ui.box.style.cssText =
    "display:block;left:" + r.left + "px;top:" + r.top + "px;width:" + r.width + "px;height:" + r.height + "px;";
}

// --- overlay/composer.js ---
// The composer: the box where the reviewer types a comment on one element and sends it.


/**
 * @typedef {object} Composer
 * @property {(element: Element) => void} open shows the composer for `element`, focused; the
 *   element's anchor and the page's address are taken now, so a comment begun before the app
 *   navigates is stored for the page and element the reviewer picked
 * @property {() => void} pageChanged the app navigated while the composer may be open
 * @property {() => void} close hides it and gives focus back to the element
 * @property {() => Promise<void>} send posts the comment, closing the composer once it is stored
 * @property {() => boolean} isOpen
 */

/**
 * @param {import("./ui.js").Ui} ui
 * @param {{ api: string, appOrigin: string, branch: string, say: (text: string) => void, sent: () => void,
 *   author: () => { id: string, name: string } }} options author: who sends it, as this browser names them
 * @returns {Composer}
 */
function createComposer(ui, { api, appOrigin, branch, say, sent, author }) {
  /** @type {Element | null} */
  let target = null;
  /** @type {{ anchor: import("./types.js").Anchor, context: import("./types.js").PageContext } | null} */
  let picked = null;

  /** @param {Element} element */
  function open(element) {
    target = element;
    picked = { anchor: anchorFor(element), context: pageContext(appOrigin) };
    ui.where.hidden = true;
    outline(ui, element);
    const r = element.getBoundingClientRect();
    const top = Math.min(window.innerHeight - 180, Math.max(8, r.bottom + 8));
    const left = Math.min(window.innerWidth - 336, Math.max(8, r.left));
    ui.composer.style.cssText = "display:block;top:" + top + "px;left:" + left + "px;";
    ui.textarea.value = "";
    ui.problem.hidden = true;
    ui.textarea.focus();
  }

  function close() {
    ui.composer.style.display = "none";
    outline(ui, null);
    const back = target;
    target = null;
    picked = null;
    if (back instanceof HTMLElement || back instanceof SVGElement) back.focus({ preventScroll: true });
  }

  async function send() {
    const body = ui.textarea.value.trim();
    if (!body || !picked || ui.sendButton.disabled) {
      ui.textarea.focus();
      return;
    }
    ui.sendButton.disabled = true; // a second press (or Ctrl+Enter) while this one is on its way stores nothing
    try {
      await postComment(api, { branch, body, ...picked, author: author(), createdAt: new Date().toISOString() });
    } catch (error) {
      // in the composer, where the reviewer is looking, and announced (role=alert); text kept
      const message = error instanceof Error ? error.message : String(error);
      const why = /[.!?]$/.test(message) ? message : message + ".";
      ui.problem.textContent = "The comment was not sent: " + why + " Your text is kept; Send tries again.";
      ui.problem.hidden = false;
      return;
    } finally {
      ui.sendButton.disabled = false;
    }
    ui.problem.hidden = true;
    close();
    say("Comment sent.");
    sent();
  }

  function pageChanged() {
    if (!picked) return;
    outline(ui, null);
    ui.where.textContent = "For " + new URL(picked.context.url).pathname + ", where you picked the element.";
    ui.where.hidden = false;
  }

  ui.sendButton.addEventListener("click", () => void send());
  ui.cancelButton.addEventListener("click", close);
  ui.textarea.addEventListener("keydown", (event) => {
    if (event.key === "Escape") {
      event.preventDefault();
      close();
    }
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      void send();
    }
  });
  return { open, close, send, pageChanged, isOpen: () => picked !== null };
}

// --- overlay/entries.js ---
// The comment list's entries: each comment's text, status, author and resolution; a press on an
// entry shows its element; and, on the reviewer's own open comments, Edit and Delete.


/**
 * A comment's status as the reviewer reads it: "open", or "resolved in 1a2b3c4: the note".
 * @param {import("./types.js").StoredComment} comment
 * @returns {string}
 */
function describeStatus(comment) {
  const resolution = comment.resolution;
  if (comment.status !== "resolved" || !resolution) return comment.status;
  const commit = resolution.sha ? " in " + resolution.sha.slice(0, 7) : "";
  return "resolved" + commit + (resolution.note ? ": " + resolution.note : "");
}

/**
 * @typedef {object} EntryOptions
 * @property {string} api the route's address
 * @property {() => import("./reviewer.js").ReviewerName} reviewer who is reviewing here
 * @property {() => void} changed a comment was edited or deleted: read the comments again
 * @property {(element: Element) => void} show scrolls to the element and highlights it
 */

/**
 * Turns the entry's text into an editor with Save and Cancel; Save stores the new text.
 * @param {HTMLLIElement} item
 * @param {import("./types.js").StoredComment} comment
 * @param {EntryOptions} options
 */
function startEditing(item, comment, { api, reviewer, changed }) {
  const text = el("textarea", { class: "edit", "aria-label": "Comment" });
  text.value = comment.body;
  const problem = el("p", { class: "problem", role: "alert", hidden: "" });
  const save = el("button", { class: "save", type: "button" }, ["Save"]);
  const cancel = el("button", { class: "cancel", type: "button" }, ["Cancel"]);
  const editor = el("div", { class: "editor" }, [text, problem, el("div", { class: "row" }, [cancel, save])]);
  const shown = Array.from(item.childNodes);
  item.replaceChildren(editor);
  text.focus();
  cancel.addEventListener("click", () => item.replaceChildren(...shown));
  save.addEventListener("click", async () => {
    const body = text.value.trim();
    if (!body || save.disabled) return;
    save.disabled = true;
    try {
      await editComment(api, comment.id, body, reviewer().id);
    } catch (error) {
      problem.textContent = "Not saved: " + (error instanceof Error ? error.message : String(error));
      problem.hidden = false;
      return;
    } finally {
      save.disabled = false;
    }
    changed();
  });
}

/**
 * A function making the list entry for a comment, given whether its element is on the page.
 * @param {EntryOptions} options
 * @returns {(comment: import("./types.js").StoredComment, found: boolean) => HTMLLIElement}
 */
function entryMaker(options) {
  return (comment, found) => {
    const author = comment.author && comment.author.name;
    const status = el("div", { class: "status " + comment.status }, [
      describeStatus(comment) + (author ? " · " + author : "") + (found ? "" : " · element gone"),
    ]);
    const item = el("li", { tabindex: "0", "data-maple-comment": comment.id, "data-maple-status": comment.status }, [
      el("p", { class: "body" }, [comment.body]),
      status,
    ]);
    if (!found) item.setAttribute("data-maple-gone", "");
    const own = comment.author && comment.author.id === "browser:" + options.reviewer().id;
    if (own && comment.status === "open") {
      const edit = el("button", { class: "edit", type: "button" }, ["Edit"]);
      const remove = el("button", { class: "delete", type: "button" }, ["Delete"]);
      edit.addEventListener("click", () => startEditing(item, comment, options));
      remove.addEventListener("click", async () => {
        if (remove.getAttribute("data-confirm") === null) {
          remove.setAttribute("data-confirm", ""); // a second press deletes: one slip deletes nothing
          remove.textContent = "Delete for good";
          return;
        }
        remove.disabled = true;
        try {
          await deleteComment(options.api, comment.id, options.reviewer().id);
        } catch (error) {
          remove.disabled = false;
          status.textContent = "Not deleted: " + (error instanceof Error ? error.message : String(error));
          return;
        }
        options.changed();
      });
      item.append(el("div", { class: "row" }, [edit, remove]));
    }
    /** @param {Event} event */
    const show = (event) => {
      const inside = event.target instanceof Element && event.target.closest("button, textarea");
      const element = inside ? null : locate(comment); // as the page is now, not when listed
      if (element) options.show(element);
    };
    item.addEventListener("click", show);
    item.addEventListener("keydown", (event) => {
      if (event.key === "Enter" && event.target === item) show(event);
    });
    return item;
  };
}

// --- overlay/guard.js ---
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
function keepInputInOverlay(host) {
  for (const type of OVERLAY_EVENTS) host.addEventListener(type, (event) => event.stopPropagation());
}

/**
 * While `busy()`, pointer input on the page reaches neither the app nor the element under it (no
 * focus moves, nothing is clicked); a click on the page is given to `clicked` instead.
 * @param {HTMLElement} host
 * @param {() => boolean} busy
 * @param {(target: Element) => void} clicked
 */
function holdPagePointer(host, busy, clicked) {
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
    if (event.target instanceof Element) clicked(event.target);
  }, true);
}

/**
 * Whether the element that has focus got it from the keyboard (Tab, or a script while the
 * reviewer was typing) rather than from a click.
 * @returns {() => boolean}
 */
function trackFocusOrigin() {
  let pointerLast = false;
  let focusedByPointer = false;
  document.addEventListener("pointerdown", () => { pointerLast = true; }, true);
  document.addEventListener("keydown", () => { pointerLast = false; }, true);
  document.addEventListener("focusin", () => { focusedByPointer = pointerLast; }, true);
  return () => !focusedByPointer;
}

// --- overlay/navigation.js ---
// Client-side navigation: a single-page app changes the address with history.pushState or
// replaceState (no event fires for those) or the reviewer goes Back or Forward (popstate).

/**
 * Calls `changed` right after every change of the page's address that loads no new document.
 * @param {() => void} changed
 */
function onNavigation(changed) {
  let last = location.href;
  const check = () => {
    if (location.href === last) return;
    last = location.href;
    changed();
  };
  for (const name of /** @type {const} */ (["pushState", "replaceState"])) {
    const original = history[name];
    history[name] = function (data, unused, url) {
      original.call(this, data, unused, url);
      check();
    };
  }
  window.addEventListener("popstate", check);
  window.addEventListener("hashchange", check);
}

// --- overlay/pins.js ---
// The comments on the page: a numbered pin on each commented element and an entry in the list.


/**
 * Whether a comment belongs to the page now shown: matched by path, since the proxy's port
 * changes from run to run and the page does not (a comment with no URL belongs everywhere).
 * @param {import("./types.js").StoredComment} comment
 * @returns {boolean}
 */
function onThisPage(comment) {
  const url = comment.context && comment.context.url;
  if (!url) return true;
  try {
    return new URL(url).pathname === location.pathname;
  } catch {
    return true;
  }
}

/**
 * The part of the element's box that can be seen: none when it is hidden or scrolled out of the
 * viewport or out of a scrolling (or clipping) ancestor, so no pin is drawn for it; its pin goes
 * on the visible part, never over the header or footer around a scroller.
 * @param {Element} element
 * @returns {DOMRect | null}
 */
function visibleBox(element) {
  if (!element.checkVisibility({ visibilityProperty: true })) return null;
  const box = element.getBoundingClientRect();
  if (box.width === 0 && box.height === 0) return null;
  let top = Math.max(box.top, 0);
  let left = Math.max(box.left, 0);
  let bottom = Math.min(box.bottom, window.innerHeight);
  let right = Math.min(box.right, window.innerWidth);
  // up to the body: an overflow set on it or the root applies to the viewport, clipped above
  for (let node = element.parentElement; node && node !== document.body; node = node.parentElement) {
    const style = getComputedStyle(node);
    if (style.overflowX !== "visible" || style.overflowY !== "visible") {
      const clip = node.getBoundingClientRect();
      top = Math.max(top, clip.top);
      left = Math.max(left, clip.left);
      bottom = Math.min(bottom, clip.bottom);
      right = Math.min(right, clip.right);
    }
    if (style.position === "fixed") break; // no ancestor above a fixed element clips it
  }
  return bottom > top && right > left ? new DOMRect(left, top, right - left, bottom - top) : null;
}

/** A pin's size; pins on one element sit side by side, this far apart. */
const PIN_PX = 24;

/**
 * Where an element's pin goes: half over the top edge of its visible box, at the end of its
 * content (a heading as wide as the page gets its pin by its text, not 700 px away), further
 * right for each earlier comment on the same element.
 * @param {Element} element
 * @param {DOMRect} visible the element's visible box
 * @param {number} earlier how many comments on this element already have a pin
 * @returns {{ left: number, top: number }}
 */
function pinPlace(element, visible, earlier) {
  const content = document.createRange();
  content.selectNodeContents(element);
  const end = content.getBoundingClientRect();
  const right = end.width > 0 ? Math.min(visible.right, end.right + PIN_PX / 2) : visible.right;
  return {
    left: Math.max(0, right - PIN_PX / 2 + earlier * (PIN_PX + 2)),
    top: Math.max(0, visible.top - PIN_PX / 2),
  };
}

/**
 * The numbered pin for a comment.
 * @param {import("./types.js").StoredComment} comment
 * @param {number} number
 * @param {{ left: number, top: number }} at
 * @returns {HTMLDivElement}
 */
function pinFor(comment, number, at) {
  const pin = document.createElement("div");
  pin.className = "pin " + comment.status;
  pin.textContent = String(number);
  pin.title = comment.body + " (" + describeStatus(comment) + ")";
  pin.setAttribute("data-maple-comment", comment.id);
  pin.setAttribute("data-maple-status", comment.status);
  pin.style.left = at.left + "px";
  pin.style.top = at.top + "px";
  return pin;
}

/**
 * A function that redraws the pins and the list for those of the comments on this page (without
 * the resolved ones while `hideResolved()`). The list is rebuilt only when what it shows
 * changes, so a reviewer's focus in it survives a redraw.
 * @param {import("./ui.js").Ui} ui
 * @param {{ entry: (comment: import("./types.js").StoredComment, found: boolean) => HTMLLIElement,
 *   hideResolved: () => boolean }} options entry: makes a comment's list entry (see entries.js)
 * @returns {(comments: import("./types.js").StoredComment[]) => void}
 */
function pinBoard(ui, { entry, hideResolved }) {
  let listed = "";
  return (comments) => {
    const hide = hideResolved();
    const shown = comments.filter((c) => onThisPage(c) && !(hide && c.status === "resolved"));
    const found = shown.map(locate);
    const signature = JSON.stringify(
      shown.map((c, i) => [c.id, c.body, c.status, c.resolution, c.author, found[i] !== null]),
    );
    if (signature !== listed) {
      listed = signature;
      ui.list.replaceChildren(...shown.map((c, i) => entry(c, found[i] !== null)));
    }
    /** @type {HTMLDivElement[]} */
    const pins = [];
    /** @type {Map<Element, number>} */
    const pinned = new Map();
    shown.forEach((c, i) => {
      const element = found[i];
      const box = element && visibleBox(element);
      if (!element || !box) return;
      const earlier = pinned.get(element) || 0;
      pinned.set(element, earlier + 1);
      pins.push(pinFor(c, i + 1, pinPlace(element, box, earlier)));
    });
    ui.pins.replaceChildren(...pins);
    ui.count.textContent = String(shown.length);
  };
}

// --- overlay/reviewer.js ---
// Who the reviewer is, as this browser remembers them: an id made once and the name they typed,
// kept in localStorage for every page of every run on this proxy's origin, with whether they
// hide resolved comments. The route records
// them as the author of the comments sent from here (provenance "client"), and the overlay
// offers to edit or delete the comments that carry this id.

const REVIEWER_KEY = "maple:reviewer";

/**
 * @typedef {object} ReviewerName
 * @property {string} id this browser's own id, the same on every visit
 * @property {string} name what the reviewer calls themselves; empty until they say
 * @property {boolean} hideResolved whether they chose to hide resolved comments
 */

/**
 * A fresh id: a UUID where the browser makes them (a page on 127.0.0.1 or localhost is a
 * secure context), else random digits.
 * @returns {string}
 */
function newReviewerId() {
  if (typeof crypto !== "undefined" && typeof crypto.randomUUID === "function") return crypto.randomUUID();
  return Array.from({ length: 4 }, () => Math.random().toString(36).slice(2, 10)).join("-");
}

/**
 * The reviewer this browser remembers, made (and remembered) on the first visit. A browser that
 * refuses storage gets a reviewer for this page only.
 * @returns {ReviewerName}
 */
function rememberedReviewer() {
  try {
    const kept = JSON.parse(localStorage.getItem(REVIEWER_KEY) || "null");
    if (kept && typeof kept.id === "string" && kept.id && typeof kept.name === "string") {
      return { id: kept.id, name: kept.name, hideResolved: kept.hideResolved === true };
    }
  } catch {
    // unreadable or refused: start afresh below
  }
  const made = { id: newReviewerId(), name: "", hideResolved: false };
  rememberReviewer(made);
  return made;
}

/**
 * Keeps the reviewer for the next visit (silently not, where the browser refuses storage).
 * @param {ReviewerName} reviewer
 */
function rememberReviewer(reviewer) {
  try {
    localStorage.setItem(REVIEWER_KEY, JSON.stringify(reviewer));
  } catch {
    // storage refused (a private window's quota, a policy): the name lasts for this page
  }
}

// --- overlay/main.js ---
// maple review overlay: comment on a running app. Dependency-free, in its own shadow root.
// Injected by `maple review` with data-maple-branch, data-maple-api and data-maple-app. This is
// the entry module: tests/overlay_bundle.py joins it and the modules it imports into ../overlay.js.


const POLL_MS = 3000;
/** How long a list entry's element stays highlighted after the reviewer picks the entry. */
const SHOW_MS = 2000;

/**
 * Mounts the overlay, unless this is a frame or the page already has a Maple overlay.
 * @param {HTMLOrSVGScriptElement | null} script the overlay's own <script> tag
 */
function start(script) {
  if (!script || document.querySelector("[data-maple-overlay]")) return; // another overlay: stand down
  const branch = script.getAttribute("data-maple-branch") || "default";
  const api = script.getAttribute("data-maple-api") || "/__maple/api";
  const appOrigin = script.getAttribute("data-maple-app") || "";
  if (window.top !== window) return; // one overlay per tab, in the top page only

  const ui = buildUi();
  let picking = false;
  /** @type {import("./types.js").StoredComment[]} */
  let comments = [];

  /** @param {string} text */
  const say = (text) => {
    ui.live.textContent = text;
  };
  const reviewer = rememberedReviewer();
  ui.nameInput.value = reviewer.name;
  ui.hideResolvedBox.checked = reviewer.hideResolved;
  let showing = 0;
  /** @param {Element} element scrolled to the middle of the view and highlighted a moment */
  const show = (element) => {
    element.scrollIntoView({ block: "center", inline: "nearest" });
    outline(ui, element);
    ui.box.classList.add("shown");
    clearTimeout(showing);
    showing = setTimeout(() => {
      ui.box.classList.remove("shown");
      if (!picking) outline(ui, null);
    }, SHOW_MS);
  };
  // for the entries' own edits and deletes, before `refresh` below is defined
  const changed = () => void refresh();
  const place = pinBoard(ui, {
    entry: entryMaker({ api, reviewer: () => reviewer, changed, show }),
    hideResolved: () => reviewer.hideResolved,
  });
  let drawing = 0;
  // at most once a frame, after the app has rendered what changed
  const redraw = () => {
    if (drawing) return;
    drawing = requestAnimationFrame(() => {
      drawing = 0;
      place(comments);
    });
  };
  const refresh = async () => {
    const listed = await listComments(api, branch);
    if (listed) comments = listed;
    redraw();
  };
  const composer = createComposer(ui, {
    api, appOrigin, branch, say, sent: changed, author: () => ({ id: reviewer.id, name: reviewer.name }),
  });
  ui.nameInput.addEventListener("input", () => {
    reviewer.name = ui.nameInput.value.trim();
    rememberReviewer(reviewer);
  });
  ui.hideResolvedBox.addEventListener("change", () => {
    reviewer.hideResolved = ui.hideResolvedBox.checked;
    rememberReviewer(reviewer);
    redraw();
  });
  const focusFromKeyboard = trackFocusOrigin();

  /** @param {boolean} on */
  function setPicking(on) {
    picking = on;
    ui.modeButton.setAttribute("aria-pressed", on ? "true" : "false");
    if (!on) outline(ui, null);
    say(on ? "Comment mode: click an element, or press Enter on the focused one. Escape leaves." : "");
  }

  /** @param {Element} element */
  function compose(element) {
    setPicking(false);
    composer.open(element);
  }

  ui.modeButton.addEventListener("click", () => setPicking(!picking));
  ui.listButton.addEventListener("click", () => {
    const open = ui.panel.style.display !== "block";
    ui.panel.style.display = open ? "block" : "none";
    ui.listButton.setAttribute("aria-expanded", open ? "true" : "false");
  });

  document.addEventListener("mousemove", (event) => {
    if (!picking) return;
    const element = document.elementFromPoint(event.clientX, event.clientY);
    if (element && element !== ui.host) outline(ui, element);
  }, true);
  keepInputInOverlay(ui.host);
  holdPagePointer(ui.host, () => picking || composer.isOpen(), (target) => {
    if (picking) compose(target);
  });
  // The overlay's own keys are consumed here, before the app's listeners could see them.
  document.addEventListener("keydown", (event) => {
    const focused = document.activeElement;
    const onPage = focused && focused !== document.body && focused !== ui.host ? focused : null;
    /** @param {() => void} action */
    const take = (action) => {
      event.preventDefault();
      event.stopPropagation();
      action();
    };
    if (event.altKey && event.shiftKey && event.code === "KeyC") {
      // on the element the reviewer tabbed to; after a click, pick (focus may be long stale)
      if (composer.isOpen()) take(() => ui.textarea.focus());
      else if (onPage && focusFromKeyboard()) take(() => compose(onPage));
      else take(() => setPicking(!picking));
    } else if (event.altKey && event.shiftKey && event.code === "KeyL") {
      take(() => ui.listButton.click());
    } else if (picking && event.key === "Escape") {
      take(() => setPicking(false));
    } else if (picking && event.key === "Enter" && onPage) {
      take(() => compose(onPage));
    }
  }, true);
  onNavigation(() => {
    composer.pageChanged();
    redraw();
  });
  // the app renders the new page's elements after the address changes, maybe asynchronously
  new MutationObserver(redraw).observe(document.documentElement, {
    childList: true, subtree: true, attributes: true, characterData: true,
  });
  // in the capture phase, a scroll of any element (a list in a scroll container), not only the page's
  document.addEventListener("scroll", redraw, { capture: true, passive: true });
  window.addEventListener("resize", redraw);

  void refresh();
  setInterval(() => void refresh(), POLL_MS);
}

start(document.currentScript);
})();
