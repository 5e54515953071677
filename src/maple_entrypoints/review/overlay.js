// maple review overlay: comment on a running app. Dependency-free, no build step, in its own
// shadow root. Injected by `maple review` with data-maple-branch and data-maple-api.
(function () {
  "use strict";
  var script = document.currentScript;
  if (!script || document.querySelector("[data-maple-overlay]")) return; // another overlay: stand down
  var branch = script.getAttribute("data-maple-branch") || "default";
  var api = script.getAttribute("data-maple-api") || "/__maple/api";
  var POLL_MS = 3000;

  if (window.top !== window) return; // one overlay per tab, in the top page only
  var host = document.createElement("div");
  host.setAttribute("data-maple-overlay", "python");
  host.style.cssText = "all: initial; position: fixed; inset: 0; pointer-events: none; z-index: 2147483647;";
  var root = host.attachShadow({ mode: "open" });
  // A constructed stylesheet and DOM built node by node: no inline <style> for a strict
  // style-src to block, and no HTML strings for Trusted Types to refuse.
  var sheet = new CSSStyleSheet();
  sheet.replaceSync(
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
    ".pin { position: fixed; width: 24px; height: 24px; border-radius: 12px; background: #b45309; color: #fff; display: flex; align-items: center; justify-content: center; font-weight: 700; font-size: 12px; pointer-events: auto; }" +
    ".pin.resolved { background: #15803d; }" +
    ".panel { position: fixed; right: 16px; bottom: 64px; width: 300px; max-height: 50vh; overflow: auto; background: #fff; color: #111; border: 1px solid #d1d5db; border-radius: 8px; pointer-events: auto; display: none; }" +
    ".panel ol { margin: 0; padding: 8px 8px 8px 28px; }" +
    ".panel li { padding: 4px 0; }" +
    ".status { font-size: 12px; color: #4b5563; }" +
    ".status.resolved { color: #15803d; }" +
    ".sr { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }" +
    ""
  );
  root.adoptedStyleSheets = [sheet];

  function el(tag, attributes, children) {
    var node = document.createElement(tag);
    Object.keys(attributes || {}).forEach(function (name) { node.setAttribute(name, attributes[name]); });
    (children || []).forEach(function (child) {
      node.appendChild(typeof child === "string" ? document.createTextNode(child) : child);
    });
    return node;
  }

  root.appendChild(el("div", { class: "box", part: "highlight" }));
  root.appendChild(el("div", { class: "composer", role: "dialog", "aria-label": "New review comment" }, [
    el("label", { class: "sr", for: "maple-body" }, ["Comment"]),
    el("textarea", { id: "maple-body", placeholder: "What should change here?" }),
    el("div", { class: "row" }, [
      el("button", { class: "cancel", type: "button" }, ["Cancel"]),
      el("button", { class: "send", type: "button" }, ["Send"]),
    ]),
  ]));
  root.appendChild(el("div", { class: "pins" }));
  root.appendChild(el("div", { class: "panel", role: "region", "aria-label": "Review comments" }, [el("ol")]));
  root.appendChild(el("div", { class: "bar" }, [
    el("button", { class: "list", type: "button", "aria-expanded": "false", title: "Comments (Alt+Shift+L)" },
      ["Comments ", el("span", { class: "count" }, ["0"])]),
    el("button", { class: "mode", type: "button", "aria-pressed": "false", title: "Comment mode (Alt+Shift+C)" },
      ["Comment"]),
  ]));
  root.appendChild(el("div", { class: "sr", "aria-live": "polite" }));
  document.documentElement.appendChild(host);

  var $ = function (selector) { return root.querySelector(selector); };
  var modeButton = $(".mode"), listButton = $(".list"), box = $(".box"), composer = $(".composer");
  var textarea = $("textarea"), pins = $(".pins"), panel = $(".panel"), live = $("[aria-live]");
  var picking = false, target = null, comments = [];

  function say(text) { live.textContent = text; }

  function selectorFor(element) {
    if (element.id && document.querySelectorAll("#" + CSS.escape(element.id)).length === 1) {
      return "#" + CSS.escape(element.id);
    }
    var parts = [];
    var node = element;
    while (node && node.nodeType === 1 && node !== document.documentElement) {
      if (node.id && document.querySelectorAll("#" + CSS.escape(node.id)).length === 1) {
        parts.unshift("#" + CSS.escape(node.id));
        break;
      }
      var tag = node.tagName.toLowerCase();
      var parent = node.parentElement;
      if (parent) {
        var same = Array.prototype.filter.call(parent.children, function (c) { return c.tagName === node.tagName; });
        if (same.length > 1) tag += ":nth-of-type(" + (same.indexOf(node) + 1) + ")";
      }
      parts.unshift(tag);
      node = parent;
    }
    return parts.join(" > ");
  }

  function quoteFor(element) {
    var exact = (element.textContent || "").replace(/\s+/g, " ").trim().slice(0, 200);
    if (!exact) return undefined;
    var around = ((element.parentElement || document.body).textContent || "").replace(/\s+/g, " ");
    var at = around.indexOf(exact);
    var quote = { exact: exact };
    if (at >= 0) {
      quote.prefix = around.slice(Math.max(0, at - 32), at);
      quote.suffix = around.slice(at + exact.length, at + exact.length + 32);
    }
    return quote;
  }

  function anchorFor(element) {
    var anchor = { selector: selectorFor(element) };
    var quote = quoteFor(element);
    if (quote) anchor.quote = quote;
    var tagged = element.closest("[data-maple-src]");
    if (tagged) anchor.source = tagged.getAttribute("data-maple-src");
    var keyed = element.closest("[data-maple-key]");
    if (keyed) anchor.key = keyed.getAttribute("data-maple-key");
    return anchor;
  }

  function context() {
    return {
      url: location.href,
      viewportWidth: window.innerWidth,
      viewportHeight: window.innerHeight,
      devicePixelRatio: window.devicePixelRatio || 1,
      colorScheme: window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light",
    };
  }

  function outline(element) {
    if (!element) { box.style.display = "none"; return; }
    var r = element.getBoundingClientRect();
    box.style.cssText = "display:block;left:" + r.left + "px;top:" + r.top + "px;width:" + r.width + "px;height:" + r.height + "px;";
  }

  function setPicking(on) {
    picking = on;
    modeButton.setAttribute("aria-pressed", on ? "true" : "false");
    if (!on) outline(null);
    say(on ? "Comment mode: click an element, or press Enter on the focused one. Escape leaves." : "");
  }

  function openComposer(element) {
    target = element;
    setPicking(false);
    outline(element);
    var r = element.getBoundingClientRect();
    var top = Math.min(window.innerHeight - 180, Math.max(8, r.bottom + 8));
    var left = Math.min(window.innerWidth - 336, Math.max(8, r.left));
    composer.style.cssText = "display:block;top:" + top + "px;left:" + left + "px;";
    textarea.value = "";
    textarea.focus();
  }

  function closeComposer() {
    composer.style.display = "none";
    outline(null);
    var back = target;
    target = null;
    if (back && back.focus) back.focus({ preventScroll: true });
  }

  function send() {
    var body = textarea.value.trim();
    if (!body || !target) { textarea.focus(); return; }
    var comment = {
      branch: branch,
      body: body,
      anchor: anchorFor(target),
      context: context(),
      createdAt: new Date().toISOString(),
    };
    fetch(api + "/comments", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(comment),
      credentials: "same-origin",
    }).then(function (answer) {
      if (!answer.ok) return answer.json().then(function (e) { throw new Error(e.error || answer.status); });
      closeComposer();
      say("Comment sent.");
      return refresh();
    }).catch(function (error) { say("The comment was not sent: " + error.message); });
  }

  function place() {
    pins.textContent = "";
    var list = panel.querySelector("ol");
    list.textContent = "";
    comments.forEach(function (c, i) {
      var number = String(i + 1);
      var item = document.createElement("li");
      item.tabIndex = 0;
      var status = document.createElement("div");
      status.className = "status " + c.status;
      var element = null;
      try { element = c.anchor && c.anchor.selector ? document.querySelector(c.anchor.selector) : null; } catch (e) { element = null; }
      status.textContent = c.status + (element ? "" : " · not on this page");
      item.appendChild(document.createTextNode(c.body));
      item.appendChild(status);
      item.setAttribute("data-maple-comment", c.id);
      item.setAttribute("data-maple-status", c.status);
      list.appendChild(item);
      if (!element) return;
      var r = element.getBoundingClientRect();
      var pin = document.createElement("div");
      pin.className = "pin " + c.status;
      pin.textContent = number;
      pin.title = c.body + " (" + c.status + ")";
      pin.setAttribute("data-maple-comment", c.id);
      pin.setAttribute("data-maple-status", c.status);
      pin.style.left = Math.max(0, r.right - 12) + "px";
      pin.style.top = Math.max(0, r.top - 12) + "px";
      pins.appendChild(pin);
    });
    $(".count").textContent = String(comments.length);
  }

  function refresh() {
    return fetch(api + "/comments?branch=" + encodeURIComponent(branch), { credentials: "same-origin" })
      .then(function (answer) { return answer.ok ? answer.json() : { comments: comments }; })
      .then(function (page) {
        // by path: the proxy's port changes from run to run, the page does not
        comments = (page.comments || []).filter(function (c) {
          var url = c.context && c.context.url;
          if (!url) return true;
          try { return new URL(url).pathname === location.pathname; } catch (e) { return true; }
        });
        place();
      })
      .catch(function () {});
  }

  modeButton.addEventListener("click", function () { setPicking(!picking); });
  listButton.addEventListener("click", function () {
    var open = panel.style.display !== "block";
    panel.style.display = open ? "block" : "none";
    listButton.setAttribute("aria-expanded", open ? "true" : "false");
  });
  $(".send").addEventListener("click", send);
  $(".cancel").addEventListener("click", closeComposer);
  textarea.addEventListener("keydown", function (event) {
    if (event.key === "Escape") { event.preventDefault(); closeComposer(); }
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) { event.preventDefault(); send(); }
  });

  document.addEventListener("mousemove", function (event) {
    if (!picking) return;
    var element = document.elementFromPoint(event.clientX, event.clientY);
    if (element && element !== host) outline(element);
  }, true);
  document.addEventListener("click", function (event) {
    if (!picking) return;
    var path = event.composedPath ? event.composedPath() : [];
    if (path.indexOf(host) >= 0) return;
    event.preventDefault();
    event.stopPropagation();
    openComposer(event.target);
  }, true);
  document.addEventListener("keydown", function (event) {
    if (event.altKey && event.shiftKey && event.code === "KeyC") {
      event.preventDefault();
      var focused = document.activeElement;
      if (focused && focused !== document.body && focused !== host) openComposer(focused);
      else setPicking(!picking);
      return;
    }
    if (event.altKey && event.shiftKey && event.code === "KeyL") {
      event.preventDefault();
      listButton.click();
      return;
    }
    if (!picking) return;
    if (event.key === "Escape") { setPicking(false); return; }
    var active = document.activeElement;
    if (event.key === "Enter" && active && active !== document.body && active !== host) {
      event.preventDefault();
      openComposer(document.activeElement);
    }
  }, true);
  window.addEventListener("scroll", place, { passive: true });
  window.addEventListener("resize", place);

  refresh();
  setInterval(refresh, POLL_MS);
})();
