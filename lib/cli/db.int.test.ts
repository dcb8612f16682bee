// `verity db distribute` on a database that is not on a Citus coordinator (the test database: plain PostgreSQL):
// refused with the reason, exit 1, and nothing changed; bad arguments exit 2. On a cluster: lib/db/citus.citus.test.ts.
import { describe, expect, it } from "vitest";
import { run } from "@/lib/cli/db.ts";
import { db } from "@/lib/db/client.ts";

function io() {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, io: { out: (s: string) => out.push(s), err: (s: string) => err.push(s), stdout: process.stdout } };
}

describe("verity db distribute without Citus", () => {
  it("refuses a database without the citus extension and changes nothing", async () => {
    const before = await db().$queryRaw<{ n: number }[]>`select count(*)::int as n from pg_class where relkind = 'p'`;
    const r = io();
    expect(await run(["distribute"], r.io)).toBe(1);
    expect(r.err.join("\n")).toMatch(/has no citus extension: .*nothing was changed/);
    expect(r.out).toEqual([]);
    const after = await db().$queryRaw<{ n: number }[]>`select count(*)::int as n from pg_class where relkind = 'p'`;
    expect(after).toEqual(before);
    expect(before[0].n).toBeGreaterThan(0);
  });

  it("exits 2 on a missing or unknown subcommand", async () => {
    const missing = io();
    expect(await run([], missing.io)).toBe(2);
    expect(missing.err.join("\n")).toMatch(/missing subcommand/);
    const unknown = io();
    expect(await run(["shard"], unknown.io)).toBe(2);
    expect(unknown.err.join("\n")).toMatch(/unknown subcommand "shard"/);
  });
});
