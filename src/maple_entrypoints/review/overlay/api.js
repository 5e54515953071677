// The route under the proxy's /__maple/api: list this branch's comments, post a new one, edit
// or delete one of the reviewer's own while it is open, answer in a comment's thread, and undo
// what maple understood from a reply.

/**
 * The branch's comments, or null when they could not be read.
 * @param {string} api
 * @param {string} branch
 * @returns {Promise<import("./types.js").StoredComment[] | null>}
 */
export async function listComments(api, branch) {
  const listed = await listChanged(api, branch, null);
  return listed === "unchanged" ? null : listed && listed.comments;
}

/**
 * The branch's comments and their ETag, "unchanged" when they are still the ones `etag` names
 * (the route's 304: cheap enough to ask twice a second), or null when they could not be read.
 * @param {string} api
 * @param {string} branch
 * @param {string | null} etag
 * @returns {Promise<{ comments: import("./types.js").StoredComment[], etag: string | null } | "unchanged" | null>}
 */
export async function listChanged(api, branch, etag) {
  try {
    const answer = await fetch(api + "/comments?branch=" + encodeURIComponent(branch), {
      credentials: "same-origin",
      cache: "no-store",
      headers: etag ? { "if-none-match": etag } : {},
    });
    if (answer.status === 304) return "unchanged";
    if (!answer.ok) return null;
    /** @type {{ comments?: import("./types.js").StoredComment[] }} */
    const page = await answer.json();
    return { comments: page.comments || [], etag: answer.headers.get("etag") };
  } catch {
    return null;
  }
}

/**
 * The route's reason for refusing a request, as an error to throw.
 * @param {Response} answer
 * @returns {Promise<Error>}
 */
async function refusal(answer) {
  /** @type {{ error?: string }} */
  const problem = await answer.json().catch(() => ({}));
  return new Error(problem.error || "the route answered " + answer.status);
}

/**
 * Posts `body` as JSON to `url`; rejects with the route's reason when it is refused.
 * @param {string} url
 * @param {unknown} body
 * @returns {Promise<void>}
 */
async function postJson(url, body) {
  const answer = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
    credentials: "same-origin",
  });
  if (!answer.ok) throw await refusal(answer);
}

/**
 * Posts a comment; rejects with the route's error message when it is refused.
 * @param {string} api
 * @param {import("./types.js").NewComment} comment
 * @returns {Promise<void>}
 */
export async function postComment(api, comment) {
  await postJson(api + "/comments", comment);
}

/**
 * Stores an image through the route's /media; its answer is the reference a comment attaches.
 * Null when this deployment keeps no images (404); rejects with the route's message otherwise.
 * @param {string} api
 * @param {Blob} image
 * @returns {Promise<import("./types.js").MediaRef | null>}
 */
export async function postMedia(api, image) {
  const answer = await fetch(api + "/media", {
    method: "POST",
    headers: { "content-type": image.type },
    body: image,
    credentials: "same-origin",
  });
  if (answer.status === 404) return null;
  if (!answer.ok) throw await refusal(answer);
  return answer.json();
}

/**
 * Replaces the body of one of the reviewer's open comments; rejects with the route's reason.
 * @param {string} api
 * @param {string} id the comment's id
 * @param {string} body
 * @param {string} authorId this browser's reviewer id (see reviewer.js), which wrote it
 * @returns {Promise<void>}
 */
export async function editComment(api, id, body, authorId) {
  const answer = await fetch(api + "/comments/" + encodeURIComponent(id), {
    method: "PATCH",
    headers: { "content-type": "application/json", "x-maple-author": authorId },
    body: JSON.stringify({ body }),
    credentials: "same-origin",
  });
  if (!answer.ok) throw await refusal(answer);
}

/**
 * Deletes one of the reviewer's open comments; rejects with the route's reason.
 * @param {string} api
 * @param {string} id the comment's id
 * @param {string} authorId this browser's reviewer id, which wrote it
 * @returns {Promise<void>}
 */
export async function deleteComment(api, id, authorId) {
  const answer = await fetch(api + "/comments/" + encodeURIComponent(id), {
    method: "DELETE",
    headers: { "x-maple-author": authorId },
    credentials: "same-origin",
  });
  if (!answer.ok) throw await refusal(answer);
}

/**
 * Adds the reviewer's reply, reopening or confirmation to a comment's thread; rejects with the
 * route's reason (a reopening of a comment no longer resolved, say).
 * @param {string} api
 * @param {string} id the comment's id
 * @param {import("./types.js").ThreadEvent} event
 * @returns {Promise<void>}
 */
export async function postThread(api, id, event) {
  await postJson(api + "/comments/" + encodeURIComponent(id) + "/thread", event);
}

/**
 * Undoes what maple understood from one of the reviewer's replies (its confirmation stops
 * counting, a reopening it made is undone); rejects with the route's reason.
 * @param {string} api
 * @param {string} id the comment's id
 * @param {{ entry: string, branch: string, author: { id: string, name: string } }} undo
 * @returns {Promise<void>}
 */
export async function undoReading(api, id, undo) {
  await postJson(api + "/comments/" + encodeURIComponent(id) + "/classification/undo", undo);
}
