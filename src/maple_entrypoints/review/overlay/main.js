// maple review overlay: comment on a running app. Dependency-free, in its own shadow root.
// Injected by `maple review` with data-maple-branch, data-maple-api and data-maple-app. This is
// the entry module: ../bundle.py joins it and the modules it imports into one script.

import { listChanged } from "./api.js";
import { createComposer } from "./composer.js";
import { dock } from "./dock.js";
import { entryMaker } from "./entries.js";
import { frameDocuments } from "./frames.js";
import { focusedElement, holdPagePointer, keepInputInOverlay, trackFocusOrigin } from "./guard.js";
import { onNavigation } from "./navigation.js";
import { pinBoard } from "./pins.js";
import { recallReviewer, rememberReviewer, rememberedReviewer } from "./reviewer.js";
import { buildUi, fold, outline } from "./ui.js";

/** How often the comments are asked for: an agent's claim shows within a second (a 304 costs little). */
const POLL_MS = 500;
/** The route's address on the proxy: the script names it, but only a path of the proxy's own. */
const API = /^\/__maple\/[\w/-]{0,100}$/;
/** How long a list entry's element stays highlighted after the reviewer picks the entry. */
const SHOW_MS = 2000;

/**
 * Mounts the overlay, unless this is a frame or the page already has a Maple overlay.
 * @param {HTMLOrSVGScriptElement | null} script the overlay's own <script> tag
 */
function start(script) {
  if (!script || document.querySelector("[data-maple-overlay]")) return; // another overlay: stand down
  const branch = script.getAttribute("data-maple-branch") || "default";
  // a page that rewrote the attribute must not send the comments elsewhere
  const named = script.getAttribute("data-maple-api") || "";
  const api = API.test(named) ? named : "/__maple/api";
  const appOrigin = script.getAttribute("data-maple-app") || "";
  const sources = script.getAttribute("data-maple-root") || "";
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
  const showReviewer = () => {
    ui.nameInput.value = reviewer.name;
    ui.hideResolvedBox.checked = reviewer.hideResolved;
    fold(ui, reviewer.folded);
  };
  showReviewer();
  // the same browser on another port of this machine: the reviewer it was there
  void recallReviewer(reviewer).then((recalled) => {
    if (!recalled) return;
    showReviewer();
    void refresh();
  });
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
  /** @param {string} id the comment whose entry the list shows, focused: a pin's Enter or press */
  const openEntry = (id) => {
    if (ui.panel.style.display !== "block") ui.listButton.click();
    const item = Array.from(ui.list.children).find((li) => li.getAttribute("data-maple-comment") === id);
    if (!(item instanceof HTMLElement)) return;
    item.scrollIntoView({ block: "nearest" });
    item.focus();
  };
  const place = pinBoard(ui, {
    entry: entryMaker({ api, reviewer: () => reviewer, changed, show, sources }),
    hideResolved: () => reviewer.hideResolved,
    open: openEntry,
    sources,
  });
  let drawing = 0;
  /** @type {WeakSet<Document>} the documents whose changes redraw the pins */
  const watched = new WeakSet();
  // at most once a frame, after the app has rendered what changed
  const redraw = () => {
    if (drawing) return;
    drawing = requestAnimationFrame(() => {
      drawing = 0;
      place(comments);
      dock(ui);
      for (const doc of frameDocuments(document)) watch(doc); // frames the app has added since
    });
  };
  /** @type {string | null} */
  let etag = null;
  /** @param {Document} doc the page, or a same-origin frame's document */
  const watch = (doc) => {
    if (watched.has(doc) || !doc.documentElement) return; // a frame still loading: next time
    watched.add(doc);
    // the app renders the new page's elements after the address changes, maybe asynchronously
    new MutationObserver(redraw).observe(doc.documentElement, {
      childList: true, subtree: true, attributes: true, characterData: true,
    });
    // in the capture phase, a scroll of any element (a list in a scroll container), not only the page's
    doc.addEventListener("scroll", redraw, { capture: true, passive: true });
  };
  const refresh = async () => {
    const listed = await listChanged(api, branch, etag);
    if (listed && listed !== "unchanged") {
      comments = listed.comments;
      etag = listed.etag;
    }
    redraw(); // a claim lapses with nothing written: the presence is drawn anew each time
  };
  const composer = createComposer(ui, {
    api, appOrigin, branch, say, sent: changed, sources, author: () => ({ id: reviewer.id, name: reviewer.name }),
  });
  /** @type {Element | null} where focus was when the reviewer began a comment: it goes back there */
  let returnTo = null;
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

  /** @param {boolean} folded */
  function setFolded(folded) {
    if (folded) setPicking(false);
    reviewer.folded = folded;
    rememberReviewer(reviewer);
    fold(ui, folded);
  }

  /** @param {boolean} on */
  function setPicking(on) {
    if (on && reviewer.folded) setFolded(false); // Alt+Shift+C on a folded overlay unfolds it
    if (on && !picking) {
      returnTo = focusedElement();
      holdFrames(); // frames the app added since
    }
    picking = on;
    ui.modeButton.setAttribute("aria-pressed", on ? "true" : "false");
    ui.hint.hidden = !on;
    if (!on) outline(ui, null);
    say(on ? "Comment mode: click an element, or press Enter on the focused one. Escape leaves." : "");
  }

  /**
   * @param {Element} element
   * @param {{ x: number, y: number }} [point] where it was clicked; none when picked by keyboard
   */
  function compose(element, point) {
    const back = point ? returnTo : element; // by keyboard, the element had focus
    setPicking(false);
    composer.open(element, point, back);
  }

  ui.modeButton.addEventListener("click", () => setPicking(!picking));
  ui.foldButton.addEventListener("click", () => setFolded(!reviewer.folded));
  ui.listButton.addEventListener("click", () => {
    const open = ui.panel.style.display !== "block";
    ui.panel.style.display = open ? "block" : "none";
    ui.listButton.setAttribute("aria-expanded", open ? "true" : "false");
    ui.host.toggleAttribute("data-maple-listing", open); // pins take presses only then
  });

  const holdFrames = holdPagePointer(ui.host, {
    busy: () => picking || composer.isOpen(),
    picking: () => picking,
    clicked: (target, point) => {
      if (picking) compose(target, point);
    },
    hovered: (target) => outline(ui, target),
    cancelled: () => setPicking(false),
  });
  // The overlay's own keys are consumed here, on the window before the app's listeners on the
  // document or its elements could see them; then the guard keeps every other key typed in the
  // overlay from the app.
  window.addEventListener("keydown", (event) => {
    const focused = focusedElement();
    const inOverlay = event.composedPath().indexOf(ui.host) >= 0;
    const onPage = focused && !inOverlay ? focused : null;
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
      take(() => {
        setFolded(false);
        ui.listButton.click();
      });
    } else if (picking && event.key === "Escape") {
      take(() => setPicking(false));
    } else if (picking && event.key === "Enter" && onPage) {
      take(() => compose(onPage));
    }
  }, true);
  keepInputInOverlay(ui.host);
  onNavigation(() => {
    composer.pageChanged();
    redraw();
  });
  watch(document);
  window.addEventListener("resize", redraw);

  void refresh();
  setInterval(() => void refresh(), POLL_MS);
}

start(document.currentScript);
