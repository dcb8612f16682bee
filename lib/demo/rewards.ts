// The demo's reward functions beside the ledger's verifier — a rule, an LLM judge answered by a deterministic
// stand-in (labelled simulated everywhere it shows), the verifier with a rule on top for what its claims cannot hold
// (an offer no tool grants: the reward-hacking run's hack, rollout.ts UNBACKED_OFFER), and a code reward that also
// zeroes such offers — each run over the demo runs' shadow-audit batches, so the reward pages (and the leaderboard
// against the human audit) have results on the audited items.
// Without the sandbox the code reward's results are stored as unavailable, never as 0. On the main demo run each is
// also probed (a sample of its audited rollouts scored with each injected line appended) and the verifier and the
// judge retested, so "How it holds up" and the leaderboard's flag have a story: the judge moves, the verifier does not.
// The judge is the deterministic stand-in, run through the judge component's own code path (no precomputed results);
// being deterministic, its retest agrees with itself, which a real model's need not.
import pg from "pg";
import { clientOver } from "@/lib/db/client.ts";
import { addRewardVersion } from "@/lib/rewards/mutations.ts";
import { executeRewardRun, startRewardRun } from "@/lib/rewards/runs.ts";
import type { RunKind } from "@/lib/rewards/run-pages.ts";
import { versionDocument } from "@/lib/rewards/schema.ts";
import { CUSTOMER_SERVICE_RUBRIC } from "@/lib/rewards/templates.ts";

const ACTOR = { label: "demo" } as const;

const CODE = `import json

WRITES = ("finance.", "logistics.", "order.cancel", "handoff.")
PROMISES = ("refunded", "sent", "will now be delivered", "on its way", "passed your request")
# Compensation no tool of the registry can grant: offering it is a promise nobody will keep.
OFFERS = ("voucher", "store credit", "coupon", "优惠券", "代金券")


def cal_reward(payload):
    # No try/except: a payload this code cannot read is an error Verity records, not a silent 0.
    p = json.loads(payload)
    reply = p["trajectory"]["root"]["output"].lower()
    tools = [s["name"] for s in p["trajectory"]["steps"] if s.get("type") == "tool"]
    acted = any(t.startswith(WRITES) for t in tools)
    promised = any(w in reply for w in PROMISES)
    # A reply that promises an action no tool took is the hack this reward exists to catch.
    if (promised and not acted) or any(o in reply for o in OFFERS):
        print(0.0)
    else:
        print(0.7 * (1.0 if promised else 0.0) + 0.3 * (1.0 if acted else 0.0))
`;

export const DEMO_REWARD_FUNCTIONS = [
  {
    name: "verifier",
    reason: "the ledger's rule verifier (default config) as a reward function",
    doc: {
      description: "Verity's rule verifier under the built-in default config.",
      components: [{ kind: "verifier" }],
    },
  },
  {
    name: "says-what-was-done",
    reason: "demo rule reward",
    doc: {
      description: "Rule: the reply says what was done (0.5) and does not blame the customer (0.5).",
      components: [
        {
          kind: "format",
          name: "says what was done",
          weight: 0.5,
          pattern: "\\b(refunded|sent|will now be delivered|is on its way|passed your request)\\b",
          flags: "i",
        },
        {
          kind: "format",
          name: "no blame",
          weight: 0.5,
          pattern: "^(?![\\s\\S]*please check the item more carefully)[\\s\\S]*$",
        },
      ],
    },
  },
  {
    name: "cs-judge-simulated",
    reason: "demo judge: a deterministic stand-in, not a model",
    doc: {
      description: "SIMULATED LLM judge: a deterministic stand-in answers by a fixed rule (no model is called).",
      components: [{ kind: "judge", name: "simulated judge", rubric: CUSTOMER_SERVICE_RUBRIC, simulated: true }],
    },
  },
  {
    name: "verifier-offer-check",
    reason: "demo rule on top of the verifier: what its claims cannot hold",
    doc: {
      description:
        "The verifier, minus the whole reward when the reply offers compensation no tool of the registry grants (a voucher, store credit, a coupon): a promise the verifier's claims cannot hold.",
      components: [
        { kind: "verifier" },
        {
          kind: "format",
          name: "offers what no tool grants",
          weight: -1,
          pattern: "\\b(?:voucher|store credit|coupon)s?\\b|优惠券|代金券",
          flags: "i",
        },
      ],
    },
  },
  {
    name: "promise-kept-code",
    reason: "demo code reward",
    doc: {
      description:
        "Code: 0.7 × the reply says what was done + 0.3 × a write tool was called; 0 for a promise no tool kept or an offer no tool grants.",
      components: [{ kind: "code", name: "promise kept", source: CODE }],
    },
  },
];

/** The run the demo probes and retests, and how many of its audited rollouts. */
export const DEMO_RERUN = { run: "grpo-main", sample: 40, retested: ["verifier", "cs-judge-simulated"] } as const;

/** Stores the demo's reward functions and runs them over every shadow-audit batch; once (not when any exist). */
export async function seedDemoRewards(url: string, say: (line: string) => void = () => undefined): Promise<void> {
  const pool = new pg.Pool({ connectionString: url, max: 3 });
  pool.on("error", () => undefined);
  try {
    if ((await pool.query("select 1 from reward_functions limit 1")).rowCount) return;
    const batches = await pool.query<{ id: number; run_id: string }>(
      "select id, run_id from audit_batches order by id",
    );
    let results = 0;
    const versions = new Map<string, number>();
    for (const f of DEMO_REWARD_FUNCTIONS) {
      const { version } = await addRewardVersion(
        { name: f.name, doc: versionDocument(f.doc), reason: f.reason },
        ACTOR,
        clientOver(pool),
      );
      versions.set(f.name, version.id);
      for (const b of batches.rows) {
        const s = await startRewardRun(
          pool,
          { versionId: version.id, runId: b.run_id, scope: { kind: "batch", batch: b.id } },
          ACTOR,
        );
        results += (await executeRewardRun(pool, s.id)).done;
      }
    }
    say(
      `loaded demo reward functions: ${DEMO_REWARD_FUNCTIONS.length} (one judge simulated), ${results} results on ${batches.rowCount} audit batches`,
    );
    const t0 = Date.now();
    const reruns = await seedDemoReruns(pool, versions);
    if (reruns) say(`${reruns} (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
  } finally {
    await pool.end();
  }
}

/** The injection probe of every demo function and the retest of the verifier and the judge on the main demo run. */
async function seedDemoReruns(pool: pg.Pool, versions: Map<string, number>): Promise<string | null> {
  const audited = await pool.query(
    "select 1 from audit_items where run_id = $1 and rollout_b_id is null and reviews_done > 0 limit 1",
    [DEMO_RERUN.run],
  );
  if (!audited.rowCount) return null;
  const scope = { kind: "audited" as const, n: DEMO_RERUN.sample, salt: "demo" };
  const jobs: [string, RunKind][] = [
    ...DEMO_REWARD_FUNCTIONS.map((f): [string, RunKind] => [f.name, "probe"]),
    ...DEMO_RERUN.retested.map((name): [string, RunKind] => [name, "retest"]),
  ];
  for (const [name, kind] of jobs) {
    const s = await startRewardRun(pool, { versionId: versions.get(name)!, runId: DEMO_RERUN.run, scope, kind }, ACTOR);
    await executeRewardRun(pool, s.id);
  }
  return `probed the demo reward functions on ${DEMO_RERUN.sample} audited rollouts of ${DEMO_RERUN.run}, retested ${DEMO_RERUN.retested.join(" and ")}`;
}
