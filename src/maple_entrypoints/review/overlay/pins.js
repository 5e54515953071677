// The comments on the page: a numbered pin on each commented element and an entry in the list.

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
 * Redraws the pins and the list for `comments`.
 * @param {import("./ui.js").Ui} ui
 * @param {import("./types.js").StoredComment[]} comments
 */
export function place(ui, comments) {
  ui.pins.textContent = "";
  ui.list.textContent = "";
  comments.forEach((c, i) => {
    const item = document.createElement("li");
    item.tabIndex = 0;
    const status = document.createElement("div");
    status.className = "status " + c.status;
    const element = elementOf(c);
    status.textContent = c.status + (element ? "" : " · not on this page");
    item.appendChild(document.createTextNode(c.body));
    item.appendChild(status);
    item.setAttribute("data-maple-comment", c.id);
    item.setAttribute("data-maple-status", c.status);
    ui.list.appendChild(item);
    if (!element) return;
    const r = element.getBoundingClientRect();
    const pin = document.createElement("div");
    pin.className = "pin " + c.status;
    pin.textContent = String(i + 1);
    pin.title = c.body + " (" + c.status + ")";
    pin.setAttribute("data-maple-comment", c.id);
    pin.setAttribute("data-maple-status", c.status);
    pin.style.left = Math.max(0, r.right - 12) + "px";
    pin.style.top = Math.max(0, r.top - 12) + "px";
    ui.pins.appendChild(pin);
  });
  ui.count.textContent = String(comments.length);
}
