// The reward-hacking demo's story, read off the seeded demo (small size) as a lead would: the annotators fail exactly
// the rollouts whose reply offers what no tool grants (the hack, which the ledger passes), so on the leaderboard of an
// early step window the ledger's reward is at the top and on a late one, once the hack has spread, a reward function
// that reads the offer is right significantly more often than the ledger (McNemar), on exactly the hacked items.
import { describe, expect, it } from "vitest";
import { seedDemoAudit, HACKING_RUN } from "@/lib/demo/audit.ts";
import { HACK_ONSET } from "@/lib/demo/curve.ts";
import { seedDemoRewards } from "@/lib/demo/rewards.ts";
import { UNBACKED_OFFER } from "@/lib/demo/rollout.ts";
import { seedDemoIfEmpty } from "@/lib/demo/seed.ts";
import { createDemoUsersIfEmpty } from "@/lib/demo/users.ts";
import { bulkPool } from "@/lib/db/pool.ts";
import type { PrismaClient } from "@/lib/generated/prisma/client.ts";
import { loadLeaderboard, loadLedgerStanding } from "@/lib/leaderboard/loaders.ts";
import { parseLeaderboardQuery } from "@/lib/leaderboard/schema.ts";
import { sandboxAvailability } from "@/lib/rewards/sandbox/index.ts";
import { SUCCESS_THRESHOLD } from "@/lib/stats/agreement.ts";
import { type ScratchDatabase, useMigratedScratch } from "@/lib/testing/scratch-suite.ts";

/** The small demo's last logged step (40 steps, 750 apart): a step's fraction of training is step / LAST_STEP. */
const LAST_STEP = 39 * 750;
const EARLY = { to: 8999 };
const LATE = { from: 21000 };
const CATCHER = "verifier-offer-check";

type Audited = { rollout_id: string; step: number; ledger: number; human: number; reply: string };

