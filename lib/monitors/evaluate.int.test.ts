// Alarm evaluation against a real database: states persisted from the rollups, one event per state change (never
// two for the same change, even with two evaluations at once), the webhook posted to a local receiver, thresholds
// edited through the logged mutation, and evaluation as data arrives giving the same end state as all at once.
import { describe, expect, it } from "vitest";
import { alarmReceiverForFile } from "@/lib/testing/webhook-receiver.ts";
import { uniqueName } from "@/lib/testing/audit-data.ts";
import { db } from "@/lib/db/client.ts";
import { demoRunValues } from "@/lib/demo/generate.ts";
import { ingestValues } from "@/lib/ingest/ingest.ts";
import { bulkPool } from "@/lib/db/pool.ts";
import { alarmTimeline, stepSeries } from "@/lib/stats/alarms.ts";
import { HANDOFF_RATE_ALARM } from "@/lib/stats/alarm-presets.ts";
import { computeAlarmStatuses } from "@/lib/monitors/alarm-state.ts";
import { listAlarmEvents, listAlarmStepRows, listPersistedAlarms, runFingerprints } from "@/lib/monitors/data.ts";
import { evaluateRunAlarms, refreshAlarms } from "@/lib/monitors/evaluate.ts";
import { setRunThresholds } from "@/lib/monitors/mutations.ts";
import { alarmRules, ALARMS } from "@/lib/monitors/rules.ts";
import { DEFAULT_THRESHOLDS } from "@/lib/monitors/schema.ts";

const url = process.env.DATABASE_URL!;
const receiver = alarmReceiverForFile();

async function ingest(values: Iterable<unknown>) {
  // No evaluation by the ingest itself: these tests drive evaluateRunAlarms (after-write.int.test.ts covers the hook).
  const s = await ingestValues(values, { pool: bulkPool(url), batchLines: 500 });
  if (!s.ok || s.rejected) throw new Error(JSON.stringify(s).slice(0, 400));
}

/** The hacking variant: 30 tickets × 12 logged steps × K=4 (120 rollouts a step, above the 30 the alarms need). */
const spec = (runId: string) => ({ runId, tickets: 30, steps: 12, k: 4, seed: "alarms", variant: "hacking" as const });

/** The hand-off alarm replayed straight from the ledger (independent of the rollups and of lib/monitors). */
async function handoffFromLedger(runId: string) {
  const { rows } = await bulkPool(url).query<{ step: number; k: number; n: number }>(
    "select step, count(*) filter (where handoff)::int as k, count(*)::int as n from ledger where run_id = $1 and is_current group by step order by step",
    [runId],
  );
  const t = alarmTimeline(HANDOFF_RATE_ALARM, stepSeries(rows));
  return t[t.length - 1];
}

