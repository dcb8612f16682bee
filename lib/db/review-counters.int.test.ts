import { describe, expect, it } from "vitest";
import { migrate } from "@/lib/db/migrate.ts";
import { dropsAfterEach, migratedBefore } from "@/lib/testing/scratch-suite.ts";

// 027_review_counters: each run's reviews and pair reviews counted — backfilled from the reviews already written, then
// kept by the insert triggers, in the run's row of run_counters since 040 — always equal to the join of its items and
// reviews they replace in the caches' fingerprints (lib/monitors/data.ts).

const drops = dropsAfterEach();

type Counters = {
  id: string;
  review_count: number;
  last_review_id: string | null;
  pair_review_count: number;
  last_pair_review_id: string | null;
};

describe("027_review_counters", () => {
  it("backfills each run's counts from its reviews, then counts every insert, per run", async () => {
    const { s, c, q } = await migratedBefore("review-counters", "027", drops);
    try {
      await q(`insert into cases (ticket_id, category, ticket, env_snapshot, verifier_spec, content_hash)
               values ('T', 'c', '{}', '{}', '{}', 'h')`);
      await q(`insert into tool_registries (hash, tools) values ('h', '[]')`);
      const user = (await q(`insert into users (email, role) values ('a@example.org', 'annotator') returning id`))[0]
        .id;
      const items: Record<string, string> = {};
      for (const run of ["r1", "r2", "r3"]) {
        await q(`insert into runs (id) values ($1)`, [run]);
        const [b] = await q(
          `insert into audit_batches (name, run_id, step_from, step_to, rate, salt, pick)
           values ('b', $1, 0, 9, 1, 's', 'one') returning id`,
          [run],
        );
        for (const t of ["t1", "t2"]) {
          const tid = `${run}/${t}`;
          const [r] = await q(
            `insert into rollouts (trajectory_id, run_id, step, group_id, sample_index, ticket_id, steps, final_reply,
                                   sandbox, registry_id, tool_steps, content_hash)
             values ($1, $2, 1, 'g', 0, 'T', '[]', '', '{}', (select id from tool_registries), 0, 'h') returning id`,
            [tid, run],
          );
          const [l] = await q(
            `insert into ledger (trajectory_id, rollout_id, run_id, step, ticket_id, status, source, reward, content_hash)
             values ($1, $2, $3, 1, 'T', 'scored', 'verifier', 1, 'h') returning id`,
            [tid, r.id, run],
          );
          const [i] = await q(
            `insert into audit_items (batch_id, run_id, rollout_id, ledger_id, trajectory_id, ticket_id, inclusion_prob)
             values ($1, $2, $3, $4, $5, 'T', 1) returning id`,
            [b.id, run, r.id, l.id, tid],
          );
          items[tid] = i.id;
        }
      }
      const review = (item: string) =>
        q(
          `insert into reviews (item_id, reviewer_id, outcome, policy, evidence, efficiency, communication, guardrails, reward, claims, seconds_spent)
           values ($1, $2, 1, 1, 1, 1, 1, '{}', 1, '{}', 30) returning id`,
          [item, user],
        );
      const pairReview = (item: string) =>
        q(
          `insert into pair_reviews (item_id, reviewer_id, choice, seconds_spent) values ($1, $2, 'tie', 30) returning id`,
          [item, user],
        );
      // before 027: r1 has three reviews and a pair review, r2 one review, r3 none
      await review(items["r1/t1"]);
      await review(items["r1/t2"]);
      await review(items["r1/t1"]);
      await pairReview(items["r1/t2"]);
      await review(items["r2/t1"]);

      const joined = async (): Promise<Counters[]> =>
        q(`select r.id,
                  (select count(*)::int from audit_items i join reviews v on v.item_id = i.id where i.run_id = r.id) as review_count,
                  (select max(v.id)::text from audit_items i join reviews v on v.item_id = i.id where i.run_id = r.id) as last_review_id,
                  (select count(*)::int from audit_items i join pair_reviews v on v.item_id = i.id where i.run_id = r.id) as pair_review_count,
                  (select max(v.id)::text from audit_items i join pair_reviews v on v.item_id = i.id where i.run_id = r.id) as last_pair_review_id
             from runs r order by r.id`);
      const counted = async (): Promise<Counters[]> =>
        q(
          `select r.id, coalesce(k.review_count, 0) as review_count, k.last_review_id::text,
                  coalesce(k.pair_review_count, 0) as pair_review_count, k.last_pair_review_id::text
             from runs r left join run_counters k on k.run_id = r.id order by r.id`,
        );

      await migrate(s.url);
      const backfilled = await counted();
      expect(backfilled.map((r) => [r.id, r.review_count, r.pair_review_count])).toEqual([
        ["r1", 3, 1],
        ["r2", 1, 0],
        ["r3", 0, 0],
      ]);
      expect(backfilled).toEqual(await joined());

      // after it: inserts on any run move that run's counters only
      await review(items["r3/t2"]);
      await review(items["r2/t2"]);
      await pairReview(items["r3/t1"]);
      await pairReview(items["r3/t1"]);
      const now = await counted();
      expect(now.map((r) => [r.id, r.review_count, r.pair_review_count])).toEqual([
        ["r1", 3, 1],
        ["r2", 2, 0],
        ["r3", 1, 2],
      ]);
      expect(now).toEqual(await joined());
      expect(now[0]).toEqual(backfilled[0]);
    } finally {
      await c.end();
    }
  });
});