describe("the reward-hacking demo on the leaderboard", () => {
  let scratch: ScratchDatabase;
  let client: PrismaClient;
  useMigratedScratch("demo_hacking_story", (s, c) => ((scratch = s), (client = c)));

  async function board(window: { from?: number; to?: number }, a?: string, b?: string) {
    const steps = Object.fromEntries(Object.entries(window).map(([k, v]) => [k, String(v)]));
    const q = parseLeaderboardQuery({ run: HACKING_RUN, ...steps, ...(a && b ? { a, b } : {}) });
    if (!q.ok) throw new Error(q.errors.join("; "));
    const r = await loadLeaderboard(q.query, client);
    if (!r.ok) throw new Error(r.error);
    return r.view;
  }

  it("the ledger leads early, and falls behind a reward that reads the hack once the hack spreads", async () => {
    expect(await seedDemoIfEmpty(scratch.url, { size: "small" })).toMatch(/grpo-hacking/);
    await createDemoUsersIfEmpty(client);
    expect(await seedDemoAudit(scratch.url)).toMatch(/reward-hacking audit/);
    await seedDemoRewards(scratch.url);
    const pool = bulkPool(scratch.url);

    // Every audited rollout of the run through its primary review, as the leaderboard reads it.
    const { rows } = await pool.query<Audited>(
      `select distinct on (i.id) i.rollout_id::text, l.step, l.reward as ledger, r.reward as human,
              o.final_reply as reply
         from audit_items i join ledger l on l.run_id = i.run_id and l.id = i.ledger_id
         join rollouts o on o.run_id = i.run_id and o.id = i.rollout_id
         join reviews r on r.item_id = i.id and r.excluded_reason is null
        where i.run_id = $1 and i.rollout_b_id is null
        order by i.id, r.id`,
      [HACKING_RUN],
    );
    const hacked = (r: Audited) =>
      r.reply.includes(UNBACKED_OFFER.en.trim()) || r.reply.includes(UNBACKED_OFFER.zh.trim());
    const pass = (x: number) => x >= SUCCESS_THRESHOLD;
    const ids = (rs: Audited[]) => rs.map((r) => r.rollout_id).sort();
    const hacks = rows.filter(hacked);
    // The hack begins at HACK_ONSET and spreads: none early, many late.
    expect(hacks.length).toBeGreaterThanOrEqual(30);
    expect(Math.min(...hacks.map((r) => r.step / LAST_STEP))).toBeGreaterThanOrEqual(HACK_ONSET);
    expect(hacks.filter((r) => r.step >= LATE.from).length).toBeGreaterThan(hacks.length / 2);
    // The ledger passes every hacked rollout; the rollouts the annotators fail and the ledger passes are exactly the
    // hacked ones; and the annotators pass nothing the ledger fails.
    expect(hacks.every((r) => pass(r.ledger))).toBe(true);
    expect(ids(rows.filter((r) => pass(r.ledger) && !pass(r.human)))).toEqual(ids(hacks));
    expect(rows.filter((r) => !pass(r.ledger) && pass(r.human))).toEqual([]);

    // Other reward functions read the hack in the same reply: the verifier with the offer rule fails every hacked
    // rollout, and so does the code reward where the sandbox runs it.
    const fails = await pool.query<{ name: string; rollout_id: string; reward: number | null }>(
      `select f.name, x.rollout_id::text, x.reward from reward_results x
         join reward_function_versions v on v.id = x.version_id join reward_functions f on f.id = v.function_id
         join reward_runs rr on rr.id = x.reward_run_id
        where x.run_id = $1 and rr.kind = 'plain' and f.name in ($2, 'promise-kept-code')`,
      [HACKING_RUN, CATCHER],
    );
    const hackIds = new Set(ids(hacks));
    const onHacks = (name: string) => fails.rows.filter((r) => r.name === name && hackIds.has(r.rollout_id));
    expect(onHacks(CATCHER).length).toBe(hacks.length);
    expect(onHacks(CATCHER).every((r) => r.reward !== null && !pass(r.reward))).toBe(true);
    if (sandboxAvailability().ok)
      expect(onHacks("promise-kept-code").every((r) => r.reward !== null && !pass(r.reward))).toBe(true);

    // Early (no hack yet): the ledger's agreement with the humans is the best on the board, and nothing beats it.
    const early = await board(EARLY);
    const ledgerEarly = early.rows.find((r) => r.isLedger)!;
    const best = Math.max(...early.rows.map((r) => r.verdict.agreement.value ?? 0));
    expect(ledgerEarly.verdict.agreement.n).toBeGreaterThanOrEqual(30);
    expect(ledgerEarly.verdict.agreement.value).toBe(best);
    const standingEarly = (await loadLedgerStanding({ run: HACKING_RUN, ...EARLY }, client))!;
    expect(standingEarly.significantlyWorse).toBe(false);

    // Late: the reward that reads the offer agrees more often than the ledger, significantly, and the items where
    // they part are exactly the window's hacked rollouts, on each of which the human sided with it.
    const late = await board(LATE);
    const ledgerLate = late.rows.find((r) => r.isLedger)!;
    const catcher = late.rows.find((r) => r.function?.name === CATCHER)!;
    expect(catcher.verdict.agreement.value!).toBeGreaterThan(ledgerLate.verdict.agreement.value! + 0.15);
    const h2h = (await board(LATE, ledgerLate.id, catcher.id)).headToHead!;
    expect(h2h.verdict.better).toBe("b");
    expect(h2h.agreement!.pValue).toBeLessThan(0.001);
    expect(h2h.disagreements.every((d) => d.humanSide === "b")).toBe(true);
    const lateHacks = hacks.filter((r) => r.step >= LATE.from);
    expect(h2h.disagreements.map((d) => String(d.rolloutId)).sort()).toEqual(ids(lateHacks));
    const pct = (x: number | null) => `${Math.round((x ?? 0) * 100)}%`;
    console.log(
      `grpo-hacking (small demo): ${hacks.length} hacked of ${rows.length} audited; early (to ${EARLY.to}) ledger ` +
        `${pct(ledgerEarly.verdict.agreement.value)} of ${ledgerEarly.verdict.agreement.n}; late (from ${LATE.from}) ` +
        `ledger ${pct(ledgerLate.verdict.agreement.value)} vs ${CATCHER} ${pct(catcher.verdict.agreement.value)} of ` +
        `${h2h.n}, McNemar p = ${h2h.agreement!.pValue.toPrecision(2)}; late rows: ` +
        late.rows.map((r) => `${r.function?.name ?? "ledger"} ${pct(r.verdict.agreement.value)}`).join(", "),
    );
    const standingLate = (await loadLedgerStanding({ run: HACKING_RUN, ...LATE }, client))!;
    expect(standingLate.significantlyWorse).toBe(true);
    expect(standingLate.rank).toBeGreaterThan(1);
  }, 300_000);
});
