/** Turns a connection failure into one sentence for a person, never a stack trace. */
export function describeConnectionError(url: string, err: unknown): string {
  const where = redactUrl(url);
  const e = err as { code?: string; message?: string } | undefined;
  const code = e?.code ?? "";
  const reason =
    code === "ECONNREFUSED"
      ? "nothing is listening there"
      : code === "ENOTFOUND" || code === "EAI_AGAIN"
        ? "the host name does not resolve"
        : code === "ETIMEDOUT"
          ? "the connection timed out"
          : code === "28P01" || code === "28000"
            ? "the user name or password was rejected"
            : code === "3D000"
              ? "that database does not exist"
              : (e?.message ?? String(err)).split("\n")[0];
  return `Cannot connect to the database at ${where}: ${reason}.`;
}

/** The URL with its password replaced, safe to print. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = "***";
    return u.toString();
  } catch {
    return "(an unparseable DATABASE_URL)";
  }
}

/**
 * What a failed statement says about the database, by its SQLSTATE (PostgreSQL's appendix A) or Node's socket code:
 * - "data": the values written were refused — class 22 (data exception: a value out of range, malformed, …), 23
 *   (integrity constraint: a check, a unique key, not null) and 54 (program limit: an index row too large, a value
 *   too deeply nested). Another statement without those values would succeed, so a caller can isolate them.
 * - "unavailable": the database cannot be reached or cannot work now — class 08 (connection), 57P (shut down,
 *   crashed, starting up), 53 (out of disk, memory or connections), 28 and 3D000 (cannot sign in), and a socket that
 *   failed or closed. Retrying later, unchanged, is the remedy.
 * - "other": anything else (a trigger's exception, a statement the server does not understand, a fault in Verity).
 */
export type DatabaseErrorKind = "data" | "unavailable" | "other";

const SOCKET_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ECONNABORTED",
  "EPIPE",
  "ETIMEDOUT",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
]);
// node-postgres reports a lost or unusable connection with these messages and no code.
const LOST_CONNECTION =
  /^(Connection terminated|Client has encountered a connection error|Client was closed|timeout expired|Connection timeout)/;

export function classifyDatabaseError(err: unknown): DatabaseErrorKind {
  const e = err as { code?: unknown; message?: unknown } | null | undefined;
  const code = typeof e?.code === "string" ? e.code : "";
  // Before the SQLSTATE test: EPIPE also has five capital letters.
  if (SOCKET_CODES.has(code)) return "unavailable";
  if (/^[0-9A-Z]{5}$/.test(code)) {
    const cls = code.slice(0, 2);
    if (cls === "22" || cls === "23" || cls === "54") return "data";
    if (cls === "08" || cls === "53" || cls === "28" || code.startsWith("57P") || code === "3D000")
      return "unavailable";
    return "other";
  }
  if (typeof e?.message === "string" && LOST_CONNECTION.test(e.message)) return "unavailable";
  return "other";
}

/** A failed statement in one sentence, its SQLSTATE in brackets when it has one. */
export function describeDatabaseError(err: unknown): string {
  const e = err as { code?: unknown; message?: unknown } | null | undefined;
  const message = String(e?.message ?? err).split("\n")[0];
  const sqlState = typeof e?.code === "string" && /^[0-9A-Z]{5}$/.test(e.code) && !SOCKET_CODES.has(e.code);
  const code = sqlState ? ` [SQLSTATE ${e.code}]` : "";
  return `${message}${code}`;
}
