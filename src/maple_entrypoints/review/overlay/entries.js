// The comment list's entries: each comment's text, status, author and resolution, and its
// thread with Reply, Reopen and Confirm (thread.js); a press on an entry shows its element; and,
// on the reviewer's own open comments, Edit and Delete.

import { deleteComment, editComment } from "./api.js";
import { locate } from "./locate.js";
import { presenceOf, presenceText } from "./presence.js";
import { signed, threadSection } from "./thread.js";
import { el } from "./ui.js";

/**
 * A comment's status as the reviewer reads it: "open", or "resolved in 1a2b3c4: the note".
 * @param {import("./types.js").StoredComment} comment
 * @returns {string}
 */
export function describeStatus(comment) {
  const resolution = comment.resolution;
  if (comment.status !== "resolved" || !resolution) return comment.status;
  const commit = resolution.sha ? " in " + resolution.sha.slice(0, 7) : "";
  const by = signed(resolution.by);
  return "resolved" + commit + (by ? " (by" + by.replace(/^ ·/, "") + ")" : "") +
    (resolution.note ? ": " + resolution.note : "");
}

/**
 * @typedef {object} EntryOptions
 * @property {string} api the route's address
 * @property {() => import("./reviewer.js").ReviewerName} reviewer who is reviewing here
 * @property {() => void} changed a comment was edited or deleted: read the comments again
 * @property {(element: Element) => void} show scrolls to the element and highlights it
 * @property {string} sources the working tree's path (see framework.js)
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

/** What the list says of a comment whose element is not found (see locate.js). */
const NOT_FOUND = {
  moved: " · element moved: it cannot be told apart on this page",
  gone: " · element gone",
};

/**
 * A function making the list entry for a comment, given whether its element is on the page.
 * @param {EntryOptions} options
 * @returns {(comment: import("./types.js").StoredComment, finding: import("./locate.js").Finding) => HTMLLIElement}
 */
export function entryMaker(options) {
  /** @type {Map<string, import("./thread.js").ThreadDraft>} */
  const drafts = new Map(); // outlives the entries: the list is rebuilt when a comment changes
  const answerer = () => ({ id: options.reviewer().id, name: options.reviewer().name });
  return (comment, finding) => {
    const author = comment.author && comment.author.name;
    const status = el("div", { class: "status " + comment.status }, [
      describeStatus(comment) + (author ? " · " + author : "") + (finding === "found" ? "" : NOT_FOUND[finding]),
    ]);
    const presence = presenceOf(comment, Date.now());
    const item = el("li", {
      tabindex: "0",
      "data-maple-comment": comment.id,
      "data-maple-status": comment.status,
      "data-maple-presence": presence.kind,
    }, [
      el("p", { class: "body" }, [comment.body]),
      status,
      el("div", { class: "presence " + presence.kind }, [presenceText(presence)]),
    ]);
    if (finding !== "found") item.setAttribute("data-maple-" + finding, "");
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
    item.append(threadSection(comment, { api: options.api, author: answerer, changed: options.changed, drafts }));
    /** @param {Event} event */
    const show = (event) => {
      const inside = event.target instanceof Element && event.target.closest("button, textarea");
      const element = inside ? null : locate(comment, options.sources); // as the page is now
      if (element) options.show(element);
    };
    item.addEventListener("click", show);
    item.addEventListener("keydown", (event) => {
      if (event.key === "Enter" && event.target === item) show(event);
    });
    return item;
  };
}
