// Every statement the pg clients of this process send (Prisma's and the pools' alike), captured while a read runs:
// for the Citus tests that EXPLAIN each statement of a page, and bench/citus-statements.ts, which times them.
import pg from "pg";

export type Sent = { text: string; values: unknown[] };

let sent: Sent[] | null = null;
const query = pg.Client.prototype.query;

/** Wraps pg.Client's query so that capture() sees every statement; restore() puts it back. */
export function installStatementCapture(): { restore: () => void } {
  (pg.Client.prototype as unknown as { query: (...a: unknown[]) => unknown }).query = function (
    this: pg.Client,
    ...args: unknown[]
  ) {
    const q = args[0] as string | { text?: string; values?: unknown[] } | undefined;
    const text = typeof q === "string" ? q : q?.text;
    if (sent && text) {
      const values = typeof q === "string" ? (Array.isArray(args[1]) ? args[1] : []) : (q?.values ?? []);
      sent.push({ text, values });
    }
    return (query as (...a: unknown[]) => unknown).apply(this, args);
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
