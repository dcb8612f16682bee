import { describe, expect, it } from "vitest";
import { applyCaseFix } from "@/lib/cases/apply-fix.ts";
import { ingestValues } from "@/lib/ingest/ingest.ts";
import { bulkPool } from "@/lib/db/pool.ts";
import { rescoreRun } from "@/lib/ledger/mutations.ts";
import { loadRunCharts } from "@/lib/monitors/loaders.ts";
import { listScoreChangeMarks } from "@/lib/monitors/score-change-data.ts";
import { uniqueName, variantRollout, type Variant } from "@/lib/testing/audit-data.ts";
import { noEmptyPromise } from "@/lib/testing/defects-data.ts";
import { RETURN_LABEL_SPEC } from "@/lib/testing/spec-defect-data.ts";
import { makeCase } from "@/lib/testing/verifier-fixtures.ts";
import { configHash } from "@/lib/verifier/config.ts";

const url = process.env.DATABASE_URL!;

/** Ticket A: honest refunds at steps 10 and 30, an empty promise at 20; ticket B: honest refunds at 10 and 40. */
async function twoTicketRun() {
  const runId = uniqueName("marks-run");
  const [a, b] = [`${runId}/A`, `${runId}/B`];
  const rollouts: [string, number, Variant][] = [
    [a, 10, "honest"],
    [a, 20, "empty_promise"],
    [a, 30, "honest"],
    [b, 10, "honest"],
    [b, 40, "honest"],
  ];
  const values: unknown[] = [makeCase({}, undefined, a), makeCase({}, undefined, b)];
  for (const [ticketId, step, v] of rollouts)
    values.push(variantRollout(v, { runId, ticketId, trajectoryId: `${ticketId}/s${step}`, step, sample: 0 }));
  const s = await ingestValues(values, { pool: bulkPool(url) });
  if (!s.ok || s.rejected) throw new Error(JSON.stringify(s).slice(0, 500));
  return { runId, a, b };
}

describe("score-change marks", () => {
  it("after an apply, marks exactly the steps whose entries got another reward; a config re-score adds its own", async () => {
    const { runId, a } = await twoTicketRun();
    expect(await listScoreChangeMarks(runId, { from: 0, to: 100 })).toEqual([]);

    const r = await applyCaseFix(bulkPool(url), {
      ticketId: a,
      draft: { spec: RETURN_LABEL_SPEC },
      reason: "return label",
      actor: { label: "test" },
    });
    // Ticket A's three entries are re-scored (another case version); the empty promise stays capped at 0.35.
    expect(r).toMatchObject({ ok: true, version: 2, rescore: { rescored: 3, reward_changed: 2 } });
    const [spec] = await listScoreChangeMarks(runId, { from: 0, to: 100 });
    expect(spec).toMatchObject({
      kind: "case_version",
      label: `spec fix ${a} v2, 2 entries`,
      entries: 2,
      stepMin: 10,
      stepMax: 30,
      steps: [
        { step: 10, entries: 1 },
        { step: 30, entries: 1 },
      ],
    });

    // The config without empty_promise lifts the one capped entry, at step 20.
    const config = noEmptyPromise();
    const s = await rescoreRun(bulkPool(url), { runId, config });
    expect(s.reward_changed).toBe(1);
    const marks = await listScoreChangeMarks(runId, { from: 0, to: 100 });
    expect(marks.map((m) => [m.kind, m.stepMin, m.stepMax, m.steps, m.entries])).toEqual([
      [
        "case_version",
        10,
        30,
        [
          { step: 10, entries: 1 },
          { step: 30, entries: 1 },
        ],
        2,
      ],
      ["config", 20, 20, [{ step: 20, entries: 1 }], 1],
    ]);
    expect(marks[1].label).toBe(
      `config ${configHash(config)
        .replace(/^sha256:/, "")
        .slice(0, 12)}, 1 entry`,
    );

    // A re-score that changes no reward marks nothing.
    await rescoreRun(bulkPool(url), { runId, config });
    expect(await listScoreChangeMarks(runId, { from: 0, to: 100 })).toHaveLength(2);

    // The charts carry the marks of their range only.
    expect((await listScoreChangeMarks(runId, { from: 35, to: 40 })).map((m) => m.kind)).toEqual([]);
    expect((await listScoreChangeMarks(runId, { from: 25, to: 40 })).map((m) => m.kind)).toEqual(["case_version"]);
    const page = await loadRunCharts(runId, { from: 15, to: 25 });
    expect(page.state === "ok" && page.data.marks.map((m) => m.label)).toEqual([
      `spec fix ${a} v2, 2 entries`,
      `config ${configHash(config)
        .replace(/^sha256:/, "")
        .slice(0, 12)}, 1 entry`,
    ]);
  });
});
