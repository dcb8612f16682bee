import { describe, expect, it } from "vitest";
import { seedRun, uniqueName } from "@/lib/testing/audit-data.ts";
import { parseSampleArgs, run } from "@/lib/cli/sample.ts";
import { db } from "@/lib/db/client.ts";

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { out: (s: string) => out.push(s), err: (s: string) => err.push(s) }, out, err };
}

describe("verity sample", () => {
  it("parses flags through the batch schema, with defaults and a fresh salt", () => {
    const p = parseSampleArgs(["--run", "r", "--from", "5", "--to", "9"]);
    expect(p.ok && p.params).toMatchObject({
      runId: "r",
      stepFrom: 5,
      stepTo: 9,
      rate: 0.01,
      pick: "one",
      overlapRate: 0.1,
      tolerance: 0.1,
    });
    expect(p.ok && p.params.salt).toMatch(/^[0-9a-f]{16}$/);
    expect(parseSampleArgs(["--run", "r", "--from", "9", "--to", "5"])).toMatchObject({
      ok: false,
      message: "--to: The window ends before it starts.",
    });
    expect(parseSampleArgs(["--run", "r", "--from", "0", "--to", "5", "--pick", "some"])).toMatchObject({
      ok: false,
      message: "--pick: Pick one or all.",
    });
    expect(parseSampleArgs(["--run", "r", "--from", "0", "--to", "5", "--rate", "2"])).toMatchObject({ ok: false });
    expect(parseSampleArgs(["--bogus"])).toMatchObject({ ok: false });
  });

  it("--dry-run shows the draw and creates nothing; without it the batch is created with the same draw", async () => {
    const runId = uniqueName("cli-run");
    await seedRun(process.env.DATABASE_URL!, {
      runId,
      tickets: 40,
      variant: (i) => (i < 4 ? "missing_evidence" : "honest"),
    });
    const args = [
      "--run",
      runId,
      "--from",
      "0",
      "--to",
      "20",
      "--rate",
      "0.1",
      "--salt",
      "cli",
      "--min-per-stratum",
      "3",
      "--json",
    ];
    const dry = capture();
    expect(await run([...args, "--dry-run"], dry.io)).toBe(0);
    const preview = JSON.parse(dry.out.at(-1)!);
    expect(preview).toMatchObject({ dry_run: true, population: { tickets: 40, rollouts: 40 }, salt: "cli" });
    expect(
      preview.strata.find((s: { stratum: string }) => s.stratum === "missing_evidence").sampledTickets,
    ).toBeGreaterThanOrEqual(3);
    expect(await db().auditBatch.count({ where: { runId } })).toBe(0);

    const real = capture();
    expect(await run(args, real.io)).toBe(0);
    const created = JSON.parse(real.out.at(-1)!);
    expect(created.manifest.items_hash).toBe(preview.items_hash);
    expect(await db().auditItem.count({ where: { batchId: created.batch_id } })).toBe(preview.items);

    const table = capture();
    expect(
      await run(
        [
          "--run",
          runId,
          "--from",
          "0",
          "--to",
          "20",
          "--rate",
          "0.1",
          "--salt",
          "cli",
          "--min-per-stratum",
          "3",
          "--dry-run",
        ],
        table.io,
      ),
    ).toBe(0);
    expect(table.out.join("\n")).toContain("40 tickets, 40 rollouts");
    expect(table.out.join("\n")).toContain(preview.items_hash);

    const refused = capture();
    expect(await run(["--run", "no-such-run", "--from", "0", "--to", "1"], refused.io)).toBe(1);
    expect(refused.err.join("")).toContain("No run no-such-run");
  });
});
