// Every statement the pg clients of this process send (Prisma's and the pools' alike), captured while a read runs:
// for the Citus tests that EXPLAIN each statement of a page, the tests of what a page sends at once, and
// bench/citus-statements.ts, which times them.
import { performance } from "node:perf_hooks";
import pg from "pg";

/**
 * A statement as its client sent it: when it was sent and when its answer came (performance.now(), the answer's
 * time once it came), and the server process of the connection it went on.
 */
export type Sent = { text: string; values: unknown[]; sent: number; answered?: number; pid: number };

/** Whether a statement is a query to plan: not transaction control or a setting. */
export const planned = (s: Sent) => !/^\s*(begin|commit|rollback|set |savepoint|release)/i.test(s.text);

let sent: Sent[] | null = null;
const query = pg.Client.prototype.query;

/** Wraps pg.Client's query so that capture() sees every statement; restore() puts it back. */
export function installStatementCapture(): { restore: () => void } {
  (pg.Client.prototype as unknown as { query: (...a: unknown[]) => unknown }).query = function (
    this: pg.Client & { processID: number },
    ...args: unknown[]
  ) {
    const q = args[0] as string | { text?: string; values?: unknown[] } | undefined;
    const text = typeof q === "string" ? q : q?.text;
    if (!sent || !text) return (query as (...a: unknown[]) => unknown).apply(this, args);
    const values = typeof q === "string" ? (Array.isArray(args[1]) ? args[1] : []) : (q?.values ?? []);
    const s: Sent = { text, values, sent: performance.now(), pid: this.processID };
    sent.push(s);
    const answered = () => (s.answered = performance.now());
    // The pool calls it with a callback, a client of its own without one (and gets a promise).
    const last = args.length - 1;
    if (typeof args[last] === "function") {
      const callback = args[last] as (...r: unknown[]) => unknown;
      args[last] = (...r: unknown[]) => (answered(), callback(...r));
      return (query as (...a: unknown[]) => unknown).apply(this, args);
    }
    const result = (query as (...a: unknown[]) => unknown).apply(this, args) as { then?: unknown } | undefined;
    // A promise, or a cursor or a stream (a Submittable), which is not timed.
    if (typeof result?.then === "function") (result as Promise<unknown>).then(answered, answered);
    return result;
  };
  return { restore: () => (pg.Client.prototype.query = query) };
}

/** `read`'s result and every statement sent while it ran (installStatementCapture first). */
export async function capture<T>(read: () => Promise<T>): Promise<{ result: T; statements: Sent[] }> {
  const statements: Sent[] = [];
  sent = statements;
  try {
    return { result: await read(), statements };
  } finally {
    sent = null;
  }
}
