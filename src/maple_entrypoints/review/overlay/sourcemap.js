// Positions in the code a dev server sends back to the file the developer edits. A framework
// reports where an element was made in transformed code (React 19's owner stacks); the dev
// server's source map for that module (inline, as Vite serves it, or beside it) gives the line
// in the original file. Only modules of the page's own origin are read, each once, at most
// MAX_BYTES, so a page cannot make the overlay fetch from elsewhere or read without bound.

/** The most the overlay reads of one module or map. */
const MAX_BYTES = 4 * 1024 * 1024;
const VLQ = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/**
 * @typedef {object} Module What one served module's source map says.
 * @property {string[]} sources each original file, as a URL (or an absolute path)
 * @property {(number[][] | null)[]} lines per generated line, its segments:
 *   [column, source, line, column], all from 0
 * @property {string[]} contents the original files' text, where the map carries it
 */

/** @type {Map<string, Promise<Module | null>>} by module URL */
const modules = new Map();

/**
 * Text of a same-origin URL, or null (another origin, refused, too large).
 * @param {string} url
 * @returns {Promise<string | null>}
 */
export async function readSameOrigin(url) {
  let parsed;
  try {
    parsed = new URL(url, location.href);
  } catch {
    return null;
  }
  if (parsed.origin !== location.origin) return null;
  try {
    const answer = await fetch(parsed.href, { credentials: "same-origin" });
    const size = Number(answer.headers.get("content-length") || "0");
    if (!answer.ok || size > MAX_BYTES) return null;
    const text = await answer.text();
    return text.length > MAX_BYTES ? null : text;
  } catch {
    return null;
  }
}

/**
 * Decodes a map's `mappings` into segments per generated line.
 * @param {string} mappings
 * @returns {(number[][] | null)[]}
 */
function decode(mappings) {
  /** @type {(number[][] | null)[]} */
  const lines = [];
  const state = [0, 0, 0, 0];
  for (const line of mappings.split(";")) {
    state[0] = 0;
    /** @type {number[][]} */
    const segments = [];
    for (const part of line.split(",")) {
      if (!part) continue;
      /** @type {number[]} */
      const fields = [];
      let value = 0;
      let shift = 0;
      for (const char of part) {
        const digit = VLQ.indexOf(char);
        if (digit < 0) return lines; // not a map: what was read so far
        value += (digit & 31) << shift;
        if (digit & 32) {
          shift += 5;
          continue;
        }
        fields.push(value & 1 ? -(value >>> 1) : value >>> 1);
        value = 0;
        shift = 0;
      }
      if (fields.length < 4) continue;
      for (let i = 0; i < 4; i++) state[i] += fields[i];
      segments.push(state.slice());
    }
    lines.push(segments.length ? segments : null);
  }
  return lines;
}

/**
 * The map a module's text names (its last sourceMappingURL), as parsed JSON, or null.
 * @param {string} text
 * @param {string} url the module's URL
 * @returns {Promise<{ sources?: unknown, sourceRoot?: unknown, mappings?: unknown, sourcesContent?: unknown } | null>}
 */
async function mapOf(text, url) {
  const named = text.match(/\/\/[#@] sourceMappingURL=(\S+)\s*$/);
  if (!named) return null;
  const where = named[1];
  let json = null;
  const inline = where.match(/^data:application\/json;(?:charset=utf-8;)?base64,([A-Za-z0-9+/=]+)$/i);
  if (inline) {
    const bytes = Uint8Array.from(atob(inline[1]), (c) => c.charCodeAt(0));
    json = new TextDecoder().decode(bytes);
  } else if (!where.startsWith("data:")) {
    json = await readSameOrigin(new URL(where, url).href);
  }
  try {
    const map = json ? JSON.parse(json) : null;
    return map && typeof map === "object" ? map : null;
  } catch {
    return null;
  }
}

/**
 * The absolute path a JSX transform names the module's file by (`_jsxFileName`), if any.
 * @param {string} text
 * @returns {string}
 */
function jsxFileName(text) {
  const named = text.match(/\b_jsxFileName\s*=\s*("(?:[^"\\\n]|\\.){1,1000}")/);
  try {
    return named ? String(JSON.parse(named[1])) : "";
  } catch {
    return "";
  }
}

/**
 * @param {string} url
 * @returns {Promise<Module | null>}
 */
async function load(url) {
  const text = await readSameOrigin(url);
  const map = text && (await mapOf(text, url));
  if (!text || !map || typeof map.mappings !== "string" || !Array.isArray(map.sources)) return null;
  const root = typeof map.sourceRoot === "string" ? map.sourceRoot : "";
  const file = jsxFileName(text);
  const sources = map.sources.map((/** @type {unknown} */ source) => {
    const name = String(source);
    if (file && (name === file || file.endsWith("/" + name.replace(/^(\.\/)+/, "")))) return file;
    return name.startsWith("/") ? name : new URL(root + name, url).href;
  });
  const contents = Array.isArray(map.sourcesContent) ? map.sourcesContent.map((/** @type {unknown} */ c) => (typeof c === "string" ? c : "")) : [];
  return { sources, lines: decode(map.mappings), contents };
}

/**
 * A served module's map, read once per URL.
 * @param {string} url
 * @returns {Promise<Module | null>}
 */
export function moduleMap(url) {
  let loading = modules.get(url);
  if (!loading) {
    loading = load(url);
    modules.set(url, loading);
  }
  return loading;
}

/**
 * The original file, line and column (from 1) of a position in a served module, or null.
 * @param {string} url the module's URL
 * @param {number} line from 1, as a stack trace gives it
 * @param {number} column from 1
 * @returns {Promise<{ file: string, line: number, column: number } | null>}
 */
export async function originalPosition(url, line, column) {
  const module = await moduleMap(url);
  const segments = module && module.lines[line - 1];
  if (!module || !segments) return null;
  let best = null;
  for (const segment of segments) {
    if (segment[0] > column - 1) break;
    best = segment;
  }
  best = best || segments[0];
  const file = module.sources[best[1]];
  return file ? { file, line: best[2] + 1, column: best[3] + 1 } : null;
}
