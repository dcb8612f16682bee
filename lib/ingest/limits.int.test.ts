// One bad line never stops a feed: a line past a limit (lib/verifier/limits.ts) is that line's error with its path,
// a value the database refuses costs its line alone, and "the database is unavailable" is said only when it is.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { gzipSync } from "node:zlib";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { caseLine, externalScore, rolloutLine } from "@/lib/testing/ingest-fixtures.ts";
import { handleIngestRequest } from "@/lib/ingest/http.ts";
import { count, freshDatabase, ingestText, ndjson, type TestDatabase } from "@/lib/testing/ingest-db.ts";
import { createClient } from "@/lib/db/client.ts";
import { rollupDifferences } from "@/lib/rollups/compare.ts";
import { computeStepRollupsFromLedger, listStepRollups } from "@/lib/rollups/data.ts";
import { gzipBomb } from "@/lib/testing/gzip-bomb.ts";
import { limitsBody } from "@/lib/testing/limits-body.ts";
import { runVerity } from "@/lib/testing/cli-io.ts";
import { freePort } from "@/lib/testing/console-process.ts";

let t: TestDatabase;
beforeAll(async () => {
  t = await freshDatabase("limits");
});
afterAll(async () => t?.drop());

describe("a 10,000-line file with one line nested 10,000 deep and one id of 3,000 characters", () => {
  it("stores the other 9,998 lines through `verity ingest` and names both, each with its path", async () => {
    const body = limitsBody("lim-cli");
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "verity-limits-"));
    try {
      const file = path.join(dir, "feed.ndjson");
      const rejects = path.join(dir, "rejects.ndjson");
      fs.writeFileSync(file, body.text);
      const cli = await runVerity(["ingest", file, "--rejects", rejects], {
        DATABASE_URL: t.url,
        VERITY_DATA_DIR: path.join(dir, "data"),
      });
      expect(cli.stderr).not.toMatch(/stopped|unavailable/);
      expect(cli.code).toBe(0);
      const summary = JSON.parse(cli.stdout.trim().split("\n").pop()!);
      expect(summary).toMatchObject({
        ok: true,
        lines: 10_000,
        accepted: 9_998,
        rejected: 2,
        last_committed_line: 10_000,
      });
      expect(summary.rejects).toEqual([
        { line: body.deep.line, path: body.deep.path, message: "nested deeper than 64 levels of objects and arrays" },
        { line: body.longId.line, path: "trajectory_id", message: "too long: at most 200 characters (got 3000)" },
      ]);
      const written = fs
        .readFileSync(rejects, "utf8")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l));
      expect(written.map((r) => [r.line, r.path])).toEqual([
        [body.deep.line, body.deep.path],
        [body.longId.line, "trajectory_id"],
      ]);
      expect(await count(t.pool, "select 1 from rollouts where run_id = 'lim-cli'")).toBe(9_998);
      expect(await count(t.pool, "select 1 from cases where ticket_id = 'lim-cli-T-DEEP'")).toBe(0);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 300_000);
});

