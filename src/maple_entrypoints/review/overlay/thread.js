// A comment's thread in its list entry: the agent's and the reviewers' entries (an agent's
// question waiting for the reviewer marked as one), what maple understood from a reply (with
// Undo on the reviewer's own), "Confirmed by <name>" under a confirmed resolution, and the
// reviewer's answers: Reply, Reopen (with a reason) and Confirm. Every word in a thread is
// someone else's: it is shown as text, never parsed as HTML.

import { postThread, undoReading } from "./api.js";
import { textHash } from "./digest.js";
import { el } from "./ui.js";

/**
 * @typedef {import("./types.js").Reply} Reply
 * @typedef {import("./types.js").Reading} Reading
 * @typedef {import("./types.js").StoredComment} StoredComment
 */

/**
 * @typedef {object} ThreadOptions
 * @property {string} api the route's address
 * @property {() => { id: string, name: string }} author who answers, as this browser names them
 * @property {() => void} changed the thread changed: read the comments again
 * @property {Map<string, ThreadDraft>} drafts what the reviewer is writing, by comment id, kept
 *   while the list is rebuilt under them
 */

/**
 * @typedef {object} ThreadDraft A reply or reopening being written.
 * @property {"reply" | "reopen"} kind
 * @property {string} text
 */

/**
 * The comment's thread, entries that are not objects left out.
 * @param {StoredComment} comment
 * @returns {Reply[]}
 */
export function threadOf(comment) {
  return Array.isArray(comment.replies) ? comment.replies.filter((r) => r && typeof r === "object") : [];
}

/**
 * True when the agent's latest words are a question no reviewer has answered yet.
 * @param {StoredComment} comment
 * @returns {boolean}
 */
export function awaitingReviewer(comment) {
  const thread = threadOf(comment);
  for (let i = thread.length - 1; i >= 0; i--) {
    const reply = thread[i];
    if (reply.role !== "agent") return false;
    if ((reply.kind || "reply") === "reply") return reply.question === true;
  }
  return false;
}

/**
 * The reviewer's confirmation of the comment's current resolution, if any: one naming its
 * commit and time, with no reopening after it, and (for one maple made from a reply) whose
 * reading still stands (as maple_core.conversation.confirmation_of).
 * @param {StoredComment} comment
 * @returns {Reply | null}
 */
export function confirmationOf(comment) {
  const resolution = comment.resolution;
  if (comment.status !== "resolved" || !resolution) return null;
  const thread = threadOf(comment);
  for (let i = thread.length - 1; i >= 0; i--) {
    const reply = thread[i];
    if (reply.kind === "reopen") return null;
    const named = reply.resolution;
    if (reply.kind === "confirm" && reply.role === "reviewer" && named && named.sha === resolution.sha &&
      named.at === resolution.at && !withdrawn(reply, thread)) return reply;
  }
  return null;
}

/**
 * True when `entry` was made from a reading that no longer stands: undone, not a confirming
 * one, or of words edited since (as maple_core.conversation.withdrawn).
 * @param {Reply} entry
 * @param {Reply[]} thread
 * @returns {boolean}
 */
function withdrawn(entry, thread) {
  if (typeof entry.classified !== "string") return false;
  const source = thread.find((r) => r.id === entry.classified);
  if (!source) return false;
  const reading = source.classification;
  if (!reading || typeof reading !== "object") return true;
  const confirming = reading.applied === "confirm" || reading.applied === "confirm-and-open-remarks";
  return Boolean(reading.undone) || !confirming || reading.textHash !== textHash(source.body || "");
}

/** @type {Record<string, string>} */
const READ_AS = {
  approved: "approval",
  "approved-with-comments": "approval with remarks",
  "changes-requested": "changes requested",
  wait: "not decisive yet",
};

/** @type {Record<string, string>} */
const DONE = {
  confirm: "confirmed the resolution",
  "confirm-and-open-remarks": "confirmed the resolution and opened the remarks as comments",
  reopen: "reopened the comment",
  none: "changed nothing",
};

/**
 * What maple understood from a reply, in one sentence for the reviewer, or "" when it read
 * nothing there.
 * @param {Reply} reply
 * @returns {string}
 */
export function understood(reply) {
  const reading = reply.classification;
  if (!reading || typeof reading !== "object" || !reading.outcome) return "";
  let line = reading.note && reading.outcome === "wait"
    ? "maple could not tell what this means (" + reading.note + "), so it changed nothing"
    : "maple read this as " + (READ_AS[reading.outcome] || reading.outcome) + " and " +
      (DONE[reading.applied || "none"] || DONE.none);
  if (reading.why) line += ": " + reading.why;
  if (reading.undone) {
    const by = reading.undone.by && reading.undone.by.name;
    line += " · undone" + (by ? " by " + by : "");
  } else if (reading.textHash && reading.textHash !== textHash(reply.body || "")) {
    line += " · the words changed since, so it no longer counts";
  }
  return line;
}