describe("evaluateRunAlarms", () => {
  // Fixed ids: the demo generator seeds each rollout by run id, so fixed ids give the same curves every time.
  const RUN = "monitors-alarms";

  it("persists every alarm's state; the hand-off alarm matches a replay over the ledger; each change is posted once", async () => {
    await ingest(demoRunValues(spec(RUN)));
    const r = await evaluateRunAlarms(RUN, { webhookUrl: receiver.url });
    expect(r.evaluated).toBe(true);
    expect(r.alarms.map((a) => a.alarm)).toEqual([...ALARMS]);
    const handoff = r.alarms.find((a) => a.alarm === "handoff")!;
    const direct = await handoffFromLedger(RUN);
    expect(handoff).toMatchObject({ state: "red", sinceStep: direct.since, atStep: direct.at, value: direct.value });
    expect(direct.state).toBe("red");
    // no reviews: the shadow-audit alarms have nothing to evaluate
    for (const a of ["extraction", "hacking_agreement", "hacking_success"] as const)
      expect(r.alarms.find((x) => x.alarm === a)).toMatchObject({ state: "green", atStep: null });

    const events = await listAlarmEvents({ runId: RUN, limit: 50 });
    expect(events.map((e) => `${e.alarm}:${e.fromState}→${e.toState}`).sort()).toEqual(
      r.transitions.map((t) => `${t.alarm}:${t.from}→${t.to}`).sort(),
    );
    expect(events.find((e) => e.alarm === "handoff")).toMatchObject({
      fromState: "green",
      toState: "red",
      step: direct.since,
      webhook: "sent",
    });
    const mine = receiver.received.filter((x) => x.run === RUN);
    expect(mine).toHaveLength(r.transitions.length);
    expect(mine.find((x) => x.alarm === "handoff")).toMatchObject({ from: "green", to: "red", step: direct.since });
  });

  it("skips the work when nothing changed, and records nothing when forced on the same data", async () => {
    const posted = receiver.received.length;
    const events = (await listAlarmEvents({ runId: RUN, limit: 50 })).length;
    const again = await evaluateRunAlarms(RUN, { webhookUrl: receiver.url });
    expect(again.evaluated).toBe(false);
    const forced = await evaluateRunAlarms(RUN, { webhookUrl: receiver.url, force: true });
    expect(forced).toMatchObject({ evaluated: true, transitions: [] });
    expect((await listAlarmEvents({ runId: RUN, limit: 50 })).length).toBe(events);
    expect(receiver.received.length).toBe(posted);
  });

  it("new thresholds (logged) re-evaluate: a 90% hand-off ceiling turns the alarm green; two concurrent evaluations record the change back once", async () => {
    const lead = {
      userId: (await db().user.create({ data: { email: `${uniqueName("lead")}@t.local`, role: "lead" } })).id,
      email: "lead@t.local",
    };
    const saved = await setRunThresholds(RUN, { ...DEFAULT_THRESHOLDS, handoffCeiling: 0.9 }, lead);
    expect(saved).toEqual({ ok: true, stored: { handoffCeiling: 0.9 } });
    const log = await db().activityLog.findFirstOrThrow({
      where: { action: "run.thresholds_update", targetId: RUN },
    });
    expect(log.details).toMatchObject({
      changed: { handoffCeiling: { from: 0.1, to: 0.9 } },
      stored: { handoffCeiling: 0.9 },
    });

    const r = await evaluateRunAlarms(RUN, { webhookUrl: receiver.url });
    expect(r.transitions.map((t) => `${t.alarm}:${t.from}→${t.to}`)).toEqual(["handoff:red→green"]);

    await setRunThresholds(RUN, { ...DEFAULT_THRESHOLDS }, lead);
    expect((await db().run.findUniqueOrThrow({ where: { id: RUN } })).thresholds).toBeNull();
    const both = await Promise.all([
      evaluateRunAlarms(RUN, { webhookUrl: receiver.url }),
      evaluateRunAlarms(RUN, { webhookUrl: receiver.url }),
    ]);
    expect(both.flatMap((b) => b.transitions).map((t) => `${t.alarm}:${t.from}→${t.to}`)).toEqual([
      "handoff:green→red",
    ]);
    const changes = (await listAlarmEvents({ runId: RUN, limit: 50 }))
      .filter((e) => e.alarm === "handoff")
      .map((e) => `${e.fromState}→${e.toState}`);
    expect(changes).toEqual(["green→red", "red→green", "green→red"]);
  });

  it("evaluating as the data arrives ends where evaluating it all at once does", async () => {
    const split = "monitors-arrive";
    const values = [...demoRunValues(spec(split))];
    const perStep = 30 * 4;
    const cases = values.length - 12 * perStep;
    const seen: string[] = [];
    for (let s = 0; s < 12; s += 3) {
      await ingest(
        s === 0 ? values.slice(0, cases + 3 * perStep) : values.slice(cases + s * perStep, cases + (s + 3) * perStep),
      );
      const r = await evaluateRunAlarms(split, { webhookUrl: null });
      seen.push(...r.transitions.map((t) => `${t.alarm}:${t.from}→${t.to}`));
    }
    const arrived = await listPersistedAlarms([split]);
    // the same rollups replayed once: identical states, since-steps and values
    const once = computeAlarmStatuses(alarmRules({ ...DEFAULT_THRESHOLDS }), {
      steps: await listAlarmStepRows(split),
      audit: [],
      auditWindow: 500,
    });
    expect(
      arrived.map((a) => ({
        alarm: a.alarm,
        state: a.state,
        sinceStep: a.sinceStep,
        atStep: a.atStep,
        value: a.value,
      })),
    ).toEqual(
      ALARMS.map((alarm) => ({
        alarm,
        state: once[alarm].state,
        sinceStep: once[alarm].since,
        atStep: once[alarm].at,
        value: once[alarm].value,
      })),
    );
    expect(once.handoff.state).toBe("red");
    // The run is not judged until it holds 500 rollouts over 5 logged steps (the second arrival: 720 over 6), by
    // which time its hand-off rate has crept past 10% for three steps: one change, recorded once.
    expect(seen.filter((s) => s.startsWith("handoff:"))).toEqual(["handoff:green→red"]);
    // no webhook configured: the events say so
    expect((await listAlarmEvents({ runId: split })).every((e) => e.webhook === null)).toBe(true);
  });

  it("fingerprints a run the same whichever order its rollups are read in", async () => {
    // Rollups whose reward sums depend on the order they are added in (1e16 + 1 is 1e16), stored out of step order:
    // a scan reads them as stored, the (run, step) index in step order.
    const run = uniqueName("fp-order");
    const c = await bulkPool(url).connect();
    try {
      await c.query("begin");
      await c.query("insert into runs (id) values ($1)", [run]);
      await c.query("set local verity.rollup_writer = 'on'");
      for (const [step, sum] of [
        [3, -1e16],
        [1, 1e16],
        [2, 1],
      ])
        await c.query("insert into step_rollups (run_id, step, rollouts, reward_sum) values ($1, $2, 1, $3)", [
          run,
          step,
          sum,
        ]);
      await c.query("commit");
    } finally {
      c.release();
    }
    const read = (settings: string) =>
      db().$transaction(async (tx) => {
        for (const s of settings.split(";")) await tx.$executeRawUnsafe(`set local ${s}`);
        return (await runFingerprints([run], tx)).get(run);
      });
    // In step order 1e16 + 1 − 1e16 is 0 (1e16 + 1 is 1e16); in the stored order, −1e16 + 1e16 + 1, it would be 1.
    const fingerprint = (await runFingerprints([run])).get(run)!;
    expect(fingerprint.split("|")[0].split(":")[4]).toBe("0");
    expect(await read("enable_indexscan = off; enable_bitmapscan = off")).toBe(fingerprint);
    expect(await read("enable_seqscan = off")).toBe(fingerprint);
  });

  it("refreshAlarms covers every run and evaluates only the changed ones; an unknown run has no alarms", async () => {
    const all = await refreshAlarms(undefined, { webhookUrl: null });
    expect(all.get(RUN)?.evaluated).toBe(false);
    expect(all.get(RUN)?.alarms.find((a) => a.alarm === "handoff")?.state).toBe("red");
    expect(await evaluateRunAlarms("no-such-run")).toMatchObject({ alarms: [], evaluated: false });
  });
});