describe("a value the database refuses", () => {
  it("costs only its line: the batch is rolled back and written again without it", async () => {
    const db = await freshDatabase("refused");
    try {
      // Two refusals a line can meet that no limit of Verity's foresees: a check constraint (SQLSTATE 23514) and an
      // index row past PostgreSQL's 2,704 bytes (54000), here on an index of the final reply this database has.
      await db.pool.query("alter table rollouts add constraint refuse_one check (trajectory_id <> 'ref/3')");
      await db.pool.query("create index rollouts_final_reply_idx on rollouts (final_reply)");
      const random = (n: number) =>
        Array.from({ length: n }, () => String.fromCharCode(33 + Math.floor(Math.random() * 90))).join("");
      const lines = [
        caseLine("T-R"),
        ...Array.from({ length: 9 }, (_, i) => rolloutLine(`ref/${i + 1}`, "T-R", { run: "run-r" })),
      ];
      const bigReply = lines[7] as { trajectory: Record<string, unknown> };
      lines[7] = { ...bigReply, trajectory: { ...bigReply.trajectory, final_reply: random(6000) } }; // ref/7
      const s = await ingestText(db.pool, ndjson(lines), { batchLines: 10 });
      expect(s).toMatchObject({ ok: true, lines: 10, accepted: 8, rejected: 2, scored: 7, last_committed_line: 10 });
      expect(s.rejects).toHaveLength(2);
      expect(s.rejects[0]).toMatchObject({ line: 4, path: "" });
      expect(s.rejects[0].message).toMatch(/^the database refused this line: .*"refuse_one".*\[SQLSTATE 23514\]$/);
      expect(s.rejects[1]).toMatchObject({ line: 8, path: "" });
      expect(s.rejects[1].message).toMatch(
        // the run's partition of the index (014): rollouts_r<16 hex>_final_reply_idx
        /^the database refused this line: index row .* "rollouts_r[0-9a-f]{16}_final_reply_idx".*\[SQLSTATE 54000\]$/,
      );
      expect(
        (await db.pool.query("select trajectory_id from rollouts order by 1")).rows.map((r) => r.trajectory_id),
      ).toEqual(["ref/1", "ref/2", "ref/4", "ref/5", "ref/6", "ref/8", "ref/9"]);
      // Nothing half-written: the refused lines left no ledger entry, and the rollups agree with the ledger.
      expect(await count(db.pool, "select 1 from ledger")).toBe(7);
      const client = createClient(db.url);
      try {
        expect(
          rollupDifferences(
            await listStepRollups("run-r", {}, client),
            await computeStepRollupsFromLedger("run-r", client),
          ),
        ).toEqual([]);
      } finally {
        await client.$disconnect();
      }
    } finally {
      await db.drop();
    }
  }, 120_000);
});

describe("the database is unavailable", () => {
  it("is said when nothing answers, by the summary (failed_at database) and the API (503)", async () => {
    const pool = new pg.Pool({ connectionString: `postgresql://postgres:x@127.0.0.1:${await freePort()}/verity` });
    pool.on("error", () => undefined);
    try {
      const s = await ingestText(pool, ndjson([caseLine("T-U"), rolloutLine("u/1", "T-U")]));
      expect(s).toMatchObject({ ok: false, failed_at: "database", last_committed_line: 0 });
      expect(s.error).toMatch(/^stopped: the database is unavailable \(connect ECONNREFUSED .*\)\. Every line up to 0/);
      const res = await handleIngestRequest(
        new Request("http://verity.test/api/v1/ingest", { method: "POST", body: ndjson([caseLine("T-U")]) }),
        pool,
      );
      expect(res.status).toBe(503);
      expect((await res.json()).error).toMatch(/the database is unavailable/);
    } finally {
      await pool.end().catch(() => undefined);
    }
  });

  it("is not said when the database works but refuses a batch for a reason that is not a line's data (500)", async () => {
    const db = await freshDatabase("refuses");
    try {
      await db.pool.query(`create function refuse() returns trigger language plpgsql as $$
        begin raise exception 'refused by test' using errcode = 'P0001'; end $$`);
      await db.pool.query("create trigger refuse before insert on runs for each row execute function refuse()");
      const body = ndjson([rolloutLine("s/1", "T-S")]);
      const s = await ingestText(db.pool, body);
      expect(s).toMatchObject({ ok: false, failed_at: "server", last_committed_line: 0 });
      expect(s.error).toMatch(
        /^stopped: the server failed, not on the data of a line \(refused by test \[SQLSTATE P0001\]\)/,
      );
      expect(s.error).not.toMatch(/unavailable/);
      const res = await handleIngestRequest(
        new Request("http://verity.test/api/v1/ingest", { method: "POST", body }),
        db.pool,
      );
      expect(res.status).toBe(500);
    } finally {
      await db.drop();
    }
  });
});

