// Streams the members of one large JSON document whose top level is an object — a tau2-bench results file is
// `{"timestamp", "info", "tasks": [...], "simulations": [...]}` — without holding the document: the elements of the
// arrays named in `arrays` are yielded one at a time, the values of the keys named in `values` whole, and
// everything else is scanned and dropped. Memory is bounded by the largest single element.
//
// The scanner checks the whole document's syntax (RFC 8259) as it goes: a malformed byte anywhere stops it with
// a JsonSyntaxError naming the line, the column and the JSON path where it happened. An element is sliced out of
// the text once its syntax is known to be good and decoded by JSON.parse, which is fast.

export type StreamedValue = {
  /** The top-level key. */
  key: string;
  /** The element's index in its array; null for a whole value (a key of `values`, or a non-array under `arrays`). */
  index: number | null;
  value: unknown;
  /** Where the value starts in the document, 1-based. */
  line: number;
  column: number;
};

export class JsonSyntaxError extends Error {
  constructor(
    readonly line: number,
    readonly column: number,
    readonly path: string,
    readonly reason: string,
  ) {
    super(`malformed JSON at line ${line}, column ${column}${path ? ` (in ${path})` : ""}: ${reason}`);
  }
}

type Frame = {
  kind: "object" | "array";
  /** object: key | colon | value | next; array: first | value | next ("first" and "key-or-end" allow a close). */
  state: "key" | "key-or-end" | "colon" | "value" | "next" | "first";
  key: string | null;
  index: number;
};

const STRING = /"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/y;
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
/** Where the run of characters that could belong to a number, starting at `i`, ends. */
function numberRunEnd(s: string, i: number): number {
  let k = i;
  for (; k < s.length; k++) {
    const c = s.charCodeAt(k);
    // 0-9 . + - e E
    if (!((c >= 48 && c <= 57) || c === 46 || c === 43 || c === 45 || c === 101 || c === 69)) break;
  }
  return k;
}
const STRUCTURE = /["{}[\]]/g;
const FAST_STRING = /"(?:[^"\\]|\\[^])*"/y;
const LITERALS = ["true", "false", "null"] as const;

/** A JSON path in the style of the tool's error messages: `simulations[12].messages[3].tool_calls`. */
export function formatPath(parts: readonly (string | number)[]): string {
  let out = "";
  for (const p of parts) {
    if (typeof p === "number") out += `[${p}]`;
    else out += /^[A-Za-z_][A-Za-z0-9_]*$/.test(p) ? (out ? "." : "") + p : `[${JSON.stringify(p)}]`;
  }
  return out;
}

