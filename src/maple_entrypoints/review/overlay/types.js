// The shapes the overlay sends to and reads from the route (Maple's comment record), as JSDoc
// types for `tsc`. Types only: nothing here runs, and the bundle leaves this file out.

/**
 * @typedef {object} Quote The element's text, with the text just before and after it.
 * @property {string} exact
 * @property {string} [prefix]
 * @property {string} [suffix]
 */

/**
 * @typedef {object} Anchor Where a comment points on the page (Maple's anchor, with extra keys
 *   Maple keeps as written: within, ancestry, box, markup).
 * @property {string} selector in the element's own document or shadow root
 * @property {string[]} [within] from the top page down, a selector for each shadow host or
 *   same-origin iframe the element is in
 * @property {Quote} [quote]
 * @property {string} [source] `path:line:col` in the working tree: `data-maple-src`, or from
 *   the framework's development data
 * @property {string} [component] the component that made the element, in a development build
 * @property {"tagger" | "owner-stack"} [locatedBy] how `source` was found
 * @property {string} [key] `data-maple-key` of the element or an ancestor
 * @property {string} [ancestry] the element's tag and its ancestors', `p < li < ul < main`
 * @property {Box} [box] the element's box on the page when it was picked
 * @property {string} [markup] a redacted copy of the markup around it, for the agent
 */

/**
 * @typedef {object} Box An element's border box in CSS pixels, from the page's top left corner.
 * @property {number} x
 * @property {number} y
 * @property {number} width
 * @property {number} height
 */

/**
 * @typedef {object} PageContext What the reviewer saw the page as.
 * @property {string} url
 * @property {number} viewportWidth
 * @property {number} viewportHeight
 * @property {number} devicePixelRatio
 * @property {"dark" | "light"} colorScheme
 */

/**
 * @typedef {object} MediaRef Where the route stored an image (its answer to POST /media).
 * @property {string} connector
 * @property {string} key
 * @property {string} contentType
 */

/**
 * @typedef {MediaRef & { source: "capture" | "offered" }} Attachment Maple's attachment: the
 *   overlay's capture of the page, or an image the reviewer pasted or dropped.
 */

/**
 * @typedef {object} Point A point in the viewport, CSS pixels.
 * @property {number} x
 * @property {number} y
 */

/**
 * @typedef {object} PickGeometry Where the reviewer picked, in the viewport (CSS pixels), kept
 *   in the comment's context (extra keys Maple keeps as written).
 * @property {import("./capture.js").Rect} [elementBox] the element's border box
 * @property {Point} [clickPoint] where they clicked (the element's centre when picked by keyboard)
 * @property {import("./capture.js").Rect} [captureArea] the part of the viewport the capture shows
 */

/**
 * @typedef {object} NewComment The body of a POST to the route's /comments.
 * @property {string} branch
 * @property {string} body
 * @property {Anchor} anchor
 * @property {PageContext & PickGeometry} context
 * @property {string} createdAt
 * @property {Attachment[]} [attachments]
 * @property {{ id: string, name: string }} [author] who wrote it, as this browser names them
 */

/**
 * @typedef {object} StoredComment A comment as the route lists it.
 * @property {string} id
 * @property {string} branch
 * @property {string} body
 * @property {string} status
 * @property {Partial<Anchor>} [anchor]
 * @property {Partial<PageContext>} [context]
 * @property {{ id?: string, name?: string }} [author]
 * @property {Resolution} [resolution] present once something claimed to resolve it
 * @property {Reply[]} [replies] the comment's thread (maple's; Maple keeps it unread)
 * @property {Claim} [claim] the agent session on it (maple's; live until `expires`)
 */

/**
 * @typedef {object} Claim An agent session's lease on a comment (maple's `claim` key).
 * @property {string} agent the agent's name, as its client gives it
 * @property {string} session the session's id
 * @property {string} since when the claim began
 * @property {string} expires when it lapses unless the session renews it
 */

/**
 * @typedef {object} Signature Which agent, model and session wrote an entry or a resolution.
 * @property {string} [agent]
 * @property {string} [model]
 * @property {string} [session]
 */

/**
 * @typedef {object} Reply One entry in a comment's thread, as the route lists it.
 * @property {string} [id]
 * @property {"agent" | "reviewer"} [role]
 * @property {"reply" | "reopen" | "confirm" | "resolve"} [kind]
 * @property {string} [body] the words: the reason of a reopening, the note of a resolve
 * @property {{ id?: string, name?: string, provenance?: string }} [author]
 * @property {string} [at]
 * @property {boolean} [question] the agent asks the reviewer, and waits for the answer
 * @property {{ sha?: string, note?: string, at?: string }} [resolution] what a reopening undid,
 *   a confirmation confirmed or a second resolve claimed
 * @property {string} [classified] on a confirmation or reopening maple made from a reply: that
 *   reply's id
 * @property {Reading} [classification] what maple understood from this reply
 * @property {Signature} [by] the agent's entries: which agent, model and session wrote it
 */

/**
 * @typedef {object} Reading What maple understood from a reviewer's reply (maple_core.feedback).
 * @property {"approved" | "approved-with-comments" | "changes-requested" | "wait"} [outcome]
 * @property {"confirm" | "confirm-and-open-remarks" | "reopen" | "none"} [applied] what it did
 * @property {string} [harness] which harness read it
 * @property {string | null} [model]
 * @property {string} [textHash] "sha256:" of the words it read
 * @property {string[]} [remarks]
 * @property {string} [why] why its outcome's change did not apply
 * @property {string} [note] what went wrong asking the harness
 * @property {{ by?: { name?: string }, at?: string }} [undone] who undid it
 */

/**
 * @typedef {object} ThreadEvent The body of a POST to the route's /comments/{id}/thread.
 * @property {"reply" | "reopen" | "confirm"} kind
 * @property {string} body
 * @property {{ id: string, name: string }} author who answers, as this browser names them
 */

/**
 * @typedef {object} Resolution How a comment was resolved.
 * @property {string} sha the commit that resolved it
 * @property {string} [note] what the resolver said about it
 * @property {string} [at]
 * @property {Signature} [by] which agent, model and session resolved it
 */

export {};
