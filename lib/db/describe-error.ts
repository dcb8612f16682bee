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
