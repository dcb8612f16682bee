import { describe, expect, it } from "vitest";
import { rawClient } from "@/lib/db/raw-client.ts";

// A server that terminates a connection while the client waits between two statements (what a fast shutdown, a
// restart or `drop database ... with (force)` does) must cost the next statement, not the process: a plain pg client
// emits the server's reason as "error", which with no listener is thrown outside any caller.
describe("rawClient", () => {
  it("survives its backend being terminated between statements, and the next statement fails with the reason", async () => {
    const url = process.env.DATABASE_URL!;
    const idle = rawClient({ connectionString: url });
    const admin = rawClient({ connectionString: url });
    await idle.connect();
    await admin.connect();
    try {
      const { rows } = await idle.query<{ pid: number }>("select pg_backend_pid() as pid");
      const ended = new Promise<void>((resolve) => idle.once("end", () => resolve()));
      const t = await admin.query<{ ok: boolean }>("select pg_terminate_backend($1) as ok", [rows[0].pid]);
      expect(t.rows[0].ok).toBe(true);
      await ended; // the termination arrived while no statement was running
      await expect(idle.query("select 1")).rejects.toThrow(/terminat|not queryable/i);
    } finally {
      await idle.end().catch(() => undefined);
      await admin.end();
    }
  });
});
