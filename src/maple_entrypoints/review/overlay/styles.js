// The overlay's one stylesheet, adopted by its shadow root (see ui.js).

export const OVERLAY_CSS =
  // Important, so that a page's `* { color: #eee !important }` or `color-scheme: dark` reaches
  // nothing in here: in the cascade, the shadow root's important rules beat the page's.
  ":host { all: initial !important; position: fixed !important; inset: 0 !important;" +
  " pointer-events: none !important; z-index: 2147483647 !important;" +
  " color-scheme: only light !important; color: #111 !important; }" +
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
  ".composer .shot { margin: 8px 0 0; font-size: 12px; color: #4b5563; }" +
  ".composer .problem { margin: 8px 0 0; padding: 6px 8px; border-radius: 6px; background: #fee2e2; color: #991b1b; }" +
  ".pin { position: fixed; width: 24px; height: 24px; border-radius: 12px; background: #b45309; color: #fff; display: flex; align-items: center; justify-content: center; font-weight: 700; font-size: 12px; padding: 0; border: 0; pointer-events: none; }" +
  // a pin never takes a tap meant for the app under it: it is pressed only with the list open
  ":host([data-maple-listing]) .pin { pointer-events: auto; }" +
  ".pin.resolved { background: #15803d; }" +
  ".pin[data-maple-waiting] { box-shadow: 0 0 0 3px #fde68a; }" + // the agent asks the reviewer
  ".pin[data-maple-presence=on-it] { box-shadow: 0 0 0 3px #93c5fd; }" + // an agent is on it
  ".panel .presence { font-size: 12px; color: #4b5563; }" +
  ".panel .presence.on-it { color: #1d4ed8; }" +
  ".panel .presence.waiting-for-you { color: #b45309; }" +
  ".panel .presence.resolved { color: #15803d; }" +
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
  ".send:disabled, .save:disabled, .delete:disabled, .conversation button:disabled { opacity: .6; cursor: progress; }" +
  // a comment's thread (thread.js): the agent's entries on the left rule, reviewers' in blue
  ".panel ol.thread { list-style: none; margin: 4px 0 0; padding: 0; }" +
  ".panel .thread li { cursor: auto; margin-top: 4px; padding: 2px 0 2px 8px; border-left: 3px solid #9ca3af; }" +
  ".panel .thread li.reviewer { border-left-color: #2563eb; }" +
  ".panel .thread .who { font-size: 12px; color: #4b5563; }" +
  ".panel .thread .said { margin: 0; white-space: pre-wrap; overflow-wrap: anywhere; }" +
  ".panel .thread .asks { display: inline-block; padding: 0 6px; border-radius: 4px; background: #e5e7eb; color: #111; font-size: 11px; }" +
  ".panel .thread li[data-maple-question=waiting] { border-left-color: #b45309; background: #fef3c7; }" +
  ".panel .thread li[data-maple-question=waiting] .asks { background: #b45309; color: #fff; }" +
  ".panel .confirmed { margin-top: 4px; font-size: 12px; color: #15803d; }" +
  // what maple understood from a reply, and its Undo (thread.js)
  ".panel .thread .understood { margin-top: 2px; font-size: 12px; color: #374151; font-style: italic; }" +
  ".panel .thread .understood .undo { padding: 0 6px; font-size: 11px; font-style: normal; background: #e5e7eb; color: #111; }" +
  ".panel .writer textarea { width: 100%; min-height: 48px; margin-top: 4px; color: #111; background: #fff; border: 1px solid #9ca3af; border-radius: 4px; }" +
  ".panel .conversation .cancel { background: #e5e7eb; color: #111; }" +
  ".panel .conversation [hidden] { display: none !important; }" + // over `.panel li .row`'s flex
  ".composer { max-width: calc(100vw - 16px); }" +
  // folded: a tab at the right edge, halfway down; an open composer stays, with the reviewer's text
  ":host([data-maple-folded]) .bar { top: 50%; bottom: auto !important; right: 0; transform: translateY(-50%); }" +
  ":host([data-maple-folded]) .bar > :not(.fold), :host([data-maple-folded]) .pins," +
  " :host([data-maple-folded]) .panel { display: none !important; }" +
  ":host([data-maple-folded]) .fold { writing-mode: vertical-rl; padding: 12px 6px; border-radius: 6px 0 0 6px; }" +
  ".hint { position: fixed; top: 12px; left: 50%; transform: translateX(-50%); max-width: calc(100vw - 24px); padding: 6px 12px; border-radius: 6px; background: #1f2937; color: #fff; text-align: center; pointer-events: none; box-shadow: 0 4px 12px rgba(0,0,0,.25); }" +
  ".hint[hidden] { display: none; }" +
  ".sr { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }";
