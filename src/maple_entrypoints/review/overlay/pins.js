// The comments on the page: a numbered pin on each commented element and an entry in the list.

/**
 * Whether a comment belongs to the page now shown: matched by path, since the proxy's port
 * changes from run to run and the page does not (a comment with no URL belongs everywhere).
 * @param {import("./types.js").StoredComment} comment
 * @returns {boolean}
 */
export function onThisPage(comment) {
  const url = comment.context && comment.context.url;
  if (!url) return true;
  try {
    return new URL(url).pathname === location.pathname;
  } catch {
    return true;
  }
}

/**
 * The element a comment's selector finds, or null (no selector, a broken one, or no match).
 * @param {import("./types.js").StoredComment} comment
 * @returns {Element | null}
 */
export function elementOf(comment) {
  const selector = comment.anchor && comment.anchor.selector;
  if (!selector) return null;
  try {
    return document.querySelector(selector);
  } catch {
    return null;
  }
}

/**
 * The list entry for a comment.
 * @param {import("./types.js").StoredComment} comment
 * @param {boolean} found whether its element is on the page
 * @returns {HTMLLIElement}
 */
function listItem(comment, found) {
  const item = document.createElement("li");
  item.tabIndex = 0;
  const status = document.createElement("div");
  status.className = "status " + comment.status;
  status.textContent = comment.status + (found ? "" : " · not on this page");
  item.append(comment.body, status);
  item.setAttribute("data-maple-comment", comment.id);
  item.setAttribute("data-maple-status", comment.status);
  return item;
}

/**
 * The numbered pin for a comment on `element`.
 * @param {import("./types.js").StoredComment} comment
 * @param {number} number
 * @param {Element} element
 * @returns {HTMLDivElement}
 */
function pinFor(comment, number, element) {
  const r = element.getBoundingClientRect();
  const pin = document.createElement("div");
  pin.className = "pin " + comment.status;
  pin.textContent = String(number);
  pin.title = comment.body + " (" + comment.status + ")";
  pin.setAttribute("data-maple-comment", comment.id);
  pin.setAttribute("data-maple-status", comment.status);
  pin.style.left = Math.max(0, r.right - 12) + "px";
  pin.style.top = Math.max(0, r.top - 12) + "px";
  return pin;
}

/**
 * A function that redraws the pins and the list for those of the comments on this page. The list
 * is rebuilt only when what it shows changes, so a reviewer's focus in it survives a redraw.
 * @param {import("./ui.js").Ui} ui
 * @returns {(comments: import("./types.js").StoredComment[]) => void}
 */
export function pinBoard(ui) {
  let listed = "";
  return (comments) => {
    const shown = comments.filter(onThisPage);
    const found = shown.map(elementOf);
    const signature = JSON.stringify(shown.map((c, i) => [c.id, c.body, c.status, found[i] !== null]));
    if (signature !== listed) {
      listed = signature;
      ui.list.replaceChildren(...shown.map((c, i) => listItem(c, found[i] !== null)));
    }
    /** @type {HTMLDivElement[]} */
    const pins = [];
    shown.forEach((c, i) => {
      const element = found[i];
      if (element) pins.push(pinFor(c, i + 1, element));
    });
    ui.pins.replaceChildren(...pins);
    ui.count.textContent = String(shown.length);
  };
}
