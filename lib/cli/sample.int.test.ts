import { describe, expect, it } from "vitest";
import { seedRun, uniqueName } from "@/lib/testing/audit-data.ts";
import { parseSampleArgs, run } from "@/lib/cli/sample.ts";
import { db } from "@/lib/db/client.ts";
import { captureIo } from "@/lib/testing/cli-io.ts";

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
    const draw = [
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
    ];
    const args = [...draw, "--json"];
    const dry = captureIo();
    expect(await run([...args, "--dry-run"], dry.io)).toBe(0);
    const preview = JSON.parse(dry.out.at(-1)!);
    expect(preview).toMatchObject({ dry_run: true, population: { tickets: 40, rollouts: 40 }, salt: "cli" });
    expect(
      preview.strata.find((s: { stratum: string }) => s.stratum === "missing_evidence").sampledTickets,
    ).toBeGreaterThanOrEqual(3);
    expect(await db().auditBatch.count({ where: { runId } })).toBe(0);

    const real = captureIo();
    expect(await run(args, real.io)).toBe(0);
    const created = JSON.parse(real.out.at(-1)!);
    expect(created.manifest.items_hash).toBe(preview.items_hash);
    expect(await db().auditItem.count({ where: { batchId: created.batch_id } })).toBe(preview.items);

    const table = captureIo();
    expect(await run([...draw, "--dry-run"], table.io)).toBe(0);
    expect(table.out.join("\n")).toContain("40 tickets, 40 rollouts");
    expect(table.out.join("\n")).toContain(preview.items_hash);

    const refused = captureIo();
    expect(await run(["--run", "no-such-run", "--from", "0", "--to", "1"], refused.io)).toBe(1);
    expect(refused.err.join("")).toContain("No run no-such-run");
  });

  it("--plan sizes the audit for the window: design effect of whole tickets, rate, and the strata it leaves too small", async () => {
    const runId = uniqueName("plan-run");
    await seedRun(process.env.DATABASE_URL!, {
      runId,
      tickets: 200,
      perTicket: 4,
      variant: (i) => (i % 10 === 0 ? "missing_evidence" : "honest"),
    });
    const base = ["--run", runId, "--from", "0", "--to", "20", "--pick", "all"];
    const j = captureIo();
    expect(await run([...base, "--plan", "--json"], j.io)).toBe(0);
    const { plan } = JSON.parse(j.out.at(-1)!);
    expect(plan.map((p: { halfWidth: number }) => p.halfWidth)).toEqual([0.03, 0.05, 0.1]);
    const five = plan[1];
    // no reviews yet: the documented defaults; 4 rollouts per ticket → deff 1 + 3·0.3 = 1.9
    expect([five.agreement, five.icc, five.itemsPerTicket, five.designEffect]).toEqual([0.88, 0.3, 4, 1.9]);
    expect(five.overall).toEqual({ itemsSrs: 163, items: 310, ticketsNeeded: 78, rate: 0.39, feasible: true });
    expect(plan[0].overall.feasible).toBe(false); // ±3%: 857 items in 215 tickets, more than the 200 there are
    expect(five.sources.icc).toMatch(/^default 0.3 \(0 tickets with two or more reviewed items; 10 needed/);

    const t = captureIo();
    expect(await run([...base, "--plan", "--half-width", "0.1", "--agreement", "0.95", "--icc", "0"], t.io)).toBe(0);
    const text = t.out.join("\n");
    expect(text).toContain("expected agreement 95% (given); intra-ticket correlation 0.00 (given)");
    expect(text).toMatch(/±10\s*%\s+19\s+19\s+5\s+2\.5%/);
    // at the default 1% rate the batch draws fewer items than each stratum's ±10% figure needs
    expect(text).toMatch(/missing_evidence .* TOO SMALL/);
    // nothing was created
    expect(await db().auditBatch.count({ where: { runId } })).toBe(0);

    const bad = captureIo();
    expect(await run([...base, "--plan", "--half-width", "1.5"], bad.io)).toBe(2);
    expect(bad.err[0]).toContain('--half-width: must be a number strictly between 0 and 1, got "1.5"');
    expect(await run([...base, "--icc", "0.2"], bad.io)).toBe(2);
    expect(bad.err[1]).toContain("--half-width, --agreement and --icc go with --plan");
  });

  it("--pairwise draws GRPO groups and one pair in each, with precise flag errors", async () => {
    const base = ["--run", "r", "--from", "0", "--to", "5", "--pairwise"];
    expect(parseSampleArgs([...base, "--delta", "0.2", "--near-ties", "0"])).toMatchObject({
      ok: true,
      params: { kind: "pairwise", delta: 0.2, nearTieRate: 0 },
    });
    expect(parseSampleArgs(base)).toMatchObject({ ok: true, params: { kind: "pairwise" } });
    expect(parseSampleArgs([...base, "--delta", "1.5"])).toMatchObject({
      ok: false,
      message: "--delta: A reward difference: below 1.",
    });
    expect(parseSampleArgs([...base, "--near-ties", "x"])).toMatchObject({
      ok: false,
      message: "--near-ties: Enter a number.",
    });
    expect(parseSampleArgs([...base, "--pick", "all", "--plan"])).toMatchObject({
      ok: false,
      message: "--pick, --plan: not with --pairwise (one pair per group)",
    });
    expect(parseSampleArgs(["--run", "r", "--from", "0", "--to", "5", "--delta", "0.2"])).toMatchObject({
      ok: false,
      message: "--delta and --near-ties go with --pairwise",
    });

    const runId = uniqueName("cli-pairs");
    await seedRun(process.env.DATABASE_URL!, {
      runId,
      tickets: 30,
      perTicket: 3,
      variant: (i, k) => (k === 2 && i < 5 ? "empty_promise" : "honest"),
    });
    const args = [
      "--run",
      runId,
      "--from",
      "0",
      "--to",
      "20",
      "--rate",
      "1",
      "--salt",
      "p",
      "--pairwise",
      "--near-ties",
      "0",
    ];
    const dry = captureIo();
    expect(await run([...args, "--dry-run"], dry.io)).toBe(0);
    const text = dry.out.join("\n");
    expect(text).toContain(`run ${runId}, steps 0–20: 30 GRPO groups of two or more, 90 rollouts`);
    expect(text).toMatch(/drawn 30 pairs \(25 near-ties/);
    expect(text).toMatch(/empty_promise\+none\s+5\s+5\s+1\.000/);
    expect(await db().auditBatch.count({ where: { runId } })).toBe(0);
    const made = captureIo();
    expect(await run([...args, "--json"], made.io)).toBe(0);
    const { batch_id, manifest } = JSON.parse(made.out.at(-1)!);
    expect(manifest).toMatchObject({ kind: "pairwise", items: 30, near_ties: 25 });
    expect(await db().auditItem.count({ where: { batchId: batch_id, trajectoryBId: { not: null } } })).toBe(30);
  });
});
