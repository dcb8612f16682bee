// For the close-loop end-to-end spec: `node --import tsx lib/testing/review-as-revised.ts ITEM_ID EMAIL SPEC_JSON`
// submits, as that user, a review of the item that gives exactly the score the verifier gives its rollout under
// the revised spec (SPEC_JSON), so it disagrees with the ledger now and agrees once that spec is applied. Uses
// DATABASE_URL (the e2e database). Prints the review's JSON result.
import { claimNextItem } from "@/lib/review/leases.ts";
import { db } from "@/lib/db/client.ts";
import { caseFromColumns, rolloutFromColumns } from "@/lib/ledger/store/rows.ts";
import { submitReview } from "@/lib/review/mutations.ts";
import { DIMENSIONS } from "@/lib/verifier/codes.ts";
import type { Claims } from "@/lib/verifier/schema.ts";
import { scoreRollout } from "@/lib/verifier/score.ts";
import { bulkPool, closeBulkPool } from "@/lib/db/pool.ts";

async function main(): Promise<number> {
  const [itemId, email, specJson] = process.argv.slice(2);
  const url = process.env.DATABASE_URL!;
  const pool = bulkPool(url);
  try {
    const { rows } = await pool.query(
      `select r.id::text as id, r.trajectory_id, r.run_id, r.step, r.group_id, r.sample_index, r.ticket_id, r.steps,
              r.final_reply, r.sandbox, r.claims, t.tools, r.trained_reward,
              c.ticket, c.env_snapshot, c.verifier_spec, i.batch_id
         from audit_items i join rollouts r on r.run_id = i.run_id and r.id = i.rollout_id
         join tool_registries t on t.id = r.registry_id join cases c on c.ticket_id = i.ticket_id
        where i.id = $1::bigint`,
      [itemId],
    );
    if (!rows[0]) throw new Error(`no item ${itemId}`);
    const doc = { ...caseFromColumns(rows[0]), verifier_spec: JSON.parse(specJson) };
    const scored = scoreRollout(rolloutFromColumns(rows[0]), doc);
    const user = await db().user.findUniqueOrThrow({ where: { email }, select: { id: true, email: true } });
    // The batch holds this one item (the spec's own): the lease is on it.
    const lease = await claimNextItem(user.id, { batchId: rows[0].batch_id });
    if (lease?.itemId !== BigInt(itemId)) throw new Error(`the lease went to item ${lease?.itemId}, not ${itemId}`);
    const r = await submitReview(
      BigInt(itemId),
      { userId: user.id, email: user.email },
      {
        subscores: Object.fromEntries(DIMENSIONS.map((d) => [d, scored.subscores![d]!])) as never,
        guardrails: (scored.guardrails ?? []).map((g) => g.code),
        claims: scored.claims as Claims,
        note: "the return label is part of a damaged-item refund",
      },
      40,
    );
    console.log(JSON.stringify(r, (_k, v) => (typeof v === "bigint" ? v.toString() : v)));
    return r.ok ? 0 : 1;
  } finally {
    await closeBulkPool(url);
    await db().$disconnect();
  }
}

main().then((code) => process.exit(code));
