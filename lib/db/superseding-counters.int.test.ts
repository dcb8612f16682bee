import { describe, expect, it } from "vitest";
import { migrate } from "@/lib/db/migrate.ts";
import { dropsAfterEach, migratedBefore } from "@/lib/testing/scratch-suite.ts";

// 028_superseding_counters: each run's ledger entries that supersede another, counted on its row — backfilled from
// the ledger already written, then kept by the insert trigger, one statement of many rows at a time — always equal to
// the count and latest id of the run's entries with a predecessor, which the agreement report's fingerprint reads
// instead of probing every reviewed item's current entry (lib/agreement/cached.ts).

const drops = dropsAfterEach();

type Counters = { id: string; superseding_count: string; last_superseding_id: string | null };

describe("028_superseding_counters", () => {
  it("backfills each run's count from its ledger, then counts every superseding insert, per run and per statement", async () => {
    const { s, c, q } = await migratedBefore("superseding-counters", "028", drops);
    try {
      await q(`insert into cases (ticket_id, category, ticket, env_snapshot, verifier_spec, content_hash)
               values ('T', 'c', '{}', '{}', '{}', 'h')`);
      await q(`insert into tool_registries (hash, tools) values ('h', '[]')`);
      const rollout: Record<string, string> = {};
      for (const run of ["r1", "r2", "r3"]) {
        await q(`insert into runs (id) values ($1)`, [run]);
        for (const t of ["t1", "t2"]) {
          const tid = `${run}/${t}`;
          const [r] = await q(
            `insert into rollouts (trajectory_id, run_id, step, group_id, sample_index, ticket_id, steps, final_reply,
                                   sandbox, registry_id, tool_steps, content_hash)
             values ($1, $2, 1, 'g', 0, 'T', '[]', '', '{}', (select id from tool_registries), 0, 'h') returning id`,
            [tid, run],
          );
          rollout[tid] = r.id;
          await q(
            `insert into ledger (trajectory_id, rollout_id, run_id, step, ticket_id, status, source, reward, content_hash)
             values ($1, $2, $3, 1, 'T', 'scored', 'verifier', 1, 'h')`,
            [tid, r.id, run],
          );
        }
      }
      // Each trajectory's current entry superseded by a new one, all in one statement (as a re-score's COPY is).
      const supersede = async (tids: string[]) => {
        await q("begin");
        const old = await q(
          `update ledger set is_current = false where trajectory_id = any($1::text[]) and is_current
           returning id, trajectory_id, run_id`,
          [tids],
        );
        await q(
          `insert into ledger (trajectory_id, rollout_id, run_id, step, ticket_id, status, source, reward, content_hash,
                               supersedes_id)
           select o.trajectory_id, r.id, o.run_id, 1, 'T', 'scored', 'verifier', 0.5, 'h2', o.id
             from unnest($1::bigint[], $2::text[], $3::text[]) o(id, trajectory_id, run_id)
             join rollouts r on r.run_id = o.run_id and r.trajectory_id = o.trajectory_id`,
          [old.map((o) => o.id), old.map((o) => o.trajectory_id), old.map((o) => o.run_id)],
        );
        await q("commit");
      };
      // before 028: r1 re-scored twice on t1 and once on t2, r2 once on t1, r3 never
      await supersede(["r1/t1", "r1/t2", "r2/t1"]);
      await supersede(["r1/t1"]);

      const fromLedger = async (): Promise<Counters[]> =>
        q(`select r.id,
                  (select count(*) from ledger l where l.run_id = r.id and l.supersedes_id is not null)::text as superseding_count,
                  (select max(l.id) from ledger l where l.run_id = r.id and l.supersedes_id is not null)::text as last_superseding_id
             from runs r order by r.id`);
      const counted = async (): Promise<Counters[]> =>
        q(`select r.id, coalesce(k.superseding_count, 0)::text as superseding_count, k.last_superseding_id::text
             from runs r left join run_counters k on k.run_id = r.id order by r.id`);

      await migrate(s.url);
      const backfilled = await counted();
      expect(backfilled.map((r) => [r.id, r.superseding_count])).toEqual([
        ["r1", "3"],
        ["r2", "1"],
        ["r3", "0"],
      ]);
      expect(backfilled).toEqual(await fromLedger());

      // after it: one statement over two runs moves both; new trajectories' first entries move none
      await supersede(["r2/t2", "r3/t1", "r3/t2"]);
      const [extra] = await q(
        `insert into rollouts (trajectory_id, run_id, step, group_id, sample_index, ticket_id, steps, final_reply,
                               sandbox, registry_id, tool_steps, content_hash)
         values ('r1/t3', 'r1', 2, 'g', 0, 'T', '[]', '', '{}', (select id from tool_registries), 0, 'h') returning id`,
      );
      await q(
        `insert into ledger (trajectory_id, rollout_id, run_id, step, ticket_id, status, source, reward, content_hash)
         values ('r1/t3', $1, 'r1', 2, 'T', 'scored', 'verifier', 1, 'h')`,
        [extra.id],
      );
      const now = await counted();
      expect(now.map((r) => [r.id, r.superseding_count])).toEqual([
        ["r1", "3"],
        ["r2", "2"],
        ["r3", "2"],
      ]);
      expect(now).toEqual(await fromLedger());
      expect(now[0]).toEqual(backfilled[0]);

      // a statement that is rolled back leaves the counters as they were
      await q("begin");
      await q("update ledger set is_current = false where trajectory_id = 'r1/t3' and is_current");
      await q(
        `insert into ledger (trajectory_id, rollout_id, run_id, step, ticket_id, status, source, reward, content_hash,
                             supersedes_id)
         select trajectory_id, rollout_id, run_id, 2, 'T', 'scored', 'verifier', 0, 'h3', id
           from ledger where trajectory_id = 'r1/t3' and supersedes_id is null`,
      );
      expect((await counted())[0].superseding_count).toBe("4");
      await q("rollback");
      expect(await counted()).toEqual(now);
    } finally {
      await c.end();
    }
  });
});
