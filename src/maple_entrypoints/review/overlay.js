// maple review overlay, joined from overlay/*.js by tests/overlay_bundle.py: edit those
// modules, then run `make overlay`. Dependency-free; injected by `maple review`.
(function () {
"use strict";

// --- overlay/api.js ---
// The route under the proxy's /__maple/api: list this branch's comments, post a new one, edit
// or delete one of the reviewer's own while it is open, answer in a comment's thread, and undo
// what maple understood from a reply.

/**
 * The branch's comments, or null when they could not be read.
 * @param {string} api
 * @param {string} branch
 * @returns {Promise<import("./types.js").StoredComment[] | null>}
 */
async function listComments(api, branch) {
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
 * Posts a comment; rejects with the route's error message when it is refused.
 * @param {string} api
 * @param {import("./types.js").NewComment} comment
 * @returns {Promise<void>}
 */
async function postComment(api, comment) {
  const answer = await fetch(api + "/comments", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(comment),
    credentials: "same-origin",
  });
  if (!answer.ok) throw await refusal(answer);
}

/**
 * Stores an image through the route's /media; its answer is the reference a comment attaches.
 * Null when this deployment keeps no images (404); rejects with the route's message otherwise.
 * @param {string} api
 * @param {Blob} image
 * @returns {Promise<import("./types.js").MediaRef | null>}
 */
async function postMedia(api, image) {
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
async function editComment(api, id, body, authorId) {
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
async function deleteComment(api, id, authorId) {
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
async function postThread(api, id, event) {
  const answer = await fetch(api + "/comments/" + encodeURIComponent(id) + "/thread", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(event),
    credentials: "same-origin",
  });
  if (!answer.ok) throw await refusal(answer);
}

/**
 * Undoes what maple understood from one of the reviewer's replies (its confirmation stops
 * counting, a reopening it made is undone); rejects with the route's reason.
 * @param {string} api
 * @param {string} id the comment's id
 * @param {{ entry: string, branch: string, author: { id: string, name: string } }} undo
 * @returns {Promise<void>}
 */
async function undoReading(api, id, undo) {
  const answer = await fetch(api + "/comments/" + encodeURIComponent(id) + "/classification/undo", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(undo),
    credentials: "same-origin",
  });
  if (!answer.ok) throw await refusal(answer);
}

// --- overlay/locate.js ---
// Finding a comment's element again. The selector is tried first; when it finds nothing, or a
// positional path (`li:nth-of-type(2) > span`) now lands on an element with other text, the
// quoted text stored with the anchor finds the element, the stored box choosing among several
// with that text. A comment neither finds has no element: it is listed as gone, never pinned at
// a guess.

/**
 * Text as the anchor quotes it: whitespace runs as one space, trimmed.
 * @param {string | null} text
 * @returns {string}
 */
function squeezed(text) {
  return (text || "").replace(/\s+/g, " ").trim();
}

/**
 * Whether `element`'s text is the quoted text (a quote is cut at 200 characters).
 * @param {Element} element
 * @param {string} exact
 * @returns {boolean}
 */
function saysQuote(element, exact) {
  const text = squeezed(element.textContent);
  return exact.length >= 200 ? text.startsWith(exact) : text === exact;
}

/**
 * How far an element is from where the comment's element was: its box against the stored box
 * (page coordinates), position and size alike. Without a stored box every element is as near.
 * @param {Element} element
 * @param {import("./types.js").Box | undefined} box
 * @returns {number}
 */
function distance(element, box) {
  if (!box) return 0;
  const r = element.getBoundingClientRect();
  return (
    Math.abs(r.left + window.scrollX - box.x) + Math.abs(r.top + window.scrollY - box.y) +
    Math.abs(r.width - box.width) + Math.abs(r.height - box.height)
  );
}

/**
 * The element whose text is the quote, the one nearest the stored box among several; null when
 * no element on the page says it.
 * @param {import("./types.js").Quote} quote
 * @param {import("./types.js").Box | undefined} box
 * @returns {Element | null}
 */
function byQuote(quote, box) {
  const body = document.body;
  if (!body || squeezed(body.textContent).indexOf(quote.exact) < 0) return null;
  /** @type {Element | null} */
  let best = null;
  let bestScore = Infinity;
  for (const element of Array.from(body.querySelectorAll("*"))) {
    if (element.closest("[data-maple-overlay], script, style") || !saysQuote(element, quote.exact)) continue;
    const around = squeezed((element.parentElement || body).textContent);
    const context = (quote.prefix ? around.indexOf(quote.prefix.trim()) >= 0 : true) &&
      (quote.suffix ? around.indexOf(quote.suffix.trim()) >= 0 : true);
    const score = distance(element, box) + (context ? 0 : 1e6);
    if (score < bestScore) {
      best = element;
      bestScore = score;
    }
  }
  return best;
}

/**
 * The element the selector finds, or null (none, or a selector the browser refuses).
 * @param {string | undefined} selector
 * @returns {Element | null}
 */
function bySelector(selector) {
  if (!selector) return null;
  try {
    return document.querySelector(selector);
  } catch {
    return null;
  }
}

/**
 * The element a comment is about, or null when it is gone. A selector that names the element
 * (an id, a test attribute, a label) is trusted whatever its text now says, as the fix the
 * comment asked for may have changed it; a positional path only while its element still says
 * the quote, as rows that moved would otherwise hand the comment to a neighbour.
 * @param {import("./types.js").StoredComment} comment
 * @returns {Element | null}
 */
function locate(comment) {
  const anchor = comment.anchor || {};
  const found = bySelector(anchor.selector);
  const quote = anchor.quote;
  if (!quote || !quote.exact) return found;
  if (found && (saysQuote(found, quote.exact) || !/:nth-of-type\(/.test(anchor.selector || ""))) return found;
  // the search reads the whole page, so an element it found is kept while it still says the quote
  const before = refound.get(comment.id);
  if (before && before.isConnected && saysQuote(before, quote.exact)) return before;
  const element = byQuote(quote, anchor.box);
  if (element) refound.set(comment.id, element);
  else refound.delete(comment.id);
  return element;
}

/** @type {Map<string, Element>} the elements found by their quote, by comment id */
const refound = new Map();

/**
 * The element's box on the page (not the viewport): where it was, to tell it among several
 * that say the same text.
 * @param {Element} element
 * @returns {import("./types.js").Box}
 */
function boxOf(element) {
  const r = element.getBoundingClientRect();
  const round = (/** @type {number} */ n) => Math.round(n);
  return { x: round(r.left + window.scrollX), y: round(r.top + window.scrollY), width: round(r.width), height: round(r.height) };
}

// --- overlay/anchor.js ---
// Where a comment points: a CSS selector for the element, its text with the text around it, and
// the `data-maple-src` / `data-maple-key` an app may tag its elements with, and the element's box
// (which, with the text, finds it again when the selector breaks: see locate.js).


/** Attributes apps put on elements for their tests: stable names, meant to be selected by. */
const TEST_ATTRIBUTES = ["data-testid", "data-test", "data-cy"];

/**
 * `[name="value"]`, the value quoted as a CSS string.
 * @param {string} name
 * @param {string} value
 * @returns {string}
 */
function attribute(name, value) {
  return "[" + name + '="' + value.replace(/["\\]/g, "\\$&").replace(/\n/g, "\\a ") + '"]';
}

/**
 * Whether `selector` finds `element` and nothing else on the page.
 * @param {string} selector
 * @param {Element} element
 * @returns {boolean}
 */
function findsOnly(selector, element) {
  try {
    const found = document.querySelectorAll(selector);
    return found.length === 1 && found[0] === element;
  } catch {
    return false;
  }
}

/**
 * A selector that names `element` by itself, as the app does, when one finds only it: its id,
 * a test attribute, or its role and accessible name where the name is an attribute
 * (`button[aria-label="Close"]`, `input[name="q"]`). Null when it has no such name.
 * @param {Element} element
 * @returns {string | null}
 */
function ownName(element) {
  const tag = element.tagName.toLowerCase();
  /** @type {string[]} */
  const candidates = [];
  if (element.id) candidates.push("#" + CSS.escape(element.id));
  for (const name of TEST_ATTRIBUTES) {
    const value = element.getAttribute(name);
    if (value) candidates.push(attribute(name, value));
  }
  const label = element.getAttribute("aria-label");
  if (label) {
    const role = element.getAttribute("role");
    candidates.push((role ? attribute("role", role) : tag) + attribute("aria-label", label));
  }
  const name = element.getAttribute("name");
  if (name && ["input", "select", "textarea", "button"].indexOf(tag) >= 0) {
    candidates.push(tag + attribute("name", name));
  }
  return candidates.find((selector) => findsOnly(selector, element)) || null;
}

/**
 * A selector that finds `element` again: its own name (see ownName), else the shortest path of
 * tags down from the nearest ancestor with one (or from the root), positions only where a tag
 * repeats among siblings.
 * @param {Element} element
 * @returns {string}
 */
function selectorFor(element) {
  /** @type {string[]} */
  const parts = [];
  /** @type {Element | null} */
  let node = element;
  while (node && node !== document.documentElement) {
    const named = ownName(node);
    if (named) {
      parts.unshift(named);
      break;
    }
    const tagName = node.tagName;
    let tag = tagName.toLowerCase();
    const parent = /** @type {Element | null} */ (node.parentElement);
    if (parent) {
      const same = Array.from(parent.children).filter((c) => c.tagName === tagName);
      if (same.length > 1) tag += ":nth-of-type(" + (same.indexOf(node) + 1) + ")";
    }
    parts.unshift(tag);
    node = parent;
  }
  return parts.join(" > ");
}

/**
 * The element's text (up to 200 characters) with up to 32 characters before and after it.
 * @param {Element} element
 * @returns {import("./types.js").Quote | undefined}
 */
function quoteFor(element) {
  const exact = (element.textContent || "").replace(/\s+/g, " ").trim().slice(0, 200);
  if (!exact) return undefined;
  const around = ((element.parentElement || document.body).textContent || "").replace(/\s+/g, " ");
  const at = around.indexOf(exact);
  /** @type {import("./types.js").Quote} */
  const quote = { exact };
  if (at >= 0) {
    quote.prefix = around.slice(Math.max(0, at - 32), at);
    quote.suffix = around.slice(at + exact.length, at + exact.length + 32);
  }
  return quote;
}

/**
 * @param {Element} element
 * @returns {import("./types.js").Anchor}
 */
function anchorFor(element) {
  /** @type {import("./types.js").Anchor} */
  const anchor = { selector: selectorFor(element), box: boxOf(element) };
  const quote = quoteFor(element);
  if (quote) anchor.quote = quote;
  const tagged = element.closest("[data-maple-src]");
  const source = tagged && tagged.getAttribute("data-maple-src");
  if (source) anchor.source = source;
  const keyed = element.closest("[data-maple-key]");
  const key = keyed && keyed.getAttribute("data-maple-key");
  if (key) anchor.key = key;
  return anchor;
}

// --- overlay/context.js ---
// The page as the reviewer saw it, stored with each comment.

/**
 * @param {string} appOrigin the app's own origin (`http://localhost:3000`), which the proxy names
 *   in the script's data-maple-app; the page's address is stored on it, not on the proxy's
 *   origin, whose port changes from run to run. Empty: the address as the browser has it.
 * @returns {import("./types.js").PageContext}
 */
function pageContext(appOrigin) {
  return {
    url: appOrigin ? appOrigin + location.pathname + location.search + location.hash : location.href,
    viewportWidth: window.innerWidth,
    viewportHeight: window.innerHeight,
    devicePixelRatio: window.devicePixelRatio || 1,
    colorScheme: window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light",
  };
}

// --- overlay/capture.js ---
// modern-screenshot 4.7.0, vendored (overlay/vendor/modern-screenshot.js), under this licence:
// The MIT License (MIT)
//
// Copyright (c) 2021-present wxm
//
// Permission is hereby granted, free of charge, to any person obtaining a copy of this software and associated documentation files (the "Software"), to deal in the Software without restriction, including without limitation the rights to use, copy, modify, merge, publish, distribute, sublicense, and/or sell copies of the Software, and to permit persons to whom the Software is furnished to do so, subject to the following conditions:
//
// The above copyright notice and this permission notice shall be included in all copies or substantial portions of the Software.
//
// THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY, FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM, OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE SOFTWARE.
const { domToCanvas } = (function () {
  const module = { exports: {} };
  const exports = module.exports;
(function(y,v){typeof exports=="object"&&typeof module!="undefined"?v(exports):typeof define=="function"&&define.amd?define(["exports"],v):(y=typeof globalThis!="undefined"?globalThis:y||self,v(y.modernScreenshot={}))})(this,function(y){"use strict";var rr=Object.defineProperty,nr=Object.defineProperties;var or=Object.getOwnPropertyDescriptors;var Z=Object.getOwnPropertySymbols;var xe=Object.prototype.hasOwnProperty,Me=Object.prototype.propertyIsEnumerable;var Oe=Math.pow,Le=(y,v,N)=>v in y?rr(y,v,{enumerable:!0,configurable:!0,writable:!0,value:N}):y[v]=N,D=(y,v)=>{for(var N in v||(v={}))xe.call(v,N)&&Le(y,N,v[N]);if(Z)for(var N of Z(v))Me.call(v,N)&&Le(y,N,v[N]);return y},M=(y,v)=>nr(y,or(v));var je=(y,v)=>{var N={};for(var R in y)xe.call(y,R)&&v.indexOf(R)<0&&(N[R]=y[R]);if(y!=null&&Z)for(var R of Z(y))v.indexOf(R)<0&&Me.call(y,R)&&(N[R]=y[R]);return N};var C=(y,v,N)=>new Promise((R,O)=>{var X=P=>{try{q(N.next(P))}catch(W){O(W)}},j=P=>{try{q(N.throw(P))}catch(W){O(W)}},q=P=>P.done?R(P.value):Promise.resolve(P.value).then(X,j);q((N=N.apply(y,v)).next())});var Be;function v(e,t){return e[13]=1,e[14]=t>>8,e[15]=t&255,e[16]=t>>8,e[17]=t&255,e}const N=112,R=72,O=89,X=115;let j;function q(){const e=new Int32Array(256);for(let t=0;t<256;t++){let r=t;for(let n=0;n<8;n++)r=r&1?3988292384^r>>>1:r>>>1;e[t]=r}return e}function P(e){let t=-1;j||(j=q());for(let r=0;r<e.length;r++)t=j[(t^e[r])&255]^t>>>8;return t^-1}function W(e){const t=e.length-1;for(let r=t;r>=4;r--)if(e[r-4]===9&&e[r-3]===N&&e[r-2]===R&&e[r-1]===O&&e[r]===X)return r-3;return 0}function ae(e,t,r=!1){const n=new Uint8Array(13);t*=39.3701,n[0]=N,n[1]=R,n[2]=O,n[3]=X,n[4]=t>>>24,n[5]=t>>>16,n[6]=t>>>8,n[7]=t&255,n[8]=n[4],n[9]=n[5],n[10]=n[6],n[11]=n[7],n[12]=1;const i=P(n),a=new Uint8Array(4);if(a[0]=i>>>24,a[1]=i>>>16,a[2]=i>>>8,a[3]=i&255,r){const s=W(e);return e.set(n,s),e.set(a,s+13),e}else{const s=new Uint8Array(4);s[0]=0,s[1]=0,s[2]=0,s[3]=9;const o=new Uint8Array(54);return o.set(e,0),o.set(s,33),o.set(n,37),o.set(a,50),o}}const qe="AAlwSFlz",We="AAAJcEhZ",He="AAAACXBI";function Ve(e){let t=e.indexOf(qe);return t===-1&&(t=e.indexOf(We)),t===-1&&(t=e.indexOf(He)),t}const se="[modern-screenshot]",U=typeof window!="undefined",ze=U&&"Worker"in window,ie=U&&"atob"in window,Xe=U&&"btoa"in window,ee=U?(Be=window.navigator)==null?void 0:Be.userAgent:"",le=ee.includes("Chrome"),G=ee.includes("AppleWebKit")&&!le,te=ee.includes("Firefox"),Ge=e=>e&&"__CONTEXT__"in e,Ye=e=>e.constructor.name==="CSSFontFaceRule",Je=e=>e.constructor.name==="CSSImportRule",Ke=e=>e.constructor.name==="CSSLayerBlockRule",I=e=>e.nodeType===1,H=e=>typeof e.className=="object",ce=e=>e.tagName==="image",Qe=e=>e.tagName==="use",V=e=>I(e)&&typeof e.style!="undefined"&&!H(e),Ze=e=>e.nodeType===8,et=e=>e.nodeType===3,$=e=>e.tagName==="IMG",Y=e=>e.tagName==="VIDEO",tt=e=>e.tagName==="CANVAS",rt=e=>e.tagName==="TEXTAREA",nt=e=>e.tagName==="INPUT",ot=e=>e.tagName==="STYLE",at=e=>e.tagName==="SCRIPT",st=e=>e.tagName==="SELECT",it=e=>e.tagName==="SLOT",lt=e=>e.tagName==="IFRAME",ct=(...e)=>console.warn(se,...e);function ut(e){var r;const t=(r=e==null?void 0:e.createElement)==null?void 0:r.call(e,"canvas");return t&&(t.height=t.width=1),!!t&&"toDataURL"in t&&!!t.toDataURL("image/webp").includes("image/webp")}const re=e=>e.startsWith("data:");function ue(e,t){if(e.match(/^[a-z]+:\/\//i))return e;if(U&&e.match(/^\/\//))return window.location.protocol+e;if(e.match(/^[a-z]+:/i)||!U)return e;const r=J().implementation.createHTMLDocument(),n=r.createElement("base"),i=r.createElement("a");return r.head.appendChild(n),r.body.appendChild(i),t&&(n.href=t),i.href=e,i.href}function J(e){var t;return(t=e&&I(e)?e==null?void 0:e.ownerDocument:e)!=null?t:window.document}const K="http://www.w3.org/2000/svg";function fe(e,t,r){const n=J(r).createElementNS(K,"svg");return n.setAttributeNS(null,"width",e.toString()),n.setAttributeNS(null,"height",t.toString()),n.setAttributeNS(null,"viewBox",`0 0 ${e} ${t}`),n}function de(e,t){let r=new XMLSerializer().serializeToString(e);return t&&(r=r.replace(/[\u0000-\u0008\v\f\u000E-\u001F\uD800-\uDFFF\uFFFE\uFFFF]/gu,"")),`data:image/svg+xml;charset=utf-8,${encodeURIComponent(r)}`}function ft(e,t="image/png",r=1){return C(this,null,function*(){try{return yield new Promise((n,i)=>{e.toBlob(a=>{a?n(a):i(new Error("Blob is null"))},t,r)})}catch(n){if(ie)return dt(e.toDataURL(t,r));throw n}})}function dt(e){var o,c;const[t,r]=e.split(","),n=(c=(o=t.match(/data:(.+);/))==null?void 0:o[1])!=null?c:void 0,i=window.atob(r),a=i.length,s=new Uint8Array(a);for(let u=0;u<a;u+=1)s[u]=i.charCodeAt(u);return new Blob([s],{type:n})}function ge(e,t){return new Promise((r,n)=>{const i=new FileReader;i.onload=()=>r(i.result),i.onerror=()=>n(i.error),i.onabort=()=>n(new Error(`Failed read blob to ${t}`)),t==="dataUrl"?i.readAsDataURL(e):t==="arrayBuffer"&&i.readAsArrayBuffer(e)})}const gt=e=>ge(e,"dataUrl"),mt=e=>ge(e,"arrayBuffer");function _(e,t){const r=J(t).createElement("img");return r.decoding="sync",r.loading="eager",r.src=e,r}function L(e,t){return new Promise(r=>{const{timeout:n,ownerDocument:i,onError:a,onWarn:s}=t!=null?t:{},o=typeof e=="string"?_(e,J(i)):e;let c=null,u=null;function l(){r(o),c&&clearTimeout(c),u==null||u()}if(n&&(c=setTimeout(l,n)),Y(o)){const d=o.currentSrc||o.src;if(!d)return o.poster?L(o.poster,t).then(r):l();if(o.readyState>=2)return l();const m=l,f=h=>{s==null||s("Failed video load",d,h),a==null||a(h),l()};u=()=>{o.removeEventListener("loadeddata",m),o.removeEventListener("error",f)},o.addEventListener("loadeddata",m,{once:!0}),o.addEventListener("error",f,{once:!0})}else{const d=ce(o)?o.href.baseVal:o.currentSrc||o.src;if(!d)return l();const m=()=>C(this,null,function*(){if($(o)&&"decode"in o)try{yield o.decode()}catch(h){s==null||s("Failed to decode image, trying to render anyway",o.dataset.originalSrc||d,h)}l()}),f=h=>{s==null||s("Failed image load",o.dataset.originalSrc||d,h),l()};if($(o)&&o.complete)return m();u=()=>{o.removeEventListener("load",m),o.removeEventListener("error",f)},o.addEventListener("load",m,{once:!0}),o.addEventListener("error",f,{once:!0})}})}function me(e,t){return C(this,null,function*(){V(e)&&($(e)||Y(e)?yield L(e,t):yield Promise.all(["img","video"].flatMap(r=>Array.from(e.querySelectorAll(r)).map(n=>L(n,t)))))})}const he=function(){let t=0;const r=()=>`0000${(Math.random()*Oe(36,4)<<0).toString(36)}`.slice(-4);return()=>(t+=1,`u${r()}${t}`)}();function we(e){return e==null?void 0:e.split(",").map(t=>t.trim().replace(/"|'/g,"").toLowerCase()).filter(Boolean)}let pe=0;function ht(e){const t=`${se}[#${pe}]`;return pe++,{time:r=>e&&console.time(`${t} ${r}`),timeEnd:r=>e&&console.timeEnd(`${t} ${r}`),warn:(...r)=>e&&ct(...r)}}function wt(e){return{cache:e?"no-cache":"force-cache"}}function k(e,t){return C(this,null,function*(){return Ge(e)?e:ye(e,M(D({},t),{autoDestruct:!0}))})}function ye(e,t){return C(this,null,function*(){var f,h,g,p,E;const{scale:r=1,workerUrl:n,workerNumber:i=1}=t||{},a=!!(t!=null&&t.debug),s=(f=t==null?void 0:t.features)!=null?f:!0,o=(h=e.ownerDocument)!=null?h:U?window.document:void 0,c=(p=(g=e.ownerDocument)==null?void 0:g.defaultView)!=null?p:U?window:void 0,u=new Map,l=M(D({width:0,height:0,quality:1,type:"image/png",scale:r,backgroundColor:null,style:null,filter:null,maximumCanvasSize:0,timeout:3e4,progress:null,debug:a,fetch:D({requestInit:wt((E=t==null?void 0:t.fetch)==null?void 0:E.bypassingCache),placeholderImage:"data:image/png;base64,R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7",bypassingCache:!1},t==null?void 0:t.fetch),fetchFn:null,font:{},drawImageInterval:100,workerUrl:null,workerNumber:i,onCloneEachNode:null,onCloneNode:null,onEmbedNode:null,onCreateForeignObjectSvg:null,includeStyleProperties:null,autoDestruct:!1},t),{__CONTEXT__:!0,log:ht(a),node:e,ownerDocument:o,ownerWindow:c,dpi:r===1?null:96*r,svgStyleElement:be(o),svgDefsElement:o==null?void 0:o.createElementNS(K,"defs"),svgStyles:new Map,defaultComputedStyles:new Map,workers:[...Array.from({length:ze&&n&&i?i:0})].map(()=>{try{const b=new Worker(n);return b.onmessage=w=>C(this,null,function*(){var A,F,B,$e;const{url:S,result:T}=w.data;T?(F=(A=u.get(S))==null?void 0:A.resolve)==null||F.call(A,T):($e=(B=u.get(S))==null?void 0:B.reject)==null||$e.call(B,new Error(`Error receiving message from worker: ${S}`))}),b.onmessageerror=w=>{var T,A;const{url:S}=w.data;(A=(T=u.get(S))==null?void 0:T.reject)==null||A.call(T,new Error(`Error receiving message from worker: ${S}`))},b}catch(b){return l.log.warn("Failed to new Worker",b),null}}).filter(Boolean),fontFamilies:new Map,fontCssTexts:new Map,acceptOfImage:`${[ut(o)&&"image/webp","image/svg+xml","image/*","*/*"].filter(Boolean).join(",")};q=0.8`,requests:u,drawImageCount:0,tasks:[],features:s,isEnable:b=>{var w,S;return b==="restoreScrollPosition"?typeof s=="boolean"?!1:(w=s[b])!=null?w:!1:typeof s=="boolean"?s:(S=s[b])!=null?S:!0},shadowRoots:[]});l.log.time("wait until load"),yield me(e,{timeout:l.timeout,onWarn:l.log.warn}),l.log.timeEnd("wait until load");const{width:d,height:m}=pt(e,l);return l.width=d,l.height=m,l})}function be(e){if(!e)return;const t=e.createElement("style"),r=t.ownerDocument.createTextNode(`
.______background-clip--text {
  background-clip: text;
  -webkit-background-clip: text;
}
`);return t.appendChild(r),t}function pt(e,t){let{width:r,height:n}=t;if(I(e)&&(!r||!n)){const i=e.getBoundingClientRect();r=r||i.width||Number(e.getAttribute("width"))||0,n=n||i.height||Number(e.getAttribute("height"))||0}return{width:r,height:n}}function yt(e,t){return C(this,null,function*(){const{log:r,timeout:n,drawImageCount:i,drawImageInterval:a}=t;r.time("image to canvas");const s=yield L(e,{timeout:n,onWarn:t.log.warn}),{canvas:o,context2d:c}=bt(e.ownerDocument,t),u=()=>{try{c==null||c.drawImage(s,0,0,o.width,o.height)}catch(l){t.log.warn("Failed to drawImage",l)}};if(u(),t.isEnable("fixSvgXmlDecode"))for(let l=0;l<i;l++)yield new Promise(d=>{setTimeout(()=>{c==null||c.clearRect(0,0,o.width,o.height),u(),d()},l+a)});return t.drawImageCount=0,r.timeEnd("image to canvas"),o})}function bt(e,t){const{width:r,height:n,scale:i,backgroundColor:a,maximumCanvasSize:s}=t,o=e.createElement("canvas");o.width=Math.floor(r*i),o.height=Math.floor(n*i),o.style.width=`${r}px`,o.style.height=`${n}px`,s&&(o.width>s||o.height>s)&&(o.width>s&&o.height>s?o.width>o.height?(o.height*=s/o.width,o.width=s):(o.width*=s/o.height,o.height=s):o.width>s?(o.height*=s/o.width,o.width=s):(o.width*=s/o.height,o.height=s));const c=o.getContext("2d");return c&&a&&(c.fillStyle=a,c.fillRect(0,0,o.width,o.height)),{canvas:o,context2d:c}}function Se(e,t){if(e.ownerDocument)try{const a=e.toDataURL();if(a!=="data:,")return _(a,e.ownerDocument)}catch(a){t.log.warn("Failed to clone canvas",a)}const r=e.cloneNode(!1),n=e.getContext("2d"),i=r.getContext("2d");try{return n&&i&&i.putImageData(n.getImageData(0,0,e.width,e.height),0,0),r}catch(a){t.log.warn("Failed to clone canvas",a)}return r}function St(e,t){var r;try{if((r=e==null?void 0:e.contentDocument)!=null&&r.documentElement)return ne(e.contentDocument.documentElement,t)}catch(n){t.log.warn("Failed to clone iframe",n)}return e.cloneNode(!1)}function Et(e){const t=e.cloneNode(!1);return e.currentSrc&&e.currentSrc!==e.src&&(t.src=e.currentSrc,t.srcset=""),t.loading==="lazy"&&(t.loading="eager"),t}function Ct(e,t){return C(this,null,function*(){if(e.ownerDocument&&!e.currentSrc&&e.poster)return _(e.poster,e.ownerDocument);const r=e.cloneNode(!1);r.crossOrigin="anonymous",e.currentSrc&&e.currentSrc!==e.src&&(r.src=e.currentSrc);const n=r.ownerDocument;if(n){let i=!0;if(yield L(r,{onError:()=>i=!1,onWarn:t.log.warn}),!i)return e.poster?_(e.poster,e.ownerDocument):r;r.currentTime=e.currentTime,yield new Promise(s=>{r.addEventListener("seeked",s,{once:!0})});const a=n.createElement("canvas");a.width=e.offsetWidth,a.height=e.offsetHeight;try{const s=a.getContext("2d");s&&s.drawImage(r,0,0,a.width,a.height)}catch(s){return t.log.warn("Failed to clone video",s),e.poster?_(e.poster,e.ownerDocument):r}return Se(a,t)}return r})}function Tt(e,t){return tt(e)?Se(e,t):lt(e)?St(e,t):$(e)?Et(e):Y(e)?Ct(e,t):e.cloneNode(!1)}function vt(e){let t=e.sandbox;if(!t){const{ownerDocument:r}=e;try{r&&(t=r.createElement("iframe"),t.id=`__SANDBOX__${he()}`,t.width="0",t.height="0",t.style.visibility="hidden",t.style.position="fixed",r.body.appendChild(t),t.srcdoc='<!DOCTYPE html><meta charset="UTF-8"><title></title><body>',e.sandbox=t)}catch(n){e.log.warn("Failed to getSandBox",n)}}return t}const At=["width","height","-webkit-text-fill-color"],Nt=["stroke","fill"];function Ee(e,t,r){const{defaultComputedStyles:n}=r,i=e.nodeName.toLowerCase(),a=H(e)&&i!=="svg",s=a?Nt.map(g=>[g,e.getAttribute(g)]).filter(([,g])=>g!==null):[],o=[a&&"svg",i,s.map((g,p)=>`${g}=${p}`).join(","),t].filter(Boolean).join(":");if(n.has(o))return n.get(o);const c=vt(r),u=c==null?void 0:c.contentWindow;if(!u)return new Map;const l=u==null?void 0:u.document;let d,m;a?(d=l.createElementNS(K,"svg"),m=d.ownerDocument.createElementNS(d.namespaceURI,i),s.forEach(([g,p])=>{m.setAttributeNS(null,g,p)}),d.appendChild(m)):d=m=l.createElement(i),m.textContent=" ",l.body.appendChild(d);const f=u.getComputedStyle(m,t),h=new Map;for(let g=f.length,p=0;p<g;p++){const E=f.item(p);At.includes(E)||h.set(E,f.getPropertyValue(E))}return l.body.removeChild(d),n.set(o,h),h}function Ce(e,t,r){var o;const n=new Map,i=[],a=new Map;if(r)for(const c of r)s(c);else for(let c=e.length,u=0;u<c;u++){const l=e.item(u);s(l)}for(let c=i.length,u=0;u<c;u++)(o=a.get(i[u]))==null||o.forEach((l,d)=>n.set(d,l));function s(c){const u=e.getPropertyValue(c),l=e.getPropertyPriority(c),d=c.lastIndexOf("-"),m=d>-1?c.substring(0,d):void 0;if(m){let f=a.get(m);f||(f=new Map,a.set(m,f)),f.set(c,[u,l])}t.get(c)===u&&!l||(m?i.push(m):n.set(c,[u,l]))}return n}function Rt(e,t,r,n){var d,m,f,h;const{ownerWindow:i,includeStyleProperties:a,currentParentNodeStyle:s}=n,o=t.style,c=i.getComputedStyle(e),u=Ee(e,null,n);s==null||s.forEach((g,p)=>{u.delete(p)});const l=Ce(c,u,a);l.delete("transition-property"),l.delete("all"),l.delete("d"),l.delete("content"),r&&(l.delete("position"),l.delete("margin-top"),l.delete("margin-right"),l.delete("margin-bottom"),l.delete("margin-left"),l.delete("margin-block-start"),l.delete("margin-block-end"),l.delete("margin-inline-start"),l.delete("margin-inline-end"),l.set("box-sizing",["border-box",""])),((d=l.get("background-clip"))==null?void 0:d[0])==="text"&&t.classList.add("______background-clip--text"),le&&(l.has("font-kerning")||l.set("font-kerning",["normal",""]),(((m=l.get("overflow-x"))==null?void 0:m[0])==="hidden"||((f=l.get("overflow-y"))==null?void 0:f[0])==="hidden")&&((h=l.get("text-overflow"))==null?void 0:h[0])==="ellipsis"&&e.scrollWidth===e.clientWidth&&l.set("text-overflow",["clip",""]));for(let g=o.length,p=0;p<g;p++)o.removeProperty(o.item(p));return l.forEach(([g,p],E)=>{o.setProperty(E,g,p)}),l}function It(e,t){(rt(e)||nt(e)||st(e))&&t.setAttribute("value",e.value)}const kt=["::before","::after"],Dt=["::-webkit-scrollbar","::-webkit-scrollbar-button","::-webkit-scrollbar-thumb","::-webkit-scrollbar-track","::-webkit-scrollbar-track-piece","::-webkit-scrollbar-corner","::-webkit-resizer"];function Pt(e,t,r,n,i){const{ownerWindow:a,svgStyleElement:s,svgStyles:o,currentNodeStyle:c}=n;if(!s||!a)return;function u(l){var w;const d=a.getComputedStyle(e,l);let m=d.getPropertyValue("content");if(!m||m==="none")return;i==null||i(m),m=m.replace(/(')|(")|(counter\(.+\))/g,"");const f=[he()],h=Ee(e,l,n);c==null||c.forEach((S,T)=>{h.delete(T)});const g=Ce(d,h,n.includeStyleProperties);g.delete("content"),g.delete("-webkit-locale"),((w=g.get("background-clip"))==null?void 0:w[0])==="text"&&t.classList.add("______background-clip--text");const p=[`content: '${m}';`];if(g.forEach(([S,T],A)=>{p.push(`${A}: ${S}${T?" !important":""};`)}),p.length===1)return;try{t.className=[t.className,...f].join(" ")}catch(S){n.log.warn("Failed to copyPseudoClass",S);return}const E=p.join(`
  `);let b=o.get(E);b||(b=[],o.set(E,b)),b.push(`.${f[0]}${l}`)}kt.forEach(u),r&&Dt.forEach(u)}const Te=new Set(["symbol"]);function ve(e,t,r,n,i){return C(this,null,function*(){if(I(r)&&(ot(r)||at(r))||n.filter&&!n.filter(r))return;Te.has(t.nodeName)||Te.has(r.nodeName)?n.currentParentNodeStyle=void 0:n.currentParentNodeStyle=n.currentNodeStyle;const a=yield ne(r,n,!1,i);n.isEnable("restoreScrollPosition")&&Ut(e,a),t.appendChild(a)})}function Ae(e,t,r,n){return C(this,null,function*(){var a;let i=e.firstChild;I(e)&&e.shadowRoot&&(i=(a=e.shadowRoot)==null?void 0:a.firstChild,r.shadowRoots.push(e.shadowRoot));for(let s=i;s;s=s.nextSibling)if(!Ze(s))if(I(s)&&it(s)&&typeof s.assignedNodes=="function"){const o=s.assignedNodes();for(let c=0;c<o.length;c++)yield ve(e,t,o[c],r,n)}else yield ve(e,t,s,r,n)})}function Ut(e,t){if(!V(e)||!V(t))return;const{scrollTop:r,scrollLeft:n}=e;if(!r&&!n)return;const{transform:i}=t.style,a=new DOMMatrix(i),{a:s,b:o,c,d:u}=a;a.a=1,a.b=0,a.c=0,a.d=1,a.translateSelf(-n,-r),a.a=s,a.b=o,a.c=c,a.d=u,t.style.transform=a.toString()}function _t(e,t){const{backgroundColor:r,width:n,height:i,style:a}=t,s=e.style;if(r&&s.setProperty("background-color",r,"important"),n&&s.setProperty("width",`${n}px`,"important"),i&&s.setProperty("height",`${i}px`,"important"),a)for(const o in a)s[o]=a[o]}const Ft=/^[\w-:]+$/;function ne(e,t,r=!1,n){return C(this,null,function*(){var u,l,d,m;const{ownerDocument:i,ownerWindow:a,fontFamilies:s,onCloneEachNode:o}=t;if(i&&et(e))return n&&/\S/.test(e.data)&&n(e.data),i.createTextNode(e.data);if(i&&a&&I(e)&&(V(e)||H(e))){const f=yield Tt(e,t);if(t.isEnable("removeAbnormalAttributes")){const w=f.getAttributeNames();for(let S=w.length,T=0;T<S;T++){const A=w[T];Ft.test(A)||f.removeAttribute(A)}}const h=t.currentNodeStyle=Rt(e,f,r,t);r&&_t(f,t);let g=!1;if(t.isEnable("copyScrollbar")){const w=[(u=h.get("overflow-x"))==null?void 0:u[0],(l=h.get("overflow-y"))==null?void 0:l[0]];g=w.includes("scroll")||(w.includes("auto")||w.includes("overlay"))&&(e.scrollHeight>e.clientHeight||e.scrollWidth>e.clientWidth)}const p=(d=h.get("text-transform"))==null?void 0:d[0],E=we((m=h.get("font-family"))==null?void 0:m[0]),b=E?w=>{p==="uppercase"?w=w.toUpperCase():p==="lowercase"?w=w.toLowerCase():p==="capitalize"&&(w=w[0].toUpperCase()+w.substring(1)),E.forEach(S=>{let T=s.get(S);T||s.set(S,T=new Set),w.split("").forEach(A=>T.add(A))})}:void 0;return Pt(e,f,g,t,b),It(e,f),Y(e)||(yield Ae(e,f,t,b)),yield o==null?void 0:o(f),f}const c=e.cloneNode(!1);return yield Ae(e,c,t),yield o==null?void 0:o(c),c})}function Ne(e){if(e.ownerDocument=void 0,e.ownerWindow=void 0,e.svgStyleElement=void 0,e.svgDefsElement=void 0,e.svgStyles.clear(),e.defaultComputedStyles.clear(),e.sandbox){try{e.sandbox.remove()}catch(t){e.log.warn("Failed to destroyContext",t)}e.sandbox=void 0}e.workers=[],e.fontFamilies.clear(),e.fontCssTexts.clear(),e.requests.clear(),e.tasks=[],e.shadowRoots=[]}function Bt(e){const o=e,{url:t,timeout:r,responseType:n}=o,i=je(o,["url","timeout","responseType"]),a=new AbortController,s=r?setTimeout(()=>a.abort(),r):void 0;return fetch(t,D({signal:a.signal},i)).then(c=>{if(!c.ok)throw new Error("Failed fetch, not 2xx response",{cause:c});switch(n){case"arrayBuffer":return c.arrayBuffer();case"dataUrl":return c.blob().then(gt);case"text":default:return c.text()}}).finally(()=>clearTimeout(s))}function z(e,t){const{url:r,requestType:n="text",responseType:i="text",imageDom:a}=t;let s=r;const{timeout:o,acceptOfImage:c,requests:u,fetchFn:l,fetch:{requestInit:d,bypassingCache:m,placeholderImage:f},font:h,workers:g,fontFamilies:p}=e;n==="image"&&(G||te)&&e.drawImageCount++;let E=u.get(r);if(!E){m&&m instanceof RegExp&&m.test(s)&&(s+=(/\?/.test(s)?"&":"?")+new Date().getTime());const b=n.startsWith("font")&&h&&h.minify,w=new Set;b&&n.split(";")[1].split(",").forEach(F=>{p.has(F)&&p.get(F).forEach(B=>w.add(B))});const S=b&&w.size,T=D({url:s,timeout:o,responseType:S?"arrayBuffer":i,headers:n==="image"?{accept:c}:void 0},d);E={type:n,resolve:void 0,reject:void 0,response:null},E.response=C(this,null,function*(){if(l&&n==="image"){const A=yield l(r);if(A)return A}return!G&&r.startsWith("http")&&g.length?new Promise((A,F)=>{g[u.size&g.length-1].postMessage(D({rawUrl:r},T)),E.resolve=A,E.reject=F}):Bt(T)}).catch(A=>{if(u.delete(r),n==="image"&&f)return e.log.warn("Failed to fetch image base64, trying to use placeholder image",s),typeof f=="string"?f:f(a);throw A}),u.set(r,E)}return E.response}function Re(e,t,r,n){return C(this,null,function*(){if(!Ie(e))return e;for(const[i,a]of $t(e,t))try{const s=yield z(r,{url:a,requestType:n?"image":"text",responseType:"dataUrl"});e=e.replace(Lt(i),`$1${s}$3`)}catch(s){r.log.warn("Failed to fetch css data url",i,s)}return e})}function Ie(e){return/url\((['"]?)([^'"]+?)\1\)/.test(e)}const ke=/url\((['"]?)([^'"]+?)\1\)/g;function $t(e,t){const r=[];return e.replace(ke,(n,i,a)=>(r.push([a,ue(a,t)]),n)),r.filter(([n])=>!re(n))}function Lt(e){const t=e.replace(/([.*+?^${}()|\[\]\/\\])/g,"\\$1");return new RegExp(`(url\\(['"]?)(${t})(['"]?\\))`,"g")}const xt=["background-image","border-image-source","-webkit-border-image","-webkit-mask-image","list-style-image"];function Mt(e,t){return xt.map(r=>{const n=e.getPropertyValue(r);return!n||n==="none"?null:((G||te)&&t.drawImageCount++,Re(n,null,t,!0).then(i=>{!i||n===i||e.setProperty(r,i,e.getPropertyPriority(r))}))}).filter(Boolean)}function Ot(e,t){if($(e)){const r=e.currentSrc||e.src;if(!re(r))return[z(t,{url:r,imageDom:e,requestType:"image",responseType:"dataUrl"}).then(n=>{n&&(e.srcset="",e.dataset.originalSrc=r,e.src=n||"")})];(G||te)&&t.drawImageCount++}else if(H(e)&&!re(e.href.baseVal)){const r=e.href.baseVal;return[z(t,{url:r,imageDom:e,requestType:"image",responseType:"dataUrl"}).then(n=>{n&&(e.dataset.originalSrc=r,e.href.baseVal=n||"")})]}return[]}function jt(e,t){var o;const{ownerDocument:r,svgDefsElement:n}=t,i=(o=e.getAttribute("href"))!=null?o:e.getAttribute("xlink:href");if(!i)return[];const[a,s]=i.split("#");if(s){const c=`#${s}`,u=t.shadowRoots.reduce((l,d)=>l!=null?l:d.querySelector(`svg ${c}`),r==null?void 0:r.querySelector(`svg ${c}`));if(a&&e.setAttribute("href",c),n!=null&&n.querySelector(c))return[];if(u)return n==null||n.appendChild(u.cloneNode(!0)),[];if(a)return[z(t,{url:a,responseType:"text"}).then(l=>{n==null||n.insertAdjacentHTML("beforeend",l)})]}return[]}function De(e,t){const{tasks:r}=t;I(e)&&(($(e)||ce(e))&&r.push(...Ot(e,t)),Qe(e)&&r.push(...jt(e,t))),V(e)&&r.push(...Mt(e.style,t)),e.childNodes.forEach(n=>{De(n,t)})}function qt(e,t){return C(this,null,function*(){const{ownerDocument:r,svgStyleElement:n,fontFamilies:i,fontCssTexts:a,tasks:s,font:o}=t;if(!(!r||!n||!i.size))if(o&&o.cssText){const c=Ue(o.cssText,t);n.appendChild(r.createTextNode(`${c}
`))}else{const c=Array.from(r.styleSheets).filter(f=>{try{return"cssRules"in f&&!!f.cssRules.length}catch(h){return t.log.warn(`Error while reading CSS rules from ${f.href}`,h),!1}}),u=r.implementation.createHTMLDocument(""),l=u.createElement("style");u.head.appendChild(l);const d=l.sheet;yield Promise.all(c.flatMap(f=>Array.from(f.cssRules).map(h=>C(this,null,function*(){if(Je(h)){const g=h.href;let p="";try{p=yield z(t,{url:g,requestType:"text",responseType:"text"})}catch(b){t.log.warn(`Error fetch remote css import from ${g}`,b)}const E=p.replace(ke,(b,w,S)=>b.replace(S,ue(S,g)));for(const b of Ht(E))try{d.insertRule(b,d.cssRules.length)}catch(w){t.log.warn("Error inserting rule from remote css import",{rule:b,error:w})}}})))),d.cssRules.length&&c.push(d);const m=[];c.forEach(f=>{oe(f.cssRules,m)}),m.filter(f=>{var h;return Ye(f)&&Ie(f.style.getPropertyValue("src"))&&((h=we(f.style.getPropertyValue("font-family")))==null?void 0:h.some(g=>i.has(g)))}).forEach(f=>{const h=f,g=a.get(h.cssText);g?n.appendChild(r.createTextNode(`${g}
`)):s.push(Re(h.cssText,h.parentStyleSheet?h.parentStyleSheet.href:null,t).then(p=>{p=Ue(p,t),a.set(h.cssText,p),n.appendChild(r.createTextNode(`${p}
`))}))})}})}const Wt=/(\/\*[\s\S]*?\*\/)/g,Pe=/((@.*?keyframes [\s\S]*?){([\s\S]*?}\s*?)})/gi;function Ht(e){if(e==null)return[];const t=[];let r=e.replace(Wt,"");for(;;){const a=Pe.exec(r);if(!a)break;t.push(a[0])}r=r.replace(Pe,"");const n=/@import[\s\S]*?url\([^)]*\)[\s\S]*?;/gi,i=new RegExp("((\\s*?(?:\\/\\*[\\s\\S]*?\\*\\/)?\\s*?@media[\\s\\S]*?){([\\s\\S]*?)}\\s*?})|(([\\s\\S]*?){([\\s\\S]*?)})","gi");for(;;){let a=n.exec(r);if(a)i.lastIndex=n.lastIndex;else if(a=i.exec(r),a)n.lastIndex=i.lastIndex;else break;t.push(a[0])}return t}const Vt=/url\([^)]+\)\s*format\((["']?)([^"']+)\1\)/g,zt=/src:\s*(?:url\([^)]+\)\s*format\([^)]+\)[,;]\s*)+/g;function Ue(e,t){const{font:r}=t,n=r?r==null?void 0:r.preferredFormat:void 0;return n?e.replace(zt,i=>{for(;;){const[a,,s]=Vt.exec(i)||[];if(!s)return"";if(s===n)return`src: ${a};`}}):e}function oe(e,t=[]){for(const r of Array.from(e))Ke(r)?t.push(...oe(r.cssRules)):"cssRules"in r?oe(r.cssRules,t):t.push(r);return t}const Xt=/\bx?link:?href\s*=\s*["'](?!data:)[^"']+["']/i;function Gt(e){return Xt.test(e.innerHTML)}function _e(e,t){return C(this,null,function*(){const r=yield k(e,t);if(I(r.node)&&H(r.node)&&!Gt(r.node))return r.node;const{ownerDocument:n,log:i,tasks:a,svgStyleElement:s,svgDefsElement:o,svgStyles:c,font:u,progress:l,autoDestruct:d,onCloneNode:m,onEmbedNode:f,onCreateForeignObjectSvg:h}=r;i.time("clone node");const g=yield ne(r.node,r,!0);if(s&&n){let S="";c.forEach((T,A)=>{S+=`${T.join(`,
`)} {
  ${A}
}
`}),s.appendChild(n.createTextNode(S))}i.timeEnd("clone node"),yield m==null?void 0:m(g),u!==!1&&I(g)&&(i.time("embed web font"),yield qt(g,r),i.timeEnd("embed web font")),i.time("embed node"),De(g,r);const p=a.length;let E=0;const b=()=>C(this,null,function*(){for(;;){const S=a.pop();if(!S)break;try{yield S}catch(T){r.log.warn("Failed to run task",T)}l==null||l(++E,p)}});l==null||l(E,p),yield Promise.all([...Array.from({length:4})].map(b)),i.timeEnd("embed node"),yield f==null?void 0:f(g);const w=Yt(g,r);return o&&w.insertBefore(o,w.children[0]),s&&w.insertBefore(s,w.children[0]),d&&Ne(r),yield h==null?void 0:h(w),w})}function Yt(e,t){const{width:r,height:n}=t,i=fe(r,n,e.ownerDocument),a=i.ownerDocument.createElementNS(i.namespaceURI,"foreignObject");return a.setAttributeNS(null,"x","0%"),a.setAttributeNS(null,"y","0%"),a.setAttributeNS(null,"width","100%"),a.setAttributeNS(null,"height","100%"),a.append(e),i.appendChild(a),i}function Q(e,t){return C(this,null,function*(){var s;const r=yield k(e,t),n=yield _e(r),i=de(n,r.isEnable("removeControlCharacter"));r.autoDestruct||(r.svgStyleElement=be(r.ownerDocument),r.svgDefsElement=(s=r.ownerDocument)==null?void 0:s.createElementNS(K,"defs"),r.svgStyles.clear());const a=_(i,n.ownerDocument);return yield yt(a,r)})}function Jt(e,t){return C(this,null,function*(){const r=yield k(e,t),{log:n,type:i,quality:a,dpi:s}=r,o=yield Q(r);n.time("canvas to blob");const c=yield ft(o,i,a);if(["image/png","image/jpeg"].includes(i)&&s){const u=yield mt(c.slice(0,33));let l=new Uint8Array(u);return i==="image/png"?l=ae(l,s):i==="image/jpeg"&&(l=v(l,s)),n.timeEnd("canvas to blob"),new Blob([l,c.slice(33)],{type:i})}return n.timeEnd("canvas to blob"),c})}function x(e,t){return C(this,null,function*(){const r=yield k(e,t),{log:n,quality:i,type:a,dpi:s}=r,o=yield Q(r);n.time("canvas to data url");let c=o.toDataURL(a,i);if(["image/png","image/jpeg"].includes(a)&&s&&ie&&Xe){const[u,l]=c.split(",");let d=0,m=!1;if(a==="image/png"){const w=Ve(l);w>=0?(d=Math.ceil((w+28)/3)*4,m=!0):d=33/3*4}else a==="image/jpeg"&&(d=18/3*4);const f=l.substring(0,d),h=l.substring(d),g=window.atob(f),p=new Uint8Array(g.length);for(let w=0;w<p.length;w++)p[w]=g.charCodeAt(w);const E=a==="image/png"?ae(p,s,m):v(p,s),b=window.btoa(String.fromCharCode(...E));c=[u,",",b,h].join("")}return n.timeEnd("canvas to data url"),c})}function Fe(e,t){return C(this,null,function*(){const r=yield k(e,t),{width:n,height:i,ownerDocument:a}=r,s=yield x(r),o=fe(n,i,a),c=o.ownerDocument.createElementNS(o.namespaceURI,"image");return c.setAttributeNS(null,"href",s),c.setAttributeNS(null,"height","100%"),c.setAttributeNS(null,"width","100%"),o.appendChild(c),de(o,r.isEnable("removeControlCharacter"))})}function Kt(e,t){return C(this,null,function*(){const r=yield k(e,t),{ownerDocument:n,width:i,height:a,scale:s,type:o}=r,c=o==="image/svg+xml"?yield Fe(r):yield x(r),u=_(c,n);return u.width=Math.floor(i*s),u.height=Math.floor(a*s),u.style.width=`${i}px`,u.style.height=`${a}px`,u})}function Qt(e,t){return C(this,null,function*(){return x(yield k(e,M(D({},t),{type:"image/jpeg"})))})}function Zt(e,t){return C(this,null,function*(){const r=yield k(e,t),n=yield Q(r);return n.getContext("2d").getImageData(0,0,n.width,n.height).data})}function er(e,t){return C(this,null,function*(){return x(yield k(e,M(D({},t),{type:"image/png"})))})}function tr(e,t){return C(this,null,function*(){return x(yield k(e,M(D({},t),{type:"image/webp"})))})}y.createContext=ye,y.destroyContext=Ne,y.domToBlob=Jt,y.domToCanvas=Q,y.domToDataUrl=x,y.domToForeignObjectSvg=_e,y.domToImage=Kt,y.domToJpeg=Qt,y.domToPixel=Zt,y.domToPng=er,y.domToSvg=Fe,y.domToWebp=tr,y.loadMedia=L,y.waitUntilLoad=me,Object.defineProperty(y,Symbol.toStringTag,{value:"Module"})});
  return module.exports;
}).call(undefined);
// What the reviewer saw: an image of the page around the element they picked, taken when they
// picked it, so an open modal, a filled form or a scrolled page is in it. modern-screenshot
// (vendored, pinned) redraws the page's DOM into a canvas; the proxy serves the app from the
// overlay's own origin, so the app's images and styles can be read into it without a prompt.


/** Space kept around the element on each side, in CSS pixels. */
const MARGIN = 160;
/** The longest side of an image, in pixels: a larger crop is scaled down to it. */
const MAX_SIDE = 1600;
/** How long the rasteriser may wait for one of the page's images or fonts, in milliseconds. */
const FETCH_MS = 3000;
/** The largest image the overlay sends, in bytes (the route refuses more than 10 MB). */
const MAX_IMAGE_BYTES = 2 * 1024 * 1024;

/**
 * @typedef {object} Rect A rectangle in the viewport, CSS pixels.
 * @property {number} x
 * @property {number} y
 * @property {number} width
 * @property {number} height
 */

/**
 * @typedef {object} Capture
 * @property {Blob} image PNG, or JPEG when the PNG is over MAX_IMAGE_BYTES
 * @property {Rect} area the part of the viewport the image shows
 */

/**
 * @param {DOMRect} r
 * @returns {Rect}
 */
function rectOf(r) {
  return { x: Math.round(r.left), y: Math.round(r.top), width: Math.round(r.width), height: Math.round(r.height) };
}

/**
 * The element's box with MARGIN around it, inside the viewport.
 * @param {Rect} box
 * @returns {Rect}
 */
function areaAround(box) {
  const left = Math.max(0, box.x - MARGIN);
  const top = Math.max(0, box.y - MARGIN);
  const right = Math.min(window.innerWidth, box.x + box.width + MARGIN);
  const bottom = Math.min(window.innerHeight, box.y + box.height + MARGIN);
  return { x: left, y: top, width: Math.max(1, right - left), height: Math.max(1, bottom - top) };
}

/** Elements whose height is their own, not their content's: their copies keep it. */
const SIZED = /^(IMG|INPUT|BUTTON|SELECT|TEXTAREA|VIDEO|CANVAS|IFRAME|HTML)$/;

/**
 * The rasteriser fixes every copied element's height at its computed value, and a fixed height
 * stops a last child's bottom margin from collapsing through its parent (a heading's margin at
 * the end of a <main> then pushes everything after it up by the margin). An element that clips
 * nothing gets the height as a minimum instead, which lays out as the page did.
 * @param {Node} copy
 */
function unfixHeight(copy) {
  if (!(copy instanceof HTMLElement) || !copy.style.height || SIZED.test(copy.tagName)) return;
  const style = copy.style;
  if (/^(table|inline)/.test(style.display) || /auto|scroll|hidden|clip/.test(style.overflow + style.overflowY)) return;
  style.minHeight = style.height;
  style.height = "auto";
  style.blockSize = "auto";
}

/**
 * The colour the browser paints behind the page: the root's background, else the body's (CSS
 * propagates it to the canvas), else white; the rasteriser leaves it transparent.
 * @returns {string}
 */
function canvasColour() {
  for (const element of [document.documentElement, document.body]) {
    const colour = element ? getComputedStyle(element).backgroundColor : "";
    if (colour && colour !== "transparent" && !/^rgba\(.*,\s*0\)$/.test(colour)) return colour;
  }
  return "#fff";
}

/**
 * @param {HTMLCanvasElement} canvas
 * @param {string} type
 * @param {number} [quality]
 * @returns {Promise<Blob | null>}
 */
function encode(canvas, type, quality) {
  return new Promise((resolve) => canvas.toBlob(resolve, type, quality));
}

/**
 * Draws the viewport as the page shows it now (without the overlay, whose host is `host`), cut to
 * the element and its surroundings, with the element outlined. Null when the page cannot be drawn
 * or the image stays over MAX_IMAGE_BYTES.
 * @param {Element} element
 * @param {HTMLElement} host
 * @returns {Promise<Capture | null>}
 */
async function captureAround(element, host) {
  // the proxy marks the overlay's tag where the page's policy forbids the data: image drawn through
  if (document.querySelector('script[data-maple-capture="off"]')) return null;
  const box = rectOf(element.getBoundingClientRect());
  const area = areaAround(box);
  try {
    const page = await domToCanvas(document.documentElement, {
      width: window.innerWidth,
      height: window.innerHeight,
      scale: 1,
      timeout: FETCH_MS,
      style: { marginTop: -window.scrollY + "px", marginLeft: -window.scrollX + "px" },
      filter: (node) => node !== host,
      onCloneEachNode: unfixHeight,
      features: { restoreScrollPosition: true }, // a scrolled list shows the rows on screen
    });
    const ratio = page.width / window.innerWidth;
    const fit = Math.min(1, MAX_SIDE / Math.max(area.width, area.height));
    const out = document.createElement("canvas");
    out.width = Math.max(1, Math.round(area.width * fit));
    out.height = Math.max(1, Math.round(area.height * fit));
    const context = out.getContext("2d");
    if (!context) return null;
    context.fillStyle = canvasColour();
    context.fillRect(0, 0, out.width, out.height);
    context.drawImage(page, area.x * ratio, area.y * ratio, area.width * ratio, area.height * ratio, 0, 0, out.width, out.height);
    context.strokeStyle = "#b45309";
    context.lineWidth = 2;
    context.strokeRect((box.x - area.x) * fit, (box.y - area.y) * fit, box.width * fit, box.height * fit);
    let image = await encode(out, "image/png");
    if (image && image.size > MAX_IMAGE_BYTES) image = await encode(out, "image/jpeg", 0.85);
    return image && image.size <= MAX_IMAGE_BYTES ? { image, area } : null;
  } catch {
    return null; // a page the rasteriser cannot draw still gets its comment, without an image
  }
}

// --- overlay/styles.js ---
// The overlay's one stylesheet, adopted by its shadow root (see ui.js).

const OVERLAY_CSS =
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
  ".pin { position: fixed; width: 24px; height: 24px; border-radius: 12px; background: #b45309; color: #fff; display: flex; align-items: center; justify-content: center; font-weight: 700; font-size: 12px; padding: 0; border: 0; pointer-events: auto; }" +
  ".pin.resolved { background: #15803d; }" +
  ".pin[data-maple-waiting] { box-shadow: 0 0 0 3px #fde68a; }" + // the agent asks the reviewer
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

// --- overlay/ui.js ---
// The overlay's DOM: a host element on the page holding an open shadow root, and in it the
// highlight box, the composer, the pins, the comment list, the bar and a live region.
// A constructed stylesheet and DOM built node by node: no inline <style> for a strict
// style-src to block, and no HTML strings for Trusted Types to refuse.


/**
 * @typedef {object} Ui
 * @property {HTMLDivElement} host the element on the page; events from inside the overlay come from it
 * @property {HTMLDivElement} box the outline drawn over the element being picked
 * @property {HTMLDivElement} composer
 * @property {HTMLParagraphElement} where the picked page, once the app has navigated away
 * @property {HTMLTextAreaElement} textarea
 * @property {HTMLParagraphElement} problem why the last send failed, shown in the composer
 * @property {HTMLButtonElement} sendButton
 * @property {HTMLButtonElement} cancelButton
 * @property {HTMLDivElement} pins
 * @property {HTMLDivElement} panel
 * @property {HTMLOListElement} list
 * @property {HTMLButtonElement} listButton
 * @property {HTMLInputElement} nameInput the reviewer's name, sent as the author
 * @property {HTMLInputElement} hideResolvedBox the toggle that hides resolved comments
 * @property {HTMLSpanElement} count
 * @property {HTMLDivElement} bar the buttons at the bottom right
 * @property {HTMLButtonElement} modeButton
 * @property {HTMLButtonElement} foldButton folds the overlay down to itself, a tab at the right edge
 * @property {HTMLDivElement} live the polite live region screen readers announce
 * @property {HTMLDivElement} hint what to do in comment mode, shown while in it
 */

/**
 * An element with attributes and children (text or nodes).
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Record<string, string>} [attributes]
 * @param {(Node | string)[]} [children]
 * @returns {HTMLElementTagNameMap[K]}
 */
function el(tag, attributes, children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes || {})) node.setAttribute(name, value);
  for (const child of children || []) {
    node.appendChild(typeof child === "string" ? document.createTextNode(child) : child);
  }
  return node;
}

/**
 * Builds the overlay and mounts it on the page.
 * @returns {Ui}
 */
function buildUi() {
  const host = el("div", { "data-maple-overlay": "python" });
  host.style.cssText = "all: initial; position: fixed; inset: 0; pointer-events: none; z-index: 2147483647;";
  const root = host.attachShadow({ mode: "open" });
  const sheet = new CSSStyleSheet();
  sheet.replaceSync(OVERLAY_CSS);
  root.adoptedStyleSheets = [sheet];

  const box = el("div", { class: "box", part: "highlight" });
  const textarea = el("textarea", { id: "maple-body", placeholder: "What should change here?" });
  const where = el("p", { class: "where", hidden: "" });
  const problem = el("p", { class: "problem", role: "alert", hidden: "" });
  const cancelButton = el("button", { class: "cancel", type: "button" }, ["Cancel"]);
  const sendButton = el("button", { class: "send", type: "button" }, ["Send"]);
  const composer = el("div", { class: "composer", role: "dialog", "aria-label": "New review comment" }, [
    el("label", { class: "sr", for: "maple-body" }, ["Comment"]),
    where,
    textarea,
    problem,
    el("div", { class: "row" }, [cancelButton, sendButton]),
  ]);
  const pins = el("div", { class: "pins" });
  const list = el("ol");
  const nameInput = el("input", { class: "name", type: "text", placeholder: "Guest", maxlength: "80", autocomplete: "name" });
  const hideResolvedBox = el("input", { class: "hide-resolved", type: "checkbox" });
  const tools = el("div", { class: "tools" }, [
    el("label", {}, ["Your name ", nameInput]),
    el("label", {}, [hideResolvedBox, " Hide resolved"]),
  ]);
  const panel = el("div", { class: "panel", role: "region", "aria-label": "Review comments" }, [tools, list]);
  const count = el("span", { class: "count" }, ["0"]);
  const listButton = el(
    "button",
    { class: "list", type: "button", "aria-expanded": "false", title: "Comments (Alt+Shift+L)" },
    ["Comments ", count],
  );
  const modeButton = el(
    "button",
    { class: "mode", type: "button", "aria-pressed": "false", title: "Comment mode (Alt+Shift+C)" },
    ["Comment"],
  );
  const foldButton = el(
    "button",
    { class: "fold", type: "button", "aria-expanded": "true", title: "Fold the review bar away" },
    ["Hide"],
  );
  const live = el("div", { class: "sr", "aria-live": "polite" });
  // on a touch screen, Escape is rarely at hand: the Comment button leaves as it entered
  const coarse = window.matchMedia("(pointer: coarse)").matches;
  const hint = el("div", { class: "hint", "aria-hidden": "true", hidden: "" }, [
    coarse ? "Tap an element to comment — tap Comment to cancel" : "Click an element to comment — Esc to cancel",
  ]);
  const bar = el("div", { class: "bar" }, [listButton, modeButton, foldButton]);
  root.append(box, hint, composer, pins, panel, bar, live);
  document.documentElement.appendChild(host);
  return {
    host, box, composer, where, textarea, problem, sendButton, cancelButton, pins, panel, list, listButton, count,
    bar, modeButton, foldButton, live, hint, nameInput, hideResolvedBox,
  };
}

/**
 * Folds the overlay down to its fold button, a narrow tab halfway down the right edge (away from
 * an app's header and bottom tabs, which a phone's layout puts at the top and bottom), or
 * unfolds it. Folded, the pins, the list and the bar's other buttons are not shown.
 * @param {Ui} ui
 * @param {boolean} folded
 */
function fold(ui, folded) {
  ui.host.toggleAttribute("data-maple-folded", folded);
  ui.foldButton.setAttribute("aria-expanded", folded ? "false" : "true");
  ui.foldButton.textContent = folded ? "Maple" : "Hide";
  ui.foldButton.title = folded ? "Show the review bar" : "Fold the review bar away";
}

/**
 * Draws the highlight box over `element`, or hides it.
 * @param {Ui} ui
 * @param {Element | null} element
 */
function outline(ui, element) {
  if (!element) {
    ui.box.style.display = "none";
    return;
  }
  const r = element.getBoundingClientRect();
  ui.box.style.cssText =
    "display:block;left:" + r.left + "px;top:" + r.top + "px;width:" + r.width + "px;height:" + r.height + "px;";
}

// --- overlay/shots.js ---
// The images a comment carries: the capture of what the reviewer saw when they picked the
// element, and an image they paste or drop into the composer. Both are stored through the
// route's /media when the comment is sent and attached as Maple attachments.


/** How long Send waits for a capture still being drawn before the comment goes without it. */
const CAPTURE_WAIT_MS = 5000;

/** What the route stores: raster images only. */
const OFFERED_TYPES = ["image/png", "image/jpeg", "image/webp", "image/gif"];

/**
 * @typedef {object} Shots
 * @property {(element: Element, point: { x: number, y: number } | null) => void} take starts
 *   capturing the page around `element`, picked at `point` (viewport CSS pixels; null: from
 *   the keyboard, the element's centre)
 * @property {() => void} clear forgets both images
 * @property {(api: string) => Promise<{ attachments: import("./types.js").Attachment[], context: import("./types.js").PickGeometry }>} store
 *   uploads the images, answering the comment's attachments and the pick's geometry
 */

/**
 * @param {import("./ui.js").Ui} ui
 * @returns {Shots}
 */
function createShots(ui) {
  const note = el("p", { class: "shot", hidden: "" });
  ui.composer.insertBefore(note, ui.problem);
  /** @type {Promise<import("./capture.js").Capture | null> | null} */
  let capturing = null;
  /** @type {Blob | null} */
  let offered = null;
  /** @type {import("./types.js").PickGeometry | null} */
  let geometry = null;
  /** @type {{ attachments: import("./types.js").Attachment[], context: import("./types.js").PickGeometry } | null} */
  let stored = null; // what a send that then failed uploaded: a retry attaches it again

  /** @param {string} text */
  function show(text) {
    note.textContent = text;
    note.hidden = !text;
  }

  /**
   * @param {Element} element
   * @param {{ x: number, y: number } | null} point
   */
  function take(element, point) {
    const box = rectOf(element.getBoundingClientRect());
    const click = point || { x: Math.round(box.x + box.width / 2), y: Math.round(box.y + box.height / 2) };
    geometry = { elementBox: box, clickPoint: { x: Math.round(click.x), y: Math.round(click.y) } };
    offered = null;
    stored = null;
    show("");
    capturing = captureAround(element, ui.host);
  }

  function clear() {
    capturing = null;
    offered = null;
    geometry = null;
    stored = null;
    show("");
  }

  /** @param {FileList | File[] | null | undefined} files */
  function offer(files) {
    const image = Array.from(files || []).find((file) => file.type.startsWith("image/"));
    if (!image) return false;
    if (OFFERED_TYPES.indexOf(image.type) < 0) show("Only a PNG, JPEG, WebP or GIF image can be attached.");
    else if (image.size > MAX_IMAGE_BYTES) show("That image is over 2 MB; it is not attached.");
    else {
      offered = image;
      stored = null;
      show("Your image is attached" + (image.name ? ": " + image.name : "") + ".");
    }
    return true;
  }

  /** @param {string} api */
  async function store(api) {
    if (stored) return stored;
    /** @type {import("./types.js").Attachment[]} */
    const attachments = [];
    /** @type {import("./types.js").PickGeometry} */
    const context = { ...(geometry || {}) };
    /** @type {Promise<null>} */
    const late = new Promise((resolve) => setTimeout(() => resolve(null), CAPTURE_WAIT_MS));
    const shot = capturing ? await Promise.race([capturing, late]) : null;
    if (shot) {
      const ref = await postMedia(api, shot.image);
      if (ref) {
        attachments.push({ ...ref, source: "capture" });
        context.captureArea = shot.area;
      }
    }
    if (offered) {
      const ref = await postMedia(api, offered);
      if (ref) attachments.push({ ...ref, source: "offered" });
    }
    stored = { attachments, context };
    return stored;
  }

  ui.textarea.addEventListener("paste", (event) => {
    if (event.clipboardData && offer(event.clipboardData.files)) event.preventDefault();
  });
  ui.composer.addEventListener("dragover", (event) => event.preventDefault());
  ui.composer.addEventListener("drop", (event) => {
    event.preventDefault();
    offer(event.dataTransfer && event.dataTransfer.files);
  });
  return { take, clear, store };
}

// --- overlay/composer.js ---
// The composer: the box where the reviewer types a comment on one element and sends it.


/**
 * @typedef {object} Composer
 * @property {(element: Element, point?: import("./types.js").Point | null) => void} open shows
 *   the composer for `element`, focused; the element's anchor, the page's address and an image
 *   of the page are taken now, so a comment begun before the app navigates is stored for the
 *   page and element the reviewer picked, and shows what they saw
 * @property {() => void} pageChanged the app navigated while the composer may be open
 * @property {() => void} close hides it and gives focus back to the element
 * @property {() => Promise<void>} send posts the comment, closing the composer once it is stored
 * @property {() => boolean} isOpen
 */

/**
 * @param {import("./ui.js").Ui} ui
 * @param {{ api: string, appOrigin: string, branch: string, say: (text: string) => void, sent: () => void,
 *   author: () => { id: string, name: string } }} options author: who sends it, as this browser names them
 * @returns {Composer}
 */
function createComposer(ui, { api, appOrigin, branch, say, sent, author }) {
  /** @type {Element | null} */
  let target = null;
  /** @type {{ anchor: import("./types.js").Anchor, context: import("./types.js").PageContext } | null} */
  let picked = null;
  const shots = createShots(ui);

  /**
   * @param {Element} element
   * @param {import("./types.js").Point | null} [point]
   */
  function open(element, point) {
    target = element;
    picked = { anchor: anchorFor(element), context: pageContext(appOrigin) };
    shots.take(element, point || null);
    ui.where.hidden = true;
    outline(ui, element);
    const r = element.getBoundingClientRect();
    // within the viewport even where it is narrower than the composer (which then shrinks)
    const top = Math.max(8, Math.min(window.innerHeight - 180, r.bottom + 8));
    const left = Math.max(8, Math.min(window.innerWidth - 336, r.left));
    ui.composer.style.cssText = "display:block;top:" + top + "px;left:" + left + "px;";
    ui.textarea.value = "";
    ui.problem.hidden = true;
    ui.textarea.focus();
  }

  function close() {
    ui.composer.style.display = "none";
    outline(ui, null);
    const back = target;
    target = null;
    picked = null;
    shots.clear();
    if (back instanceof HTMLElement || back instanceof SVGElement) back.focus({ preventScroll: true });
  }

  async function send() {
    const body = ui.textarea.value.trim();
    if (!body || !picked || ui.sendButton.disabled) {
      ui.textarea.focus();
      return;
    }
    ui.sendButton.disabled = true; // a second press (or Ctrl+Enter) while this one is on its way stores nothing
    try {
      const { attachments, context } = await shots.store(api);
      const comment = { branch, body, anchor: picked.anchor, context: { ...picked.context, ...context }, author: author() };
      await postComment(api, { ...comment, createdAt: new Date().toISOString(), ...(attachments.length ? { attachments } : {}) });
    } catch (error) {
      // in the composer, where the reviewer is looking, and announced (role=alert); text kept
      const message = error instanceof Error ? error.message : String(error);
      const why = /[.!?]$/.test(message) ? message : message + ".";
      ui.problem.textContent = "The comment was not sent: " + why + " Your text is kept; Send tries again.";
      ui.problem.hidden = false;
      return;
    } finally {
      ui.sendButton.disabled = false;
    }
    ui.problem.hidden = true;
    close();
    say("Comment sent.");
    sent();
  }

  function pageChanged() {
    if (!picked) return;
    outline(ui, null);
    ui.where.textContent = "For " + new URL(picked.context.url).pathname + ", where you picked the element.";
    ui.where.hidden = false;
  }

  ui.sendButton.addEventListener("click", () => void send());
  ui.cancelButton.addEventListener("click", close);
  ui.textarea.addEventListener("keydown", (event) => {
    if (event.key === "Escape") {
      event.preventDefault();
      close();
    }
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      void send();
    }
  });
  return { open, close, send, pageChanged, isOpen: () => picked !== null };
}

// --- overlay/dock.js ---
// Where the bar sits: at the bottom right, or just above the app's own fixed or sticky controls
// there (a phone layout's bottom tabs, a cookie banner), so that it never covers them.

/** The bar's distance from the window's edges, and from the app's controls under it. */
const BAR_MARGIN = 16;
/** An app's bar taller than this share of the window is its layout, not a bar: ignored. */
const BAR_SHARE = 1 / 3;

/**
 * The fixed or sticky element at `node` or around it, if any.
 * @param {Element | null} node
 * @returns {Element | null}
 */
function pinnedAround(node) {
  for (let at = node; at && at !== document.body && at !== document.documentElement; at = at.parentElement) {
    const position = getComputedStyle(at).position;
    if (position === "fixed" || position === "sticky") return at;
  }
  return null;
}

/**
 * How far above the window's bottom edge the bar goes: above the top of any fixed or sticky
 * element of the app that sits along the bottom edge where the bar would be.
 * @param {DOMRect} bar the bar's box
 * @param {Element} host the overlay's host, over the app's elements there
 * @returns {number}
 */
function clearance(bar, host) {
  let bottom = BAR_MARGIN;
  const y = window.innerHeight - BAR_MARGIN - bar.height / 2;
  const right = window.innerWidth - BAR_MARGIN;
  for (const x of [right - bar.width, right - bar.width / 2, right - 1]) {
    const pinned = pinnedAround(document.elementsFromPoint(x, y).find((hit) => hit !== host) || null);
    if (!pinned) continue;
    const box = pinned.getBoundingClientRect();
    const alongBottom = box.bottom >= window.innerHeight - BAR_MARGIN && box.height <= window.innerHeight * BAR_SHARE;
    if (alongBottom) bottom = Math.max(bottom, window.innerHeight - box.top + BAR_MARGIN / 2);
  }
  return bottom;
}

/**
 * Moves the bar, and the list opened above it, clear of the app's bottom controls.
 * @param {import("./ui.js").Ui} ui
 */
function dock(ui) {
  ui.bar.style.bottom = "";
  const bottom = clearance(ui.bar.getBoundingClientRect(), ui.host);
  ui.bar.style.bottom = bottom + "px";
  ui.panel.style.bottom = bottom + 48 + "px";
}

// --- overlay/digest.js ---
// SHA-256 of a text's UTF-8, synchronously, as maple_core.text.text_hash writes it
// ("sha256:<hex>"): the thread shows a reading as no longer counting once the words it read were
// edited, and crypto.subtle is neither synchronous nor there on a page served over plain http.

const SHA256_K = new Uint32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);

/**
 * @param {number} x
 * @param {number} n
 * @returns {number}
 */
const rotr = (x, n) => (x >>> n) | (x << (32 - n));

/**
 * The digest of `text`, as "sha256:" and 64 hex digits.
 * @param {string} text
 * @returns {string}
 */
function textHash(text) {
  const data = new TextEncoder().encode(text);
  const length = Math.ceil((data.length + 9) / 64) * 64;
  const padded = new Uint8Array(length);
  padded.set(data);
  padded[data.length] = 0x80;
  const view = new DataView(padded.buffer);
  view.setUint32(length - 8, Math.floor((data.length * 8) / 2 ** 32));
  view.setUint32(length - 4, (data.length * 8) >>> 0);
  const h = new Uint32Array([
    0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
  ]);
  const w = new Uint32Array(64);
  for (let block = 0; block < length; block += 64) {
    for (let i = 0; i < 16; i++) w[i] = view.getUint32(block + i * 4);
    for (let i = 16; i < 64; i++) {
      const s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >>> 3);
      const s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >>> 10);
      w[i] = (w[i - 16] + s0 + w[i - 7] + s1) >>> 0;
    }
    let [a, b, c, d, e, f, g, k] = h;
    for (let i = 0; i < 64; i++) {
      const t1 = (k + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + SHA256_K[i] + w[i]) >>> 0;
      const t2 = ((rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))) >>> 0;
      k = g;
      g = f;
      f = e;
      e = (d + t1) >>> 0;
      d = c;
      c = b;
      b = a;
      a = (t1 + t2) >>> 0;
    }
    [a, b, c, d, e, f, g, k].forEach((value, i) => {
      h[i] = (h[i] + value) >>> 0;
    });
  }
  return "sha256:" + Array.from(h, (x) => x.toString(16).padStart(8, "0")).join("");
}

// --- overlay/thread.js ---
// A comment's thread in its list entry: the agent's and the reviewers' entries (an agent's
// question waiting for the reviewer marked as one), what maple understood from a reply (with
// Undo on the reviewer's own), "Confirmed by <name>" under a confirmed resolution, and the
// reviewer's answers: Reply, Reopen (with a reason) and Confirm. Every word in a thread is
// someone else's: it is shown as text, never parsed as HTML.


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
function threadOf(comment) {
  return Array.isArray(comment.replies) ? comment.replies.filter((r) => r && typeof r === "object") : [];
}

/**
 * True when the agent's latest words are a question no reviewer has answered yet.
 * @param {StoredComment} comment
 * @returns {boolean}
 */
function awaitingReviewer(comment) {
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
function confirmationOf(comment) {
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
function understood(reply) {
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
  if (reply.role === "agent") return named ? named + " (agent)" : "Agent";
  return name || "Reviewer";
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
function threadSection(comment, options) {
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
    if (!confirmation) {
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

// --- overlay/entries.js ---
// The comment list's entries: each comment's text, status, author and resolution, and its
// thread with Reply, Reopen and Confirm (thread.js); a press on an entry shows its element; and,
// on the reviewer's own open comments, Edit and Delete.


/**
 * A comment's status as the reviewer reads it: "open", or "resolved in 1a2b3c4: the note".
 * @param {import("./types.js").StoredComment} comment
 * @returns {string}
 */
function describeStatus(comment) {
  const resolution = comment.resolution;
  if (comment.status !== "resolved" || !resolution) return comment.status;
  const commit = resolution.sha ? " in " + resolution.sha.slice(0, 7) : "";
  return "resolved" + commit + (resolution.note ? ": " + resolution.note : "");
}

/**
 * @typedef {object} EntryOptions
 * @property {string} api the route's address
 * @property {() => import("./reviewer.js").ReviewerName} reviewer who is reviewing here
 * @property {() => void} changed a comment was edited or deleted: read the comments again
 * @property {(element: Element) => void} show scrolls to the element and highlights it
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

/**
 * A function making the list entry for a comment, given whether its element is on the page.
 * @param {EntryOptions} options
 * @returns {(comment: import("./types.js").StoredComment, found: boolean) => HTMLLIElement}
 */
function entryMaker(options) {
  /** @type {Map<string, import("./thread.js").ThreadDraft>} */
  const drafts = new Map(); // outlives the entries: the list is rebuilt when a comment changes
  const answerer = () => ({ id: options.reviewer().id, name: options.reviewer().name });
  return (comment, found) => {
    const author = comment.author && comment.author.name;
    const status = el("div", { class: "status " + comment.status }, [
      describeStatus(comment) + (author ? " · " + author : "") + (found ? "" : " · element gone"),
    ]);
    const item = el("li", { tabindex: "0", "data-maple-comment": comment.id, "data-maple-status": comment.status }, [
      el("p", { class: "body" }, [comment.body]),
      status,
    ]);
    if (!found) item.setAttribute("data-maple-gone", "");
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
      const element = inside ? null : locate(comment); // as the page is now, not when listed
      if (element) options.show(element);
    };
    item.addEventListener("click", show);
    item.addEventListener("keydown", (event) => {
      if (event.key === "Enter" && event.target === item) show(event);
    });
    return item;
  };
}

// --- overlay/guard.js ---
// What the app must not see: input meant for the overlay. Keys typed and clicks made in the
// overlay stop at its host element, so the app's own listeners (a modal closed by Escape, a
// single-key shortcut, a click-outside handler) never fire for them; and while the reviewer is
// picking an element or writing a comment, pointer input on the page goes to the overlay only.

/** Events that bubble out of the shadow root (composed) and must stop at the host. */
const OVERLAY_EVENTS = [
  "keydown", "keyup", "keypress", "beforeinput", "input", "pointerdown", "pointerup", "mousedown",
  "mouseup", "click", "dblclick", "contextmenu", "touchstart", "touchend", "wheel",
];

/** Pointer events on the page the overlay takes while it is busy (picking or composing). */
const PAGE_POINTER_EVENTS = ["pointerdown", "pointerup", "mousedown", "mouseup", "touchstart", "touchend", "dblclick"];

/**
 * Stops the overlay's own input at its host, after the overlay's listeners have run.
 * @param {HTMLElement} host
 */
function keepInputInOverlay(host) {
  for (const type of OVERLAY_EVENTS) host.addEventListener(type, (event) => event.stopPropagation());
}

/**
 * While `busy()`, pointer input on the page reaches neither the app nor the element under it (no
 * focus moves, nothing is clicked); a click on the page is given to `clicked` instead.
 * @param {HTMLElement} host
 * @param {() => boolean} busy
 * @param {(target: Element, point: { x: number, y: number }) => void} clicked
 */
function holdPagePointer(host, busy, clicked) {
  /** @param {Event} event */
  const fromPage = (event) => busy() && event.composedPath().indexOf(host) < 0;
  for (const type of PAGE_POINTER_EVENTS) {
    document.addEventListener(type, (event) => {
      if (!fromPage(event)) return;
      event.stopPropagation();
      if (type === "mousedown") event.preventDefault(); // the page's element does not take focus
    }, true);
  }
  document.addEventListener("click", (event) => {
    if (!fromPage(event)) return;
    event.preventDefault();
    event.stopPropagation();
    if (event.target instanceof Element) clicked(event.target, { x: event.clientX, y: event.clientY });
  }, true);
}

/**
 * Whether the element that has focus got it from the keyboard (Tab, or a script while the
 * reviewer was typing) rather than from a click.
 * @returns {() => boolean}
 */
function trackFocusOrigin() {
  let pointerLast = false;
  let focusedByPointer = false;
  document.addEventListener("pointerdown", () => { pointerLast = true; }, true);
  document.addEventListener("keydown", () => { pointerLast = false; }, true);
  document.addEventListener("focusin", () => { focusedByPointer = pointerLast; }, true);
  return () => !focusedByPointer;
}

// --- overlay/navigation.js ---
// Client-side navigation: a single-page app changes the address with history.pushState or
// replaceState (no event fires for those) or the reviewer goes Back or Forward (popstate).

/**
 * Calls `changed` right after every change of the page's address that loads no new document.
 * @param {() => void} changed
 */
function onNavigation(changed) {
  let last = location.href;
  const check = () => {
    if (location.href === last) return;
    last = location.href;
    changed();
  };
  for (const name of /** @type {const} */ (["pushState", "replaceState"])) {
    const original = history[name];
    history[name] = function (data, unused, url) {
      original.call(this, data, unused, url);
      check();
    };
  }
  window.addEventListener("popstate", check);
  window.addEventListener("hashchange", check);
}

// --- overlay/pins.js ---
// The comments on the page: a numbered pin on each commented element and an entry in the list.


/**
 * Whether a comment belongs to the page now shown: matched by path, since the proxy's port
 * changes from run to run and the page does not (a comment with no URL belongs everywhere).
 * @param {import("./types.js").StoredComment} comment
 * @returns {boolean}
 */
function onThisPage(comment) {
  const url = comment.context && comment.context.url;
  if (!url) return true;
  try {
    return new URL(url).pathname === location.pathname;
  } catch {
    return true;
  }
}

/**
 * The part of the element's box that can be seen: none when it is hidden or scrolled out of the
 * viewport or out of a scrolling (or clipping) ancestor, so no pin is drawn for it; its pin goes
 * on the visible part, never over the header or footer around a scroller.
 * @param {Element} element
 * @returns {DOMRect | null}
 */
function visibleBox(element) {
  if (!element.checkVisibility({ visibilityProperty: true })) return null;
  const box = element.getBoundingClientRect();
  if (box.width === 0 && box.height === 0) return null;
  let top = Math.max(box.top, 0);
  let left = Math.max(box.left, 0);
  let bottom = Math.min(box.bottom, window.innerHeight);
  let right = Math.min(box.right, window.innerWidth);
  // up to the body: an overflow set on it or the root applies to the viewport, clipped above
  for (let node = element.parentElement; node && node !== document.body; node = node.parentElement) {
    const style = getComputedStyle(node);
    if (style.overflowX !== "visible" || style.overflowY !== "visible") {
      const clip = node.getBoundingClientRect();
      top = Math.max(top, clip.top);
      left = Math.max(left, clip.left);
      bottom = Math.min(bottom, clip.bottom);
      right = Math.min(right, clip.right);
    }
    if (style.position === "fixed") break; // no ancestor above a fixed element clips it
  }
  return bottom > top && right > left ? new DOMRect(left, top, right - left, bottom - top) : null;
}

/** A pin's size; pins on one element sit side by side, this far apart. */
const PIN_PX = 24;

/**
 * Where an element's pin goes: half over the top edge of its visible box, at the end of its
 * content (a heading as wide as the page gets its pin by its text, not 700 px away), further
 * right for each earlier comment on the same element.
 * @param {Element} element
 * @param {DOMRect} visible the element's visible box
 * @param {number} earlier how many comments on this element already have a pin
 * @returns {{ left: number, top: number }}
 */
function pinPlace(element, visible, earlier) {
  const content = document.createRange();
  content.selectNodeContents(element);
  const end = content.getBoundingClientRect();
  const right = end.width > 0 ? Math.min(visible.right, end.right + PIN_PX / 2) : visible.right;
  return {
    left: Math.max(0, right - PIN_PX / 2 + earlier * (PIN_PX + 2)),
    top: Math.max(0, visible.top - PIN_PX / 2),
  };
}

/** How many of a comment's first words its pin's accessible name quotes. */
const NAMED_WORDS = 8;

/**
 * What a screen reader says for a pin: "Comment 2 by Ana: The Pay button overlaps the total at…",
 * with ", resolved" for a resolved one and a note of an agent's question waiting for the reviewer.
 * @param {import("./types.js").StoredComment} comment
 * @param {number} number
 * @returns {string}
 */
function pinName(comment, number) {
  const words = comment.body.trim().split(/\s+/);
  const quoted = words.slice(0, NAMED_WORDS).join(" ") + (words.length > NAMED_WORDS ? "…" : "");
  const author = comment.author && comment.author.name ? " by " + comment.author.name : "";
  const asks = awaitingReviewer(comment) ? ", the agent asks you a question" : "";
  return "Comment " + number + author + ": " + quoted + (comment.status === "resolved" ? ", resolved" : "") + asks;
}

/**
 * Makes a comment's pin show its number, status and place. A pin is a button: Tab reaches it,
 * and Enter (or a press) opens its entry in the list.
 * @param {HTMLButtonElement} pin
 * @param {import("./types.js").StoredComment} comment
 * @param {number} number
 * @param {{ left: number, top: number }} at
 */
function drawPin(pin, comment, number, at) {
  pin.className = "pin " + comment.status;
  pin.textContent = String(number);
  pin.title = comment.body + " (" + describeStatus(comment) + ")";
  pin.setAttribute("aria-label", pinName(comment, number));
  pin.setAttribute("data-maple-status", comment.status);
  pin.toggleAttribute("data-maple-waiting", awaitingReviewer(comment));
  pin.style.left = at.left + "px";
  pin.style.top = at.top + "px";
}

/**
 * The field of a list entry the reviewer is writing in (`data-maple-field`, see thread.js), as
 * a function that focuses the same field of the rebuilt entry with the caret where it was; null
 * when focus is elsewhere. A comment's thread changing under the reviewer leaves them typing.
 * @param {import("./ui.js").Ui} ui
 * @returns {(() => void) | null}
 */
function fieldInUse(ui) {
  const active = ui.host.shadowRoot && ui.host.shadowRoot.activeElement;
  if (!(active instanceof HTMLTextAreaElement)) return null;
  const field = active.getAttribute("data-maple-field");
  const item = active.closest("[data-maple-comment]");
  const id = item && item.getAttribute("data-maple-comment");
  if (!field || !id) return null;
  const { selectionStart, selectionEnd } = active;
  return () => {
    const again = Array.from(ui.list.querySelectorAll("textarea[data-maple-field]")).find(
      (t) => t.getAttribute("data-maple-field") === field &&
        t.closest("[data-maple-comment]")?.getAttribute("data-maple-comment") === id,
    );
    if (!(again instanceof HTMLTextAreaElement)) return;
    again.focus();
    again.setSelectionRange(selectionStart, selectionEnd);
  };
}

/**
 * A function that redraws the pins and the list for those of the comments on this page (without
 * the resolved ones while `hideResolved()`). The list is rebuilt only when what it shows
 * changes, and a comment keeps its pin from one redraw to the next, so a reviewer's focus in
 * the list or on a pin survives a redraw.
 * @param {import("./ui.js").Ui} ui
 * @param {{ entry: (comment: import("./types.js").StoredComment, found: boolean) => HTMLLIElement,
 *   hideResolved: () => boolean, open: (id: string) => void }} options entry: makes a comment's
 *   list entry (see entries.js); open: shows a comment's entry in the list, focused
 * @returns {(comments: import("./types.js").StoredComment[]) => void}
 */
function pinBoard(ui, { entry, hideResolved, open }) {
  let listed = "";
  /** @type {Map<string, HTMLButtonElement>} */
  const kept = new Map();
  return (comments) => {
    const hide = hideResolved();
    const shown = comments.filter((c) => onThisPage(c) && !(hide && c.status === "resolved"));
    const found = shown.map(locate);
    const signature = JSON.stringify(
      shown.map((c, i) => [c.id, c.body, c.status, c.resolution, c.author, c.replies, found[i] !== null]),
    );
    if (signature !== listed) {
      listed = signature;
      const writing = fieldInUse(ui);
      ui.list.replaceChildren(...shown.map((c, i) => entry(c, found[i] !== null)));
      if (writing) writing();
    }
    /** @type {HTMLButtonElement[]} */
    const pins = [];
    /** @type {Map<Element, number>} */
    const pinned = new Map();
    shown.forEach((c, i) => {
      const element = found[i];
      const box = element && visibleBox(element);
      if (!element || !box) return;
      const earlier = pinned.get(element) || 0;
      pinned.set(element, earlier + 1);
      let pin = kept.get(c.id);
      if (!pin) {
        pin = document.createElement("button");
        pin.type = "button";
        pin.setAttribute("data-maple-comment", c.id);
        pin.addEventListener("click", () => open(c.id));
        kept.set(c.id, pin);
      }
      drawPin(pin, c, i + 1, pinPlace(element, box, earlier));
      pins.push(pin);
    });
    for (const id of kept.keys()) if (!shown.some((c) => c.id === id)) kept.delete(id);
    const now = Array.from(ui.pins.children);
    // moving a focused pin would blur it: the children change only when which pins show does
    if (now.length !== pins.length || pins.some((pin, i) => now[i] !== pin)) ui.pins.replaceChildren(...pins);
    ui.count.textContent = String(shown.length);
  };
}

// --- overlay/reviewer.js ---
// Who the reviewer is, as this browser remembers them: an id made once and the name they typed,
// kept in localStorage for every page of every run on this proxy's origin, with whether they
// hide resolved comments and folded the overlay away. The route records
// them as the author of the comments sent from here (provenance "client"), and the overlay
// offers to edit or delete the comments that carry this id.

const REVIEWER_KEY = "maple:reviewer";

/**
 * @typedef {object} ReviewerName
 * @property {string} id this browser's own id, the same on every visit
 * @property {string} name what the reviewer calls themselves; empty until they say
 * @property {boolean} hideResolved whether they chose to hide resolved comments
 * @property {boolean} folded whether they folded the overlay away
 */

/**
 * A fresh id: a UUID where the browser makes them (a page on 127.0.0.1 or localhost is a
 * secure context), else random digits.
 * @returns {string}
 */
function newReviewerId() {
  if (typeof crypto !== "undefined" && typeof crypto.randomUUID === "function") return crypto.randomUUID();
  return Array.from({ length: 4 }, () => Math.random().toString(36).slice(2, 10)).join("-");
}

/**
 * The reviewer this browser remembers, made (and remembered) on the first visit. A browser that
 * refuses storage gets a reviewer for this page only.
 * @returns {ReviewerName}
 */
function rememberedReviewer() {
  try {
    const kept = JSON.parse(localStorage.getItem(REVIEWER_KEY) || "null");
    if (kept && typeof kept.id === "string" && kept.id && typeof kept.name === "string") {
      return { id: kept.id, name: kept.name, hideResolved: kept.hideResolved === true, folded: kept.folded === true };
    }
  } catch {
    // unreadable or refused: start afresh below
  }
  const made = { id: newReviewerId(), name: "", hideResolved: false, folded: false };
  rememberReviewer(made);
  return made;
}

/**
 * Keeps the reviewer for the next visit (silently not, where the browser refuses storage).
 * @param {ReviewerName} reviewer
 */
function rememberReviewer(reviewer) {
  try {
    localStorage.setItem(REVIEWER_KEY, JSON.stringify(reviewer));
  } catch {
    // storage refused (a private window's quota, a policy): the name lasts for this page
  }
}

// --- overlay/main.js ---
// maple review overlay: comment on a running app. Dependency-free, in its own shadow root.
// Injected by `maple review` with data-maple-branch, data-maple-api and data-maple-app. This is
// the entry module: tests/overlay_bundle.py joins it and the modules it imports into ../overlay.js.


const POLL_MS = 3000;
/** How long a list entry's element stays highlighted after the reviewer picks the entry. */
const SHOW_MS = 2000;

/**
 * Mounts the overlay, unless this is a frame or the page already has a Maple overlay.
 * @param {HTMLOrSVGScriptElement | null} script the overlay's own <script> tag
 */
function start(script) {
  if (!script || document.querySelector("[data-maple-overlay]")) return; // another overlay: stand down
  const branch = script.getAttribute("data-maple-branch") || "default";
  const api = script.getAttribute("data-maple-api") || "/__maple/api";
  const appOrigin = script.getAttribute("data-maple-app") || "";
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
  ui.nameInput.value = reviewer.name;
  ui.hideResolvedBox.checked = reviewer.hideResolved;
  fold(ui, reviewer.folded);
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
    entry: entryMaker({ api, reviewer: () => reviewer, changed, show }),
    hideResolved: () => reviewer.hideResolved,
    open: openEntry,
  });
  let drawing = 0;
  // at most once a frame, after the app has rendered what changed
  const redraw = () => {
    if (drawing) return;
    drawing = requestAnimationFrame(() => {
      drawing = 0;
      place(comments);
      dock(ui);
    });
  };
  const refresh = async () => {
    const listed = await listComments(api, branch);
    if (listed) comments = listed;
    redraw();
  };
  const composer = createComposer(ui, {
    api, appOrigin, branch, say, sent: changed, author: () => ({ id: reviewer.id, name: reviewer.name }),
  });
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
    setPicking(false);
    composer.open(element, point);
  }

  ui.modeButton.addEventListener("click", () => setPicking(!picking));
  ui.foldButton.addEventListener("click", () => setFolded(!reviewer.folded));
  ui.listButton.addEventListener("click", () => {
    const open = ui.panel.style.display !== "block";
    ui.panel.style.display = open ? "block" : "none";
    ui.listButton.setAttribute("aria-expanded", open ? "true" : "false");
  });

  document.addEventListener("mousemove", (event) => {
    if (!picking) return;
    const element = document.elementFromPoint(event.clientX, event.clientY);
    if (element && element !== ui.host) outline(ui, element);
  }, true);
  keepInputInOverlay(ui.host);
  holdPagePointer(ui.host, () => picking || composer.isOpen(), (target, point) => {
    if (picking) compose(target, point);
  });
  // The overlay's own keys are consumed here, before the app's listeners could see them.
  document.addEventListener("keydown", (event) => {
    const focused = document.activeElement;
    const onPage = focused && focused !== document.body && focused !== ui.host ? focused : null;
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
  onNavigation(() => {
    composer.pageChanged();
    redraw();
  });
  // the app renders the new page's elements after the address changes, maybe asynchronously
  new MutationObserver(redraw).observe(document.documentElement, {
    childList: true, subtree: true, attributes: true, characterData: true,
  });
  // in the capture phase, a scroll of any element (a list in a scroll container), not only the page's
  document.addEventListener("scroll", redraw, { capture: true, passive: true });
  window.addEventListener("resize", redraw);

  void refresh();
  setInterval(() => void refresh(), POLL_MS);
}

start(document.currentScript);
})();
