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

type Capture = {
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
};

/** What a scanning step did: needs more input, consumed something (scan on), or did not apply here. */
const MORE = 0;
const NEXT = 1;
const NONE = 2;
type Step = typeof MORE | typeof NEXT | typeof NONE;

const describe = (ch: string | undefined) => (ch === undefined ? "the end of the file" : JSON.stringify(ch));

export async function* streamTopLevel(
  source: AsyncIterable<string | Uint8Array>,
  opts: {
    arrays: readonly string[];
    values?: readonly string[];
    /** Stop reading once every one of these top-level keys has been read (the rest of the file is not checked). */
    until?: readonly string[];
  },
): AsyncGenerator<StreamedValue> {
  const scanner = new TopLevelScanner(opts);
  const out = scanner.out;
  const decoder = new TextDecoder("utf-8", { fatal: true });
  for await (const chunk of source) {
    try {
      scanner.buf += typeof chunk === "string" ? chunk : decoder.decode(chunk, { stream: true });
    } catch {
      scanner.fail("the file is not valid UTF-8");
    }
    scanner.step(false);
    while (out.length) yield out.shift()!;
    if (scanner.broken) throw scanner.broken;
    if (scanner.stopped) return;
  }
  try {
    scanner.buf += decoder.decode();
  } catch {
    scanner.fail("the file is not valid UTF-8");
  }
  scanner.step(true);
  while (out.length) yield out.shift()!;
  if (scanner.broken) throw scanner.broken;
}

/**
 * The scanner's state between chunks: the unconsumed text, the position in it and in the document, the open
 * containers and the value being captured. `step` scans what the buffer holds and queues the values it finished in
 * `out`.
 */
class TopLevelScanner {
  buf = "";
  /** Position in buf. */
  i = 0;
  line = 1;
  column = 1;
  /** The root value has closed. */
  done = false;
  seenRoot = false;
  /** Every key of `until` has been read. */
  stopped = false;
  /** A syntax error, raised after the values read before it have been yielded. */
  broken: unknown = null;
  readonly stack: Frame[] = [];
  readonly out: StreamedValue[] = [];
  /** The value being captured: where it starts in buf, and where in the document. */
  capture: Capture | null = null;
  private readonly arrays: Set<string>;
  private readonly values: Set<string>;
  /** The keys of `until` not read yet; null without `until`. */
  private readonly pending: Set<string> | null;

  constructor(opts: { arrays: readonly string[]; values?: readonly string[]; until?: readonly string[] }) {
    this.arrays = new Set(opts.arrays);
    this.values = new Set(opts.values ?? []);
    this.pending = opts.until ? new Set(opts.until) : null;
  }

  private pathHere(): string {
    return formatPath(
      this.stack.flatMap((f): (string | number)[] =>
        f.kind === "object"
          ? f.key !== null && f.state !== "key" && f.state !== "key-or-end"
            ? [f.key]
            : []
          : [f.index],
      ),
    );
  }

  fail(reason: string): never {
    throw new JsonSyntaxError(this.line, this.column, this.pathHere(), reason);
  }

  private advance(to: number): void {
    const buf = this.buf;
    let line = this.line;
    let column = this.column;
    for (let k = this.i; k < to; k++) {
      if (buf.charCodeAt(k) === 10) {
        line++;
        column = 1;
      } else column++;
    }
    this.line = line;
    this.column = column;
    this.i = to;
  }

  /** Scans what the buffer holds, then keeps only what is still needed: the captured value, or the unfinished token. */
  step(eof: boolean): void {
    try {
      this.scan(eof);
    } catch (err) {
      this.broken = err;
      return;
    }
    const capture = this.capture;
    const keep = capture ? capture.start : this.i;
    if (keep > 0) {
      this.buf = this.buf.slice(keep);
      if (capture) {
        capture.start -= keep;
        capture.fast.at -= keep;
      }
      this.i -= keep;
    }
  }