describe("a gzip bomb", () => {
  it("is answered 413 by the API at the cap on inflated bytes, naming it, having read a sliver of the body", async () => {
    const head = gzipSync(ndjson([caseLine("bomb-T"), rolloutLine("bomb/1", "bomb-T", { run: "bomb-run" })]) + "\n");
    const bomb = gzipBomb(10 * 2 ** 30);
    const parts = (async function* () {
      yield head;
      yield* bomb.chunks;
    })();
    const body = new ReadableStream<Uint8Array>({
      async pull(c) {
        const next = await parts.next();
        if (next.done) c.close();
        else c.enqueue(next.value);
      },
    });
    const res = await handleIngestRequest(
      new Request("http://verity.test/api/v1/ingest", {
        method: "POST",
        body,
        headers: { "content-encoding": "gzip" },
        duplex: "half",
      } as RequestInit),
      t.pool,
      { maxInflatedBytes: 2 ** 20 },
    );
    expect(res.status).toBe(413);
    const summary = await res.json();
    expect(summary).toMatchObject({ ok: false, failed_at: "body" });
    expect(summary.error).toContain(
      "the gzip input inflates to more than 1 MiB (1048576 bytes), the limit on inflated bytes (VERITY_MAX_INFLATED_BYTES)",
    );
    expect(bomb.read()).toBeLessThan(200 * 1024);
    expect(summary.lines).toBe(2);
  });

  it("stops `verity ingest` and `verity import jsonl` of a .gz file at VERITY_MAX_INFLATED_BYTES", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "verity-bomb-"));
    try {
      const file = path.join(dir, "feed.ndjson.gz");
      const bomb = gzipBomb(10 * 2 ** 30);
      const out = fs.createWriteStream(file);
      for await (const c of bomb.chunks)
        if (!out.write(c)) await new Promise<void>((r) => out.once("drain", () => r()));
      await new Promise<void>((r) => out.end(() => r()));
      const env = { DATABASE_URL: t.url, VERITY_DATA_DIR: path.join(dir, "data"), VERITY_MAX_INFLATED_BYTES: "1MB" };
      for (const args of [
        ["ingest", file],
        ["import", "jsonl", file, "--preset", "verl", "--run", "bomb-import"],
      ]) {
        const cli = await runVerity(args, env);
        expect(cli.code).toBe(3);
        const summary = JSON.parse(cli.stdout.trim().split("\n").pop()!);
        expect(summary).toMatchObject({ ok: false, failed_at: "body" });
        expect(summary.error).toContain("inflates to more than 1 MiB (1048576 bytes)");
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});

describe("a line the database could not store, or that would wreck a page", () => {
  it("is rejected at validation with its field's JSON path, the rest of the body stored", async () => {
    const run = "fields-run";
    const ok = externalScore("fields/ok", "T-F", 0.5, { run });
    const lines = [
      ok,
      JSON.stringify(rolloutLine("fields/nul", "T-F", { run })).replace('"final_reply":"', '"final_reply":"a\\u0000'),
      JSON.stringify({ ...externalScore("fields/sur", "T-F", 0.5, { run }), ticket_id: "T-F" }).replace(
        '"ticket_id":"T-F"',
        '"ticket_id":"T-F","extra_note\\ud800":1',
      ),
      JSON.stringify(rolloutLine("fields/sur2", "T-F", { run })).replace('"final_reply":"', '"final_reply":"\\udc00'),
      externalScore("fields/big", "T-F", 0.5, { run, step: 2 ** 31 }),
      { ...externalScore("fields/bidi", "T-F", 0.5), run_id: "fields\u202erun" },
      externalScore("fields/rep", "T-F", 0.5, {
        run,
        guardrails: Array.from({ length: 100_000 }, () => "policy_error"),
      }),
    ];
    const s = await ingestText(t.pool, ndjson(lines));
    expect(s).toMatchObject({ ok: true, lines: 7, accepted: 1, rejected: 6 });
    expect(s.rejects).toEqual([
      {
        line: 2,
        path: "trajectory.final_reply",
        message: "contains the character U+0000, which PostgreSQL cannot store",
      },
      {
        line: 3,
        path: "extra_note\ud800",
        message: "the key contains an unpaired UTF-16 surrogate, which PostgreSQL cannot store",
      },
      {
        line: 4,
        path: "trajectory.final_reply",
        message: "contains an unpaired UTF-16 surrogate, which PostgreSQL cannot store",
      },
      { line: 5, path: "step", message: "at most 2147483647 (the ledger stores it as a 32-bit integer)" },
      {
        line: 6,
        path: "run_id",
        message: expect.stringMatching(/^contains U\+202E \(a format character\) at character 7: an id has no/),
      },
      {
        line: 7,
        path: "guardrails.1",
        message: 'repeats the guardrail "policy_error" (first at index 0): each is listed once',
      },
    ]);
    expect(await count(t.pool, "select 1 from ledger where run_id = 'fields-run'")).toBe(1);
  });
});
