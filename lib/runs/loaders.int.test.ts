// The run page's loader: what /runs/[run] renders, read without a write — the run's own gate is concluded and shown,
// and no verdict is stored by showing it (the writes, the API and `verity gate` store it).
import { describe, expect, it } from "vitest";
import { getGateVerdict } from "@/lib/gate/data.ts";
import { evaluateRunGate } from "@/lib/gate/refresh.ts";
import { loadRunPage } from "@/lib/runs/loaders.ts";
import { uniqueName } from "@/lib/testing/audit-data.ts";
import { seedSteadyRun } from "@/lib/testing/gate-data.ts";

const url = process.env.DATABASE_URL!;

describe("loadRunPage", () => {
  it("shows the run's own gate and stores no verdict; the stored one is the one a write evaluated", async () => {
    const run = uniqueName("run-page");
    await seedSteadyRun(url, run, [0, 500, 1000]);
    const page = await loadRunPage(run, {}, "lead");
    expect(page!.charts.state).toBe("ok");
    expect(page!.gate).toMatchObject({ run, verdict: "insufficient" });
    expect(await getGateVerdict(run)).toBeNull();

    const stored = await evaluateRunGate(run, { webhookUrl: null });
    const before = await getGateVerdict(run);
    expect(before).toMatchObject({ verdict: stored.report!.verdict });
    await loadRunPage(run, {}, "lead");
    expect((await getGateVerdict(run))!.evaluatedAt).toEqual(before!.evaluatedAt);
  }, 120_000);

  it("gives what the viewer may do by role: re-score for admins, thresholds for leads and admins", async () => {
    const run = uniqueName("run-page-roles");
    await seedSteadyRun(url, run, [0]);
    const annotator = await loadRunPage(run, {}, "annotator");
    expect(annotator).toMatchObject({ configs: null, mayEditThresholds: false });
    const admin = await loadRunPage(run, {}, "admin");
    expect(admin!.configs).not.toBeNull();
    expect(admin!.mayEditThresholds).toBe(true);
  }, 120_000);

  it("is null for a run that does not exist", async () => {
    expect(await loadRunPage(uniqueName("no-such-run"), {}, "lead")).toBeNull();
  });
});