  /** Scans as far as the buffer allows; returns false when it needs more input to finish a token. */
  private scan(eof: boolean): boolean {
    for (;;) {
      if (this.stopped) return true;
      this.skipWhiteSpace();
      if (this.i >= this.buf.length)
        return eof ? (this.done ? true : this.fail(`unexpected ${describe(undefined)}`)) : false;
      const ch = this.buf[this.i];
      if (this.done) this.fail(`unexpected ${describe(ch)} after the end of the document`);
      const top = this.stack[this.stack.length - 1];
      if (top) {
        const s = this.scanPunctuation(top, ch, eof);
        if (s === MORE) return false;
        if (s === NEXT) continue;
      }
      if (!this.scanValue(ch, eof)) return false;
    }
  }

  private skipWhiteSpace(): void {
    const buf = this.buf;
    let i = this.i;
    while (i < buf.length) {
      const c = buf.charCodeAt(i);
      if (c === 32 || c === 9 || c === 13) {
        i++;
        this.column++;
      } else if (c === 10) {
        i++;
        this.line++;
        this.column = 1;
      } else break;
    }
    this.i = i;
  }

  /** What may come between values in a container: a key, its colon, a comma or the close. */
  private scanPunctuation(top: Frame, ch: string, eof: boolean): Step {
    if (top.kind === "object" && (top.state === "key" || top.state === "key-or-end")) {
      if (ch === "}" && top.state === "key-or-end") return this.close();
      if (ch !== '"')
        this.fail(
          `expected a key (a string in double quotes)${top.state === "key-or-end" ? " or }" : ""}, found ${describe(ch)}`,
        );
      const end = this.stringEnd(eof);
      if (end < 0) return MORE;
      top.key = JSON.parse(this.buf.slice(this.i, end)) as string;
      this.advance(end);
      top.state = "colon";
      return NEXT;
    }
    if (top.kind === "object" && top.state === "colon") {
      if (ch !== ":") this.fail(`expected : after the key, found ${describe(ch)}`);
      this.advance(this.i + 1);
      top.state = "value";
      return NEXT;
    }
    if (top.state === "next") {
      if (ch === ",") {
        this.advance(this.i + 1);
        if (top.kind === "object") top.state = "key";
        else {
          top.index++;
          top.state = "value";
        }
        return NEXT;
      }
      const close = top.kind === "object" ? "}" : "]";
      if (ch !== close) this.fail(`expected , or ${close} after a value, found ${describe(ch)}`);
      return this.close();
    }
    if (top.kind === "array" && top.state === "first" && ch === "]") return this.close();
    return NONE;
  }

  /** The container on top of the stack closes at i. */
  private close(): Step {
    this.stack.pop();
    this.advance(this.i + 1);
    this.valueEnded();
    return NEXT;
  }

  /** A value starts at i; returns false when the buffer ends inside a token. */
  private scanValue(ch: string, eof: boolean): boolean {
    if (!this.seenRoot) {
      if (ch !== "{") this.fail(`expected the document to be a JSON object, found ${describe(ch)}`);
      this.seenRoot = true;
    }
    this.maybeCapture();
    const capture = this.capture;
    if (capture && capture.start === this.i && !capture.checked && (ch === "{" || ch === "[")) {
      const s = this.parseWhole(capture, eof);
      if (s !== NONE) return s === NEXT;
    }
    if (ch === "{" || ch === "[") {
      this.advance(this.i + 1);
      this.stack.push({
        kind: ch === "{" ? "object" : "array",
        state: ch === "{" ? "key-or-end" : "first",
        key: null,
        index: 0,
      });
      return true;
    }
    if (ch === '"') {
      const end = this.stringEnd(eof);
      if (end < 0) return false;
      this.advance(end);
      this.valueEnded();
      return true;
    }
    if (ch === "-" || (ch >= "0" && ch <= "9")) return this.scanNumber(eof);
    const buf = this.buf;
    const i = this.i;
    const literal = LITERALS.find((l) => buf.startsWith(l, i));
    if (literal) {
      this.advance(i + literal.length);
      this.valueEnded();
      return true;
    }
    if (!eof && buf.length - i < 5 && LITERALS.some((l) => l.startsWith(buf.slice(i)))) return false;
    return this.fail(`expected a value, found ${describe(ch)}`);
  }

