// A small ledger whose clusters are known by construction, for the clusters integration tests (data, API, CLI,
// export). Written through the ingest path, so the narrow tables and the rollups are what production writes.
//
// Run "clu", steps 0, 1000, 2000, 3000; per step:
//   ex02 empty promise (T-EP, refund_damaged, reward 0.2)        3, 2, 1, 0   shrinking
//   ex09 unauthorized write (T-UW, cancel_order, 0.3, raw 1.0)   1, 1, 1, 1
//   ex03 legal hand-off, no write (T-HO, 0.619)                   0, 1, 2, 3   the blind spot, growing
//   ex01 + a hand-off step after the refund (T-HW, 1.0)           1, 0, 0, 0   hand-off with a write: not blind
//   ex01 correct refund (T-OK, 1.0)                               fills every step up to 8 rollouts
//   external records at step 0 and 3000 (one each): unauthorized_write + missing_evidence, reward 0.3, raw 0.8,
//     reason required_read_missing @order.get #required_reads.0 (T-UW)
//   external record at step 3000: no guardrail, outcome 0.2 weakest, reward 0.45 (T-OK)
//   external record at step 1000: no guardrail, no sub-scores, reward 0.4 (T-OK)
import type pg from "pg";
import { caseLine, externalScore, rolloutLine } from "@/lib/testing/ingest-fixtures.ts";
import { ingestText, ndjson } from "@/lib/testing/ingest-db.ts";
import { makeCase, makeRollout, reads, tool } from "@/lib/testing/verifier-fixtures.ts";

export const RUN = "clu";
export const STEPS = [0, 1000, 2000, 3000] as const;
export const EMPTY_PROMISE = [3, 2, 1, 0];
export const UNAUTHORIZED = [1, 1, 1, 1];
export const BLIND = [0, 1, 2, 3];
export const HANDOFF_WITH_WRITE = [1, 0, 0, 0];
export const PER_STEP = 8;
/** External records per step (co-fired at 0 and 3000, weakest:unknown at 1000, weakest:outcome at 3000). */
export const EXTERNAL = [1, 1, 0, 2];
/** Current entries per step: the denominators of every share. */
export const TOTALS = STEPS.map((_, i) => PER_STEP + EXTERNAL[i]);

type Obj = Record<string, unknown>;

/** Replies of the six empty promises, in turn: two near-duplicate phrasings of one promise and another reply. */
export const PROMISES = [
  "Your refund has been arranged.",
  "your refund has been arranged!!",
  "We are looking into it.",
];

function withHandoffAfterRefund(r: Obj): Obj {
  const t = r.trajectory as { steps: Obj[]; final_reply: string };
  const steps = [
    ...t.steps,
    {
      type: "tool",
      name: "handoff.transfer_to_human",
      input: { reason: "follow-up" },
      output: "queued",
      status: "success",
    },
  ];
  return { ...r, trajectory: { ...t, steps, final_reply: "Refunded; a colleague will follow up." } };
}

function withReply(r: Obj, reply: string): Obj {
  return { ...r, trajectory: { ...(r.trajectory as Obj), final_reply: reply } };
}

/**
 * The NDJSON lines of the known ledger (cases first). `run` renames the run and `tickets` prefixes the ticket ids,
 * for tests that share a database with others.
 */
export function knownLedgerLines(run = RUN, tickets = ""): Obj[] {
  let promises = 0;
  const T = (id: string) => `${tickets}${id}`;
  const lines: Obj[] = [
    caseLine(T("T-EP"), "02"),
    caseLine(T("T-UW"), "09"),
    caseLine(T("T-HO"), "03"),
    caseLine(T("T-HW"), "01"),
    caseLine(T("T-OK"), "01"),
  ];
  STEPS.forEach((step, i) => {
    let n = 0;
    const add = (
      tag: string,
      ticket: string,
      example: string,
      count: number,
      edit: (r: Obj, j: number) => Obj = (r) => r,
    ) => {
      for (let j = 0; j < count; j++, n++)
        lines.push(
          edit(
            rolloutLine(`${run}/s${step}/${tag}${j}`, T(ticket), {
              run,
              step,
              example,
              group: `${run}/s${step}/${ticket}`,
            }),
            j,
          ),
        );
    };
    add("ep", "T-EP", "02", EMPTY_PROMISE[i], (r) => withReply(r, PROMISES[promises++ % 3]));
    add("uw", "T-UW", "09", UNAUTHORIZED[i]);
    add("ho", "T-HO", "03", BLIND[i]);
    add("hw", "T-HW", "01", HANDOFF_WITH_WRITE[i], withHandoffAfterRefund);
    add("ok", "T-OK", "01", PER_STEP - n);
  });
  const reason = {
    dimension: "evidence",
    code: "required_read_missing",
    tool: "order.get",
    field: "required_reads.0",
    message: "order.get was not read",
  };
  for (const step of [0, 3000]) {
    lines.push({
      ...externalScore(`${run}/s${step}/x-cofired`, T("T-UW"), 0.3, {
        run,
        step,
        guardrails: ["unauthorized_write", "missing_evidence"],
      }),
      raw_reward: 0.8,
      reasons: [reason],
    });
  }
  lines.push({
    ...externalScore(`${run}/s3000/x-weak`, T("T-OK"), 0.45, { run, step: 3000 }),
    raw_reward: 0.45,
    subscores: { outcome: 0.2, policy: 1, evidence: 1, efficiency: 1, communication: 1 },
  });
  lines.push({ ...externalScore(`${run}/s1000/x-unknown`, T("T-OK"), 0.4, { run, step: 1000 }), raw_reward: null });
  return lines;
}

export async function ingestKnownLedger(pool: pg.Pool, run = RUN, tickets = ""): Promise<void> {
  const summary = await ingestText(pool, ndjson(knownLedgerLines(run, tickets)));
  if (!summary.ok || summary.rejected)
    throw new Error(`known ledger rejected: ${JSON.stringify(summary.rejects.slice(0, 3))} ${summary.error ?? ""}`);
}

/**
 * The hand-off blind spot in miniature: each ticket a case that allows a hand-off, with two rollouts of `run` that
 * read, hand off and write nothing — the values to ingest.
 */
export function handoffBlindSpotValues(run: string, tickets: readonly string[]): unknown[] {
  const values: unknown[] = [];
  for (const ticket of tickets) {
    values.push(makeCase({ handoff: "allowed" }, undefined, ticket));
    for (let k = 0; k < 2; k++)
      values.push({
        ...makeRollout({
          ticketId: ticket,
          trajectoryId: `${ticket}/k${k}`,
          steps: [...reads(), tool("handoff.transfer_to_human")],
          writes: [],
          claims: { claimed_writes: [], mentioned: [], forbidden_hits: [] },
          reply: "I have passed your case to a colleague.",
        }),
        run_id: run,
        group_id: `${run}/${ticket}`,
        sample_index: k,
      });
  }
  return values;
}
