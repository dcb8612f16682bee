// Alarms evaluated as data arrives, with no page read and no explicit evaluation: the ingest path shared by the API
// and the CLI, the API handler itself and the re-score each announce the runs they changed after committing, the
// listener their caller handed in (afterWrite) evaluates them and posts each state change to a local receiver. A
// receiver that is down never fails the write; a writer handed no listener evaluates nothing.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { alarmReceiverForFile } from "@/lib/testing/webhook-receiver.ts";
import { demoRunValues } from "@/lib/demo/generate.ts";
import { handleIngestRequest } from "@/lib/ingest/http.ts";
import { bulkPool } from "@/lib/db/pool.ts";
import { ingestText, ndjson } from "@/lib/testing/ingest-db.ts";
import { rescoreRun } from "@/lib/ledger/mutations.ts";
import { afterThresholds, afterWrite } from "@/lib/server/after-write.ts";
import { setRunThresholds } from "@/lib/monitors/mutations.ts";
import { computeAlarmStatuses } from "@/lib/monitors/alarm-state.ts";
import { getGateVerdict } from "@/lib/gate/data.ts";
import { listAlarmEvents, listAlarmStepRows, listPersistedAlarms } from "@/lib/monitors/data.ts";
import { alarmRules, ALARMS } from "@/lib/monitors/rules.ts";
import { DEFAULT_THRESHOLDS } from "@/lib/monitors/schema.ts";
import { parseVerifierConfig } from "@/lib/verifier/config.ts";

const url = process.env.DATABASE_URL!;
const receiver = alarmReceiverForFile();

/** The hacking variant: 30 tickets × 12 logged steps × K=4; hand-offs cross 10% late, so the alarm changes mid-run. */
const body = (runId: string) =>
  ndjson([...demoRunValues({ runId, tickets: 30, steps: 12, k: 4, seed: "after-write", variant: "hacking" })]);

/** The run's alarms replayed from its rollups at once (what the stored states must equal). */
async function replay(runId: string) {
  const once = computeAlarmStatuses(alarmRules({ ...DEFAULT_THRESHOLDS }), {
    steps: await listAlarmStepRows(runId),
    audit: [],
    auditWindow: DEFAULT_THRESHOLDS.auditWindow,
  });
  return ALARMS.map((alarm) => ({
    alarm,
    state: once[alarm].state,
    sinceStep: once[alarm].since,
    atStep: once[alarm].at,
    value: once[alarm].value,
  }));
}
const stored = async (runId: string) =>
  (await listPersistedAlarms([runId])).map((a) => ({
    alarm: a.alarm,
    state: a.state,
    sinceStep: a.sinceStep,
    atStep: a.atStep,
    value: a.value,
  }));

