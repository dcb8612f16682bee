import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrate } from "@/lib/db/migrate.ts";
import { env, type Env } from "@/lib/env.ts";
import { closeBulkPool } from "@/lib/db/pool.ts";
import { prepareFirstRun } from "@/lib/demo/first-run.ts";
import { seedRun } from "@/lib/testing/audit-data.ts";
import { createScratchDatabase } from "@/lib/testing/scratch-db.ts";
import pg from "pg";

describe("the first start on a database that already holds a run", () => {
  let scratch: Awaited<ReturnType<typeof createScratchDatabase>>;
  beforeAll(async () => {
    scratch = await createScratchDatabase("first_run");
    await migrate(scratch.url);
  });
  afterAll(async () => {
    await closeBulkPool(scratch.url);
    await scratch?.drop();
  });

  const start = async (demo: Env["VERITY_DEMO"]) => {
    const lines: string[] = [];
    await prepareFirstRun(scratch.url, (l) => lines.push(l), {
      ...env(),
      VERITY_DEMO: demo,
      VERITY_DEMO_SIZE: "small",
    });
    return lines;
  };
  const runs = async () => {
    const c = new pg.Client({ connectionString: scratch.url });
    await c.connect();
    try {
      return (await c.query<{ id: string }>("select id from runs order by id")).rows.map((r) => r.id);
    } finally {
      await c.end();
    }
  };

  it("says the demo was not loaded and how to load it; VERITY_DEMO=force loads it beside the run", async () => {
    await seedRun(scratch.url, { runId: "imported-first", tickets: 3 });
    const first = await start("1");
    expect(first[0]).toBe(
      "demo data not loaded: the database already holds run imported-first (the demo loads only into an empty " +
        "database); start once with VERITY_DEMO=force to load it beside them",
    );
    expect(first.slice(1)).toHaveLength(5); // the demo users, one line each
    expect(await runs()).toEqual(["imported-first"]);

    const forced = await start("force");
    expect(forced).toContain("loading demo data: grpo-main, 9,600 rollouts scored by the verifier…");
    expect(forced.find((l) => l.startsWith("loaded demo data: grpo-demo (the 10 verifier examples)"))).toBeDefined();
    expect(forced.find((l) => l.startsWith("loaded demo audit: "))).toBeDefined();
    expect(await runs()).toEqual(["grpo-demo", "grpo-hacking", "grpo-main", "imported-first"]);

    // with the demo there, later starts say nothing about it
    expect(await start("force")).toEqual([]);
    expect(await start("1")).toEqual([]);
  }, 180_000);
});