export async function* streamTopLevel(
  source: AsyncIterable<string | Uint8Array>,
  opts: {
    arrays: readonly string[];
    values?: readonly string[];
    /** Stop reading once every one of these top-level keys has been read (the rest of the file is not checked). */
    until?: readonly string[];
  },
): AsyncGenerator<StreamedValue> {
  const arrays = new Set(opts.arrays);
  const pending = new Set(opts.until ?? []);
  let stopped = false;
  const values = new Set(opts.values ?? []);
  const decoder = new TextDecoder("utf-8", { fatal: true });
  const stack: Frame[] = [];
  let buf = "";
  let i = 0; // position in buf
  let line = 1;
  let column = 1;
  let done = false; // the root value has closed
  let seenRoot = false;
  // The value being captured: where it starts in buf, and where in the document.
  let capture: {
    start: number;
    /** The fast path's progress through the element: position, bracket depth (resumed when more input comes). */
    fast: { at: number; depth: number };
    /** Set once the fast path gave up: the element is scanned token by token. */
    checked: boolean;
    /** The value, when the fast path parsed it. */
    parsed?: { value: unknown };
    depth: number;
    key: string;
    index: number | null;
    line: number;
    column: number;
  } | null = null;
  const out: StreamedValue[] = [];

  const pathHere = (): string =>
    formatPath(
      stack.flatMap((f): (string | number)[] =>
        f.kind === "object"
          ? f.key !== null && f.state !== "key" && f.state !== "key-or-end"
            ? [f.key]
            : []
          : [f.index],
      ),
    );
  const fail = (reason: string): never => {
    throw new JsonSyntaxError(line, column, pathHere(), reason);
  };
  const advance = (to: number) => {
    for (let k = i; k < to; k++) {
      if (buf.charCodeAt(k) === 10) {
        line++;
        column = 1;
      } else column++;
    }
    i = to;
  };
  const describe = (ch: string | undefined) => (ch === undefined ? "the end of the file" : JSON.stringify(ch));

  /** A value starts at i: at depth 1 under a key we keep, or at depth 2 inside an array we stream. */
  const maybeCapture = () => {
    if (capture) return;
    if (stack.length === 1 && stack[0].key !== null) {
      const key = stack[0].key;
      if (arrays.has(key) && buf[i] === "[") return; // its elements are captured one by one
      if (arrays.has(key) || values.has(key))
        capture = { start: i, fast: { at: i, depth: 0 }, checked: false, depth: 1, key, index: null, line, column };
    } else if (stack.length === 2 && stack[1].kind === "array" && stack[0].key !== null && arrays.has(stack[0].key)) {
      capture = {
        start: i,
        fast: { at: i, depth: 0 },
        checked: false,
        depth: 2,
        key: stack[0].key,
        index: stack[1].index,
        line,
        column,
      };
    }
  };
  /** A value ended at i (exclusive): the depth is back where the capture began. */
  const valueEnded = () => {
    if (capture && stack.length === capture.depth) {
      out.push({
        key: capture.key,
        index: capture.index,
        value: capture.parsed ? capture.parsed.value : JSON.parse(buf.slice(capture.start, i)),
        line: capture.line,
        column: capture.column,
      });
      capture = null;
    }
    const top = stack[stack.length - 1];
    if (!top) done = true;
    else top.state = "next";
    if (stack.length === 1 && opts.until && pending.delete(stack[0].key ?? "") && pending.size === 0) stopped = true;
  };

  /** Scans as far as the buffer allows; returns false when it needs more input to finish a token. */
  const scan = (eof: boolean): boolean => {
    for (;;) {
      if (stopped) return true;
      // white space
      while (i < buf.length) {
        const c = buf.charCodeAt(i);
        if (c === 32 || c === 9 || c === 13) {
          i++;
          column++;
        } else if (c === 10) {
          i++;
          line++;
          column = 1;
        } else break;
      }
      if (i >= buf.length) return eof ? (done ? true : fail(`unexpected ${describe(undefined)}`)) : false;
      const ch = buf[i];
      if (done) fail(`unexpected ${describe(ch)} after the end of the document`);
      const top = stack[stack.length - 1];

      if (top && top.kind === "object" && (top.state === "key" || top.state === "key-or-end")) {
        if (ch === "}" && top.state === "key-or-end") {
          stack.pop();
          advance(i + 1);
          valueEnded();
          continue;
        }
        if (ch !== '"')
          fail(
            `expected a key (a string in double quotes)${top.state === "key-or-end" ? " or }" : ""}, found ${describe(ch)}`,
          );
        const end = stringEnd(eof);
        if (end < 0) return false;
        top.key = JSON.parse(buf.slice(i, end)) as string;
        advance(end);
        top.state = "colon";
        continue;
      }
      if (top && top.kind === "object" && top.state === "colon") {
        if (ch !== ":") fail(`expected : after the key, found ${describe(ch)}`);
        advance(i + 1);
        top.state = "value";
        continue;
      }
      if (top && top.state === "next") {
        if (ch === ",") {
          advance(i + 1);
          if (top.kind === "object") top.state = "key";
          else {
            top.index++;
            top.state = "value";
          }
          continue;
        }
        const close = top.kind === "object" ? "}" : "]";
        if (ch !== close) fail(`expected , or ${close} after a value, found ${describe(ch)}`);
        stack.pop();
        advance(i + 1);
        valueEnded();
        continue;
      }
      if (top && top.kind === "array" && top.state === "first" && ch === "]") {
        stack.pop();
        advance(i + 1);
        valueEnded();
        continue;
      }

      // A value.
      if (!seenRoot) {
        if (ch !== "{") fail(`expected the document to be a JSON object, found ${describe(ch)}`);
        seenRoot = true;
      }
      maybeCapture();
      if (capture && capture.start === i && !capture.checked && (ch === "{" || ch === "[")) {
        // Fast path: find the element's end by its brackets and strings alone, and let JSON.parse check it. Only
        // when JSON.parse refuses it is the element scanned again below, token by token, to say where and why.
        const end = balancedEnd(capture);
        if (end < 0) {
          if (!eof) return false;
          capture.checked = true;
        } else {
          let value: unknown;
          let parsed = true;
          try {
            value = JSON.parse(buf.slice(i, end));
          } catch {
            parsed = false;
            capture.checked = true;
          }
          if (parsed) {
            capture.parsed = { value };
            advance(end);
            valueEnded();
            continue;
          }
        }
      }
      if (ch === "{" || ch === "[") {
        advance(i + 1);
        stack.push({
          kind: ch === "{" ? "object" : "array",
          state: ch === "{" ? "key-or-end" : "first",
          key: null,
          index: 0,
        });
        continue;
      }
      if (ch === '"') {
        const end = stringEnd(eof);
        if (end < 0) return false;
        advance(end);
        valueEnded();
        continue;
      }
      if (ch === "-" || (ch >= "0" && ch <= "9")) {
        // A number may go on in the next chunk: wait while everything left could still be part of it.
        if (!eof && numberRunEnd(buf, i) === buf.length) return false;
        NUMBER.lastIndex = i;
        const m = NUMBER.exec(buf);
        if (!m) fail(`malformed number`);
        const end = i + m![0].length;
        const next = buf[end];
        if (next !== undefined && /[0-9.eE+\-]/.test(next)) {
          advance(end);
          fail(`malformed number`);
        }
        advance(end);
        valueEnded();
        continue;
      }
      const literal = LITERALS.find((l) => buf.startsWith(l, i));
      if (literal) {
        advance(i + literal.length);
        valueEnded();
        continue;
      }
      if (!eof && buf.length - i < 5 && LITERALS.some((l) => l.startsWith(buf.slice(i)))) return false;
      fail(`expected a value, found ${describe(ch)}`);
    }
  };

  /** The end (exclusive) of the string starting at i, -1 when the buffer ends inside it; a bad string fails. */
  const stringEnd = (eof: boolean): number => {
    STRING.lastIndex = i;
    const m = STRING.exec(buf);
    if (m) return i + m[0].length;
    // Either the string is not finished yet, or it is malformed: find out which, and where.
    let k = i + 1;
    while (k < buf.length) {
      const c = buf.charCodeAt(k);
      if (c === 34) break;
      if (c < 0x20) {
        advance(k);
        fail(
          `a control character (U+${c.toString(16).padStart(4, "0").toUpperCase()}) inside a string must be escaped`,
        );
      }
      if (c === 92) {
        if (k + 1 >= buf.length) break;
        const e = buf[k + 1];
        if (e === "u") {
          const hex = buf.slice(k + 2, k + 6);
          if (hex.length < 4 && k + 6 > buf.length) break;
          if (!/^[0-9a-fA-F]{4}$/.test(hex)) {
            advance(k);
            fail(`bad \\u escape in a string`);
          }
          k += 6;
          continue;
        }
        if (!'"\\/bfnrt'.includes(e)) {
          advance(k);
          fail(`bad escape \\${e} in a string`);
        }
        k += 2;
        continue;
      }
      k++;
    }
    if (eof) fail(`a string that is never closed`);
    return -1;
  };

  /**
   * The end (exclusive) of the object or array the capture starts with, found by its brackets and strings only, or
   * -1 when the buffer ends first (the progress is kept in `c.fast`, so a long element is not scanned twice).
   */
  const balancedEnd = (c: { fast: { at: number; depth: number } }): number => {
    let k = c.fast.at;
    let depth = c.fast.depth;
    for (;;) {
      STRUCTURE.lastIndex = k;
      const m = STRUCTURE.exec(buf);
      if (!m) break;
      const at = m.index;
      const q = buf.charCodeAt(at);
      if (q === 34) {
        FAST_STRING.lastIndex = at;
        const sm = FAST_STRING.exec(buf);
        if (!sm) {
          k = at;
          break;
        }
        k = at + sm[0].length;
        continue;
      }
      depth += q === 123 || q === 91 ? 1 : -1;
      k = at + 1;
      if (depth === 0) return k;
    }
    c.fast.at = k;
    c.fast.depth = depth;
    return -1;
  };

  // A syntax error is raised after the values read before it have been yielded.
  let broken: unknown = null;
  const step = (eof: boolean) => {
    try {
      scan(eof);
    } catch (err) {
      broken = err;
      return;
    }
    // Keep only what is still needed: the captured value, or the unfinished token.
    const keep = capture ? capture.start : i;
    if (keep > 0) {
      buf = buf.slice(keep);
      if (capture) {
        capture.start -= keep;
        capture.fast.at -= keep;
      }
      i -= keep;
    }
  };

  for await (const chunk of source) {
    try {
      buf += typeof chunk === "string" ? chunk : decoder.decode(chunk, { stream: true });
    } catch {
      fail("the file is not valid UTF-8");
    }
    step(false);
    while (out.length) yield out.shift()!;
    if (broken) throw broken;
    if (stopped) return;
  }
  try {
    buf += decoder.decode();
  } catch {
    fail("the file is not valid UTF-8");
  }
  step(true);
  while (out.length) yield out.shift()!;
  if (broken) throw broken;
}
