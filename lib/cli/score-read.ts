// Reading the input files of `verity score`: one JSON value (an object or an array of objects) or NDJSON, each item
// with the line it starts on, and a locator that turns an issue path into the line of that field, so errors read
// `FILE:LINE: path: message` even for pretty-printed files.

export type Item = {
  file: string;
  /** 1-based line where the item starts. */
  line: number;
  /** The parsed value, or undefined with `syntaxError` set for an NDJSON line that is not JSON. */
  value: unknown;
  syntaxError?: string;
  /** Line of a dotted path inside the item (best effort: the deepest part of the path that exists). */
  lineOf(path: string): number;
};

export type ReadResult = { ok: true; items: Item[] } | { ok: false; message: string };

export function parseInputText(file: string, raw: string): ReadResult {
  const text = raw.charCodeAt(0) === 0xfeff ? raw.slice(1) : raw;
  const start = firstNonSpace(text, 0);
  if (start === text.length) return { ok: true, items: [] };
  const lines = lineStarts(text);
  const item = (at: number, value: unknown): Item => ({
    file,
    line: lineAt(lines, at),
    value,
    lineOf: (path) => lineAt(lines, locate(text, at, path)),
  });

  let whole: unknown;
  let wholeError: string | undefined;
  try {
    whole = JSON.parse(text);
  } catch (err) {
    wholeError = (err as Error).message;
  }
  if (wholeError === undefined) {
    if (!Array.isArray(whole)) return { ok: true, items: [item(start, whole)] };
    const offsets = arrayElementOffsets(text, start);
    return { ok: true, items: whole.map((v, i) => item(offsets[i], v)) };
  }

  // Not one JSON value: NDJSON, provided some line is a JSON object on its own from its first column; then every
  // non-blank line is an item and a bad one, the first included, costs that line only. Otherwise the file is a
  // broken JSON document and is reported as such (not as a hundred broken lines): the objects nested in a
  // pretty-printed document are indented, so they do not make it NDJSON.
  const rawLines = text.split("\n");
  if (!rawLines.some((l) => l.charCodeAt(0) === 123 /* { */ && isJsonObject(l))) {
    return {
      ok: false,
      message: `${file}:${lineAt(lines, syntaxErrorOffset(text))}: not JSON or NDJSON: ${wholeError}`,
    };
  }
  const items: Item[] = [];
  rawLines.forEach((l, i) => {
    if (l.trim() === "") return;
    const at = lines[i];
    try {
      items.push(item(at, JSON.parse(l)));
    } catch (err) {
      items.push({ file, line: i + 1, value: undefined, syntaxError: (err as Error).message, lineOf: () => i + 1 });
    }
  });
  return { ok: true, items };
}

function isJsonObject(line: string): boolean {
  try {
    const v = JSON.parse(line);
    return v !== null && typeof v === "object" && !Array.isArray(v);
  } catch {
    return false;
  }
}

function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) starts.push(i + 1);
  return starts;
}

/** 1-based line of an offset (binary search over line starts). */
function lineAt(starts: number[], offset: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid] <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo + 1;
}

/**
 * Offset of the first JSON syntax error (V8's message does not always carry a position). A minimal recursive-descent
 * check: it only has to find where parsing stops, JSON.parse has already said that it does.
 */
function syntaxErrorOffset(text: string): number {
  let i = 0;
  const ws = () => (i = firstNonSpace(text, i));
  const fail = (): never => {
    throw i;
  };
  const value = (): void => {
    ws();
    const c = text[i];
    if (c === "{" || c === "[") {
      const close = c === "{" ? "}" : "]";
      i++;
      ws();
      if (text[i] === close) return void i++;
      for (;;) {
        if (c === "{") {
          if (text[i] !== '"') fail();
          value();
          ws();
          if (text[i] !== ":") fail();
          i++;
        }
        value();
        ws();
        if (text[i] === ",") i++;
        else if (text[i] === close) return void i++;
        else fail();
        ws();
      }
    }
    if (c === '"') {
      for (i++; i < text.length && text[i] !== '"'; i++) if (text[i] === "\\") i++;
      if (i >= text.length) fail();
      return void i++;
    }
    const m = /^(?:-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null)/.exec(text.slice(i, i + 400));
    if (!m) fail();
    i += (m as RegExpExecArray)[0].length;
  };
  try {
    value();
    ws();
    return i;
  } catch (at) {
    return typeof at === "number" ? at : 0;
  }
}

function firstNonSpace(text: string, i: number): number {
  while (i < text.length && (text[i] === " " || text[i] === "\t" || text[i] === "\n" || text[i] === "\r")) i++;
  return i;
}

/** Offset just past the JSON value starting at `i` (text is known to be valid JSON). */
function skipValue(text: string, i: number): number {
  const c = text[i];
  if (c === '"') {
    for (i++; text[i] !== '"'; i++) if (text[i] === "\\") i++;
    return i + 1;
  }
  if (c === "{" || c === "[") {
    let depth = 0;
    for (; i < text.length; i++) {
      const ch = text[i];
      if (ch === '"') i = skipValue(text, i) - 1;
      else if (ch === "{" || ch === "[") depth++;
      else if (ch === "}" || ch === "]") {
        depth--;
        if (depth === 0) return i + 1;
      }
    }
    return i;
  }
  while (i < text.length && !",}] \t\r\n".includes(text[i])) i++;
  return i;
}

function arrayElementOffsets(text: string, open: number): number[] {
  const out: number[] = [];
  let i = firstNonSpace(text, open + 1);
  while (i < text.length && text[i] !== "]") {
    out.push(i);
    i = firstNonSpace(text, skipValue(text, i));
    if (text[i] === ",") i = firstNonSpace(text, i + 1);
  }
  return out;
}

/** Members of the object at `open`: [key, offset of the key, offset of the value]. */
function objectMembers(text: string, open: number): [string, number, number][] {
  const out: [string, number, number][] = [];
  let i = firstNonSpace(text, open + 1);
  while (i < text.length && text[i] === '"') {
    const keyEnd = skipValue(text, i);
    const key = JSON.parse(text.slice(i, keyEnd)) as string;
    const valueAt = firstNonSpace(text, firstNonSpace(text, keyEnd) + 1);
    out.push([key, i, valueAt]);
    i = firstNonSpace(text, skipValue(text, valueAt));
    if (text[i] === ",") i = firstNonSpace(text, i + 1);
  }
  return out;
}

/**
 * Offset of the value at a dotted path below the value at `at`. Keys may themselves contain dots (tool names), so
 * at each object the longest run of segments that names a member wins. Stops at the deepest part that exists.
 */
function locate(text: string, at: number, path: string): number {
  const segs = path === "" ? [] : path.split(".");
  let i = 0;
  let cur = at;
  while (i < segs.length) {
    if (text[cur] === "[") {
      const idx = Number(segs[i]);
      const offsets = arrayElementOffsets(text, cur);
      if (!Number.isInteger(idx) || idx >= offsets.length) return cur;
      cur = offsets[idx];
      i++;
    } else if (text[cur] === "{") {
      const members = objectMembers(text, cur);
      let found = false;
      for (let k = segs.length - i; k >= 1 && !found; k--) {
        const key = segs.slice(i, i + k).join(".");
        const m = members.find(([name]) => name === key);
        if (!m) continue;
        i += k;
        // At the end of the path point at the key: an unknown-field issue names the key itself.
        if (i === segs.length) return m[1];
        cur = m[2];
        found = true;
      }
      if (!found) return cur;
    } else {
      return cur;
    }
  }
  return cur;
}