  /**
   * Fast path: find the captured element's end by its brackets and strings alone, and let JSON.parse check it. Only
   * when JSON.parse refuses it is the element scanned again, token by token, to say where and why (NONE).
   */
  private parseWhole(capture: Capture, eof: boolean): Step {
    const end = this.balancedEnd(capture);
    if (end < 0) {
      if (!eof) return MORE;
      capture.checked = true;
      return NONE;
    }
    let value: unknown;
    try {
      value = JSON.parse(this.buf.slice(this.i, end));
    } catch {
      capture.checked = true;
      return NONE;
    }
    capture.parsed = { value };
    this.advance(end);
    this.valueEnded();
    return NEXT;
  }

  private scanNumber(eof: boolean): boolean {
    const buf = this.buf;
    const i = this.i;
    // A number may go on in the next chunk: wait while everything left could still be part of it.
    if (!eof && numberRunEnd(buf, i) === buf.length) return false;
    NUMBER.lastIndex = i;
    const m = NUMBER.exec(buf);
    if (!m) return this.fail(`malformed number`);
    const end = i + m[0].length;
    const next = buf[end];
    if (next !== undefined && /[0-9.eE+\-]/.test(next)) {
      this.advance(end);
      this.fail(`malformed number`);
    }
    this.advance(end);
    this.valueEnded();
    return true;
  }

  /** A value starts at i: at depth 1 under a key we keep, or at depth 2 inside an array we stream. */
  private maybeCapture(): void {
    if (this.capture) return;
    const stack = this.stack;
    const i = this.i;
    if (stack.length === 1 && stack[0].key !== null) {
      const key = stack[0].key;
      if (this.arrays.has(key) && this.buf[i] === "[") return; // its elements are captured one by one
      if (this.arrays.has(key) || this.values.has(key))
        this.capture = {
          start: i,
          fast: { at: i, depth: 0 },
          checked: false,
          depth: 1,
          key,
          index: null,
          line: this.line,
          column: this.column,
        };
    } else if (
      stack.length === 2 &&
      stack[1].kind === "array" &&
      stack[0].key !== null &&
      this.arrays.has(stack[0].key)
    ) {
      this.capture = {
        start: i,
        fast: { at: i, depth: 0 },
        checked: false,
        depth: 2,
        key: stack[0].key,
        index: stack[1].index,
        line: this.line,
        column: this.column,
      };
    }
  }

  /** A value ended at i (exclusive): the depth is back where the capture began. */
  private valueEnded(): void {
    const stack = this.stack;
    const capture = this.capture;
    if (capture && stack.length === capture.depth) {
      this.out.push({
        key: capture.key,
        index: capture.index,
        value: capture.parsed ? capture.parsed.value : JSON.parse(this.buf.slice(capture.start, this.i)),
        line: capture.line,
        column: capture.column,
      });
      this.capture = null;
    }
    const top = stack[stack.length - 1];
    if (!top) this.done = true;
    else top.state = "next";
    const pending = this.pending;
    if (stack.length === 1 && pending && pending.delete(stack[0].key ?? "") && pending.size === 0) this.stopped = true;
  }

  /** The end (exclusive) of the string starting at i, -1 when the buffer ends inside it; a bad string fails. */
  private stringEnd(eof: boolean): number {
    const buf = this.buf;
    const i = this.i;
    STRING.lastIndex = i;
    const m = STRING.exec(buf);
    if (m) return i + m[0].length;
    // Either the string is not finished yet, or it is malformed: find out which, and where.
    let k = i + 1;
    while (k < buf.length) {
      const c = buf.charCodeAt(k);
      if (c === 34) break;
      if (c < 0x20) {
        this.advance(k);
        this.fail(
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
            this.advance(k);
            this.fail(`bad \\u escape in a string`);
          }
          k += 6;
          continue;
        }
        if (!'"\\/bfnrt'.includes(e)) {
          this.advance(k);
          this.fail(`bad escape \\${e} in a string`);
        }
        k += 2;
        continue;
      }
      k++;
    }
    if (eof) this.fail(`a string that is never closed`);
    return -1;
  }

  /**
   * The end (exclusive) of the object or array the capture starts with, found by its brackets and strings only, or
   * -1 when the buffer ends first (the progress is kept in `c.fast`, so a long element is not scanned twice).
   */
  private balancedEnd(c: { fast: { at: number; depth: number } }): number {
    const buf = this.buf;
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
  }
}