/**
 * Who wrote an entry, as the reviewer reads it: the author's name, "the agent" for the agent's
 * words with nobody named.
 * @param {Reply} reply
 * @returns {string}
 */
function writerOf(reply) {
  const author = reply.author || {};
  const name = typeof author.name === "string" ? author.name.trim() : "";
  const named = name && author.provenance !== "guest" ? name : "";
  if (reply.role === "agent") return (named ? named + " (agent)" : "Agent") + signed(reply.by);
  return name || "Reviewer";
}

/**
 * Which agent, model and session wrote something, as words after its writer's name:
 * " · claude-code · claude-sonnet-4-5 · session ms-1a2b3c"; nothing when unsigned.
 * @param {import("./types.js").Signature | undefined} by
 * @returns {string}
 */
export function signed(by) {
  if (!by || typeof by !== "object") return "";
  const parts = [by.agent, by.model, by.session ? "session " + by.session : undefined]
    .filter((part) => typeof part === "string" && part)
    .map((part) => String(part).slice(0, 80));
  return parts.length ? " · " + parts.join(" · ") : "";
}

/**
 * What an entry did, when more than words: "reopened it", "confirmed the resolution"…
 * @param {Reply} reply
 * @returns {string}
 */
function deedOf(reply) {
  const sha = reply.resolution && typeof reply.resolution.sha === "string" ? reply.resolution.sha.slice(0, 7) : "";
  const read = typeof reply.classified === "string" ? " (maple, from their reply)" : "";
  if (reply.kind === "reopen") return "reopened it" + read;
  if (reply.kind === "confirm") return "confirmed the resolution" + (sha ? " in " + sha : "") + read;
  if (reply.kind === "resolve") return "resolved it again" + (sha ? " in " + sha : "");
  return "";
}

/**
 * The line saying what maple understood from `reply`, with Undo when the reply is this
 * reviewer's and its reading changed something that still stands.
 * @param {StoredComment} comment
 * @param {Reply} reply
 * @param {ThreadOptions} options
 * @returns {HTMLDivElement | null}
 */
function readingLine(comment, reply, options) {
  const said = understood(reply);
  const reading = reply.classification;
  if (!said || !reading) return null;
  const line = el("div", {
    class: "understood",
    "data-maple-outcome": String(reading.outcome || ""),
    "data-maple-applied": String(reading.applied || "none"),
  }, [said]);
  const author = reply.author || {};
  const mine = author.id === "browser:" + options.author().id;
  if (mine && !reading.undone && reading.applied && reading.applied !== "none") {
    const undo = el("button", { class: "undo", type: "button", title: "Undo what maple understood" }, ["Undo"]);
    const problem = el("span", { class: "problem", role: "alert", hidden: "" });
    undo.addEventListener("click", async () => {
      if (undo.disabled) return;
      undo.disabled = true;
      try {
        await undoReading(options.api, comment.id, { entry: String(reply.id), branch: comment.branch, author: options.author() });
      } catch (error) {
        problem.textContent = "Not undone: " + (error instanceof Error ? error.message : String(error));
        problem.hidden = false;
        undo.disabled = false;
        return;
      }
      options.changed();
    });
    line.append(" ", undo, problem);
  }
  return line;
}

/**
 * The list of a comment's thread entries, oldest first.
 * @param {StoredComment} comment
 * @param {ThreadOptions} options
 * @returns {HTMLOListElement}
 */
function threadList(comment, options) {
  const thread = threadOf(comment);
  const waiting = awaitingReviewer(comment);
  let lastQuestion = -1;
  thread.forEach((reply, i) => {
    if (reply.question === true) lastQuestion = i;
  });
  return el("ol", { class: "thread", "aria-label": "Replies" }, thread.map((reply, i) => {
    const deed = deedOf(reply);
    const head = el("div", { class: "who" }, [writerOf(reply) + (deed ? " " + deed : "")]);
    const entry = el("li", {
      class: "reply " + (reply.role === "agent" ? "agent" : "reviewer"),
      "data-maple-reply": String(reply.id || ""),
      "data-maple-kind": String(reply.kind || "reply"),
      "data-maple-role": reply.role === "agent" ? "agent" : "reviewer",
    }, [head]);
    if (reply.question === true) {
      const open = waiting && i === lastQuestion;
      entry.setAttribute("data-maple-question", open ? "waiting" : "answered");
      head.prepend(el("span", { class: "asks" }, [open ? "Question for you" : "Question"]), " ");
    }
    if (reply.body) entry.append(el("p", { class: "said" }, [reply.body]));
    const reading = readingLine(comment, reply, options);
    if (reading) entry.append(reading);
    return entry;
  }));
}

