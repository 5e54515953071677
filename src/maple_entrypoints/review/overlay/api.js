// The route under the proxy's /__maple/api: list this branch's comments, post a new one.

/**
 * The branch's comments, or null when they could not be read.
 * @param {string} api
 * @param {string} branch
 * @returns {Promise<import("./types.js").StoredComment[] | null>}
 */
export async function listComments(api, branch) {
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
export async function postComment(api, comment) {
  const answer = await fetch(api + "/comments", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(comment),
    credentials: "same-origin",
  });
  if (!answer.ok) {
    /** @type {{ error?: string }} */
    const problem = await answer.json().catch(() => ({}));
    throw new Error(problem.error || "the route answered " + answer.status);
  }
}