describe("alarms after a write", () => {
  const RUN = "after-write-stream";

  it("an ingest alone stores the alarm states while the rows arrive and posts every change", async () => {
    expect(await listPersistedAlarms([RUN])).toEqual([]);
    // one batch per logged step, and no pause between evaluations: the alarms move while the stream goes on
    const s = await ingestText(bulkPool(url), body(RUN), {
      batchLines: 120,
      after: afterWrite(bulkPool(url), { webhookUrl: receiver.url, intervalMs: 0 }),
    });
    expect(s).toMatchObject({ ok: true, rejected: 0 });

    const states = await stored(RUN);
    expect(states).toEqual(await replay(RUN));
    expect(states.find((a) => a.alarm === "handoff")?.state).toBe("red");

    const events = await listAlarmEvents({ runId: RUN, limit: 100 });
    expect(events.length).toBeGreaterThan(0);
    expect(events.every((e) => e.webhook === "sent")).toBe(true);
    const posted = receiver.received.filter((r) => r.run === RUN && r.type === "verity.alarm");
    expect(posted.map((p) => `${p.alarm}:${p.from}→${p.to}@${p.step}`).sort()).toEqual(
      events.map((e) => `${e.alarm}:${e.fromState}→${e.toState}@${e.step}`).sort(),
    );
    // evaluated more than once during the ingest: the changes were recorded at different times
    expect(new Set(events.map((e) => e.at.getTime())).size).toBeGreaterThan(1);
    expect(events.some((e) => e.alarm === "handoff" && e.toState === "red")).toBe(true);
    // the audit gate is evaluated with the alarms: its verdict is stored (never a pass without reviews) and posted
    const gate = await getGateVerdict(RUN);
    expect(["fail", "insufficient"]).toContain(gate?.verdict);
    const gatePosts = receiver.received.filter((r) => r.run === RUN && r.type === "verity.gate");
    expect(gatePosts.length).toBeGreaterThanOrEqual(1);
    expect(gatePosts[gatePosts.length - 1]).toMatchObject({ to: gate!.verdict });
  });

  it("sending the same rows again changes nothing: no event, no post", async () => {
    const events = (await listAlarmEvents({ runId: RUN, limit: 100 })).length;
    const posts = receiver.received.length;
    const s = await ingestText(bulkPool(url), body(RUN), {
      batchLines: 500,
      after: afterWrite(bulkPool(url), { webhookUrl: receiver.url, intervalMs: 0 }),
    });
    expect(s).toMatchObject({ ok: true, accepted: 0 });
    expect((await listAlarmEvents({ runId: RUN, limit: 100 })).length).toBe(events);
    expect(receiver.received.length).toBe(posts);
  });

  it("the API handler settles the listener the route hands in before it answers", async () => {
    const run = "after-write-api";
    const res = await handleIngestRequest(
      new Request("http://verity.local/api/v1/ingest", { method: "POST", body: body(run) }),
      bulkPool(url),
      { after: afterWrite(bulkPool(url)) },
    );
    expect(res.status).toBe(200);
    expect(await stored(run)).toEqual(await replay(run));
    expect((await stored(run)).find((a) => a.alarm === "handoff")?.state).toBe("red");
  });

  it("a re-score evaluates the run it changed", async () => {
    // Without the missing-evidence guardrail fewer rollouts hit one: the hit-rate series moves.
    const config = parseVerifierConfig({ guardrails: { missing_evidence: { on: false } } });
    if (!config.ok) throw new Error(JSON.stringify(config.issues));
    const before = await stored(RUN);
    const summary = await rescoreRun(bulkPool(url), {
      runId: RUN,
      config: config.config,
      after: afterWrite(bulkPool(url), { webhookUrl: receiver.url }),
    });
    expect(summary.rescored).toBeGreaterThan(0);
    const after = await stored(RUN);
    // The states, readings and steps are the replay's; the since-step stays that of the last recorded change (a
    // re-score may move where the replay enters a state the alarm is still in).
    const withoutSince = (rows: { sinceStep: number | null }[]) =>
      rows.map((r) => Object.fromEntries(Object.entries(r).filter(([k]) => k !== "sinceStep")));
    expect(withoutSince(after)).toEqual(withoutSince(await replay(RUN)));
    const history = await listAlarmEvents({ runId: RUN, limit: 100 });
    for (const a of after) {
      const last = history.find((e) => e.alarm === a.alarm);
      expect([a.alarm, a.sinceStep]).toEqual([a.alarm, last ? last.step : null]);
    }
    // the stored hit-rate reading is the re-scored one, not the one from the ingest
    expect(after.find((a) => a.alarm === "hit_rate")?.value).not.toBe(
      before.find((a) => a.alarm === "hit_rate")?.value,
    );
    const events = await listAlarmEvents({ runId: RUN, limit: 100 });
    expect(receiver.received.filter((r) => r.run === RUN && r.type === "verity.alarm")).toHaveLength(events.length);
  });

  it("a receiver that is down never fails the ingest; the event says the post failed", async () => {
    const run = "after-write-down";
    const closed = http.createServer();
    await new Promise<void>((r) => closed.listen(0, "127.0.0.1", r));
    const dead = `http://127.0.0.1:${(closed.address() as AddressInfo).port}/alarms`;
    await new Promise((r) => closed.close(r));
    const s = await ingestText(bulkPool(url), body(run), {
      batchLines: 2000,
      after: afterWrite(bulkPool(url), { webhookUrl: dead }),
    });
    expect(s).toMatchObject({ ok: true, rejected: 0 });
    const events = await listAlarmEvents({ runId: run, limit: 100 });
    expect(events.length).toBeGreaterThan(0);
    expect(events.every((e) => e.webhook?.startsWith("failed: "))).toBe(true);
    expect((await stored(run)).find((a) => a.alarm === "handoff")?.state).toBe("red");
  });

  it("saving a run's thresholds evaluates its alarms and its gate under them at once", async () => {
    const actor = { label: "after-write test" };
    const handoff = async () => (await stored(RUN)).find((a) => a.alarm === "handoff")?.state;
    expect(await handoff()).toBe("red");
    const saved = await setRunThresholds(RUN, { ...DEFAULT_THRESHOLDS, handoffCeiling: 0.99 }, actor);
    expect(saved.ok).toBe(true);
    // the stored verdict was concluded under the old thresholds: until the gate is evaluated it says so
    expect((await getGateVerdict(RUN))?.stale).toBe(true);
    const before = (await getGateVerdict(RUN))!.evaluatedAt;
    await afterThresholds(RUN);
    expect(await handoff()).not.toBe("red");
    const gate = await getGateVerdict(RUN);
    expect(gate?.stale).toBe(false);
    expect(gate!.evaluatedAt.getTime()).toBeGreaterThan(before.getTime());
    await setRunThresholds(RUN, { ...DEFAULT_THRESHOLDS }, actor);
    await afterThresholds(RUN);
    expect(await handoff()).toBe("red");
  });

  it("a writer handed no listener evaluates nothing: the follow-up is the caller's", async () => {
    const run = "after-write-none";
    const s = await ingestText(bulkPool(url), body(run), { batchLines: 2000 });
    expect(s).toMatchObject({ ok: true, rejected: 0 });
    expect(await listPersistedAlarms([run])).toEqual([]);
    expect(await getGateVerdict(run)).toBeNull();
  });
});