/**
 * Posts one thread event, showing the route's reason in `problem` when it is refused.
 * @param {HTMLButtonElement} button pressed; disabled while the event is on its way
 * @param {HTMLElement} problem
 * @param {StoredComment} comment
 * @param {{ kind: "reply" | "reopen" | "confirm", body: string }} event
 * @param {ThreadOptions} options
 * @returns {Promise<boolean>} whether it was stored
 */
async function answer(button, problem, comment, event, options) {
  if (button.disabled) return false;
  button.disabled = true;
  problem.hidden = true;
  try {
    await postThread(options.api, comment.id, { ...event, author: options.author() });
  } catch (error) {
    problem.textContent = "Not sent: " + (error instanceof Error ? error.message : String(error));
    problem.hidden = false;
    return false;
  } finally {
    button.disabled = false;
  }
  options.drafts.delete(comment.id);
  options.changed();
  return true;
}

/**
 * A comment's thread, "Confirmed by <name>" and the reviewer's controls, for its list entry.
 * @param {StoredComment} comment
 * @param {ThreadOptions} options
 * @returns {HTMLDivElement}
 */
export function threadSection(comment, options) {
  const problem = el("p", { class: "problem", role: "alert", hidden: "" });
  const section = el("div", { class: "conversation" });
  if (threadOf(comment).length) section.append(threadList(comment, options));
  if (awaitingReviewer(comment)) section.setAttribute("data-maple-waiting", "");
  const resolved = comment.status === "resolved" && comment.resolution;
  const confirmation = confirmationOf(comment);
  if (confirmation) {
    section.append(el("div", { class: "confirmed" }, ["Confirmed by " + writerOf(confirmation)]));
  }
  const form = el("div", { class: "writer", hidden: "" });
  const buttons = el("div", { class: "row" });

  /** @param {"reply" | "reopen"} kind */
  const write = (kind) => {
    const draft = options.drafts.get(comment.id);
    const text = el("textarea", {
      "data-maple-field": kind,
      "aria-label": kind === "reply" ? "Your reply" : "Why reopen it? (required)",
      placeholder: kind === "reply" ? "Reply…" : "What is still wrong?",
      maxlength: "10000",
    });
    text.value = draft && draft.kind === kind ? draft.text : "";
    options.drafts.set(comment.id, { kind, text: text.value });
    const send = el("button", { class: kind === "reply" ? "reply-send" : "reopen-send", type: "button" }, [
      kind === "reply" ? "Send reply" : "Reopen comment",
    ]);
    const cancel = el("button", { class: "cancel", type: "button" }, ["Cancel"]);
    const go = async () => {
      const body = text.value.trim();
      if (!body) {
        problem.textContent = kind === "reply" ? "Write a reply first." : "Say why it needs reopening.";
        problem.hidden = false;
        text.focus();
        return;
      }
      await answer(send, problem, comment, { kind, body }, options);
    };
    text.addEventListener("input", () => options.drafts.set(comment.id, { kind, text: text.value }));
    text.addEventListener("keydown", (event) => {
      if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) void go();
      if (event.key === "Escape") cancel.click();
    });
    send.addEventListener("click", () => void go());
    cancel.addEventListener("click", () => {
      options.drafts.delete(comment.id);
      problem.hidden = true;
      form.replaceChildren();
      form.hidden = true;
      buttons.hidden = false;
    });
    form.replaceChildren(text, el("div", { class: "row" }, [cancel, send]));
    form.hidden = false;
    buttons.hidden = true;
    return text;
  };

  const reply = el("button", { class: "reply", type: "button" }, ["Reply"]);
  reply.addEventListener("click", () => write("reply").focus());
  buttons.append(reply);
  if (resolved) {
    const reopen = el("button", { class: "reopen", type: "button" }, ["Reopen"]);
    reopen.addEventListener("click", () => write("reopen").focus());
    buttons.append(reopen);
    // Offered too while the confirmation standing is one maple made from a reading, which an
    // undo or an edit withdraws: pressing it makes the confirmation the reviewer's own.
    if (!confirmation || typeof confirmation.classified === "string") {
      const confirm = el("button", { class: "confirm", type: "button", title: "Confirm the resolution" }, ["Confirm"]);
      confirm.addEventListener("click", () => void answer(confirm, problem, comment, { kind: "confirm", body: "" }, options));
      buttons.append(confirm);
    }
  }
  section.append(buttons, form, problem);
  const draft = options.drafts.get(comment.id);
  if (draft && (draft.kind === "reply" || resolved)) write(draft.kind); // the list was rebuilt mid-sentence
  else options.drafts.delete(comment.id); // a reopening begun on a comment no longer resolved
  return section;
}
