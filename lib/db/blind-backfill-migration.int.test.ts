import { describe, expect, it } from "vitest";
import { migrate } from "@/lib/db/migrate.ts";
import { dropsAfterEach, migratedBefore } from "@/lib/testing/scratch-suite.ts";

// 012_append_only on a database that already has reviews: each gets the reason a submission would have given it
// (lib/review/blind.ts), judged on the activity log's record of roles as it stood when the review was submitted.

const drops = dropsAfterEach();

describe("012_append_only on existing reviews", () => {
  it("stores why each earlier review does not count, or nothing when it was blind", async () => {
    const { s, all, c, q } = await migratedBefore("backfill", "012", drops);
    try {
      await q(`insert into runs (id) values ('r')`);
      await q(`insert into cases (ticket_id, category, ticket, env_snapshot, verifier_spec, content_hash)
               values ('T', 'c', '{}', '{}', '{}', 'h')`);
      await q(`insert into tool_registries (hash, tools) values ('h', '[]')`);
      const ids: Record<string, string> = {};
      for (const t of ["t1", "t2"]) {
        const [r] = await q(
          `insert into rollouts (trajectory_id, run_id, step, group_id, sample_index, ticket_id, steps, final_reply,
                                 sandbox, registry_id, tool_steps, content_hash)
           values ($1, 'r', 1, 'g', 0, 'T', '[]', '', '{}', (select id from tool_registries), 0, 'h') returning id`,
          [t],
        );
        const [l] = await q(
          `insert into ledger (trajectory_id, rollout_id, run_id, step, ticket_id, status, source, reward, content_hash)
           values ($1, $2, 'r', 1, 'T', 'scored', 'verifier', 1, 'h') returning id`,
          [t, r.id],
        );
        Object.assign(ids, { [`r${t}`]: r.id, [`l${t}`]: l.id });
      }
      const batch = async () =>
        (
          await q(`insert into audit_batches (name, run_id, step_from, step_to, rate, salt, pick)
                   values ('b', 'r', 0, 9, 1, 's', 'one') returning id`)
        )[0].id;
      const [b1, b2] = [await batch(), await batch()];
      const item = async (b: number, t: string) =>
        (
          await q(
            `insert into audit_items (batch_id, rollout_id, ledger_id, trajectory_id, ticket_id, inclusion_prob)
             values ($1, $2, $3, $4, 'T', 1) returning id`,
            [b, ids[`r${t}`], ids[`l${t}`], t],
          )
        )[0].id;
      const [i1, i2, i3] = [await item(b1, "t1"), await item(b1, "t2"), await item(b2, "t1")];
      const at = (day: number) => new Date(Date.UTC(2026, 0, day)).toISOString();
      const user = async (email: string, role: string) =>
        (await q(`insert into users (email, role) values ($1, $2) returning id`, [email, role]))[0].id as number;
      const log = (userId: number, action: string, details: object, day: number) =>
        q(
          `insert into activity_log (at, actor_label, action, target_type, target_id, details)
           values ($1, 'test', $2, 'user', $3, $4)`,
          [at(day), action, String(userId), details],
        );
      const admin = await user("admin@x", "admin"); // no user.create entry: judged by the present role
      const ann = await user("ann@x", "annotator");
      await log(ann, "user.create", { role: "annotator" }, 1);
      const former = await user("former@x", "annotator");
      await log(former, "user.create", { role: "lead" }, 1);
      await log(former, "user.role_change", { from: "lead", to: "annotator" }, 2);
      const promoted = await user("promoted@x", "lead");
      await log(promoted, "user.create", { role: "annotator" }, 1);
      await log(promoted, "user.role_change", { from: "annotator", to: "lead" }, 9);
      const review = async (itemId: string, userId: number, day: number) =>
        (
          await q(
            `insert into reviews (item_id, reviewer_id, outcome, policy, evidence, efficiency, communication, guardrails,
                                  reward, claims, seconds_spent, created_at)
             values ($1, $2, 1, 1, 1, 1, 1, '{}', 1, '{}', 10, $3) returning id`,
            [itemId, userId, at(day)],
          )
        )[0].id as string;
      const rs = {
        admin: await review(i1, admin, 3),
        blind: await review(i1, ann, 3),
        again: await review(i3, ann, 5),
        former: await review(i2, former, 3),
        beforePromotion: await review(i2, promoted, 3),
      };

      expect(await migrate(s.url, { files: all })).toContain("012_append_only");
      const rows = await q(`select id, excluded_reason from reviews order by id`);
      const reason = Object.fromEntries(rows.map((r) => [r.id, r.excluded_reason]));
      expect({
        admin: reason[rs.admin],
        blind: reason[rs.blind],
        again: reason[rs.again],
        former: reason[rs.former],
        beforePromotion: reason[rs.beforePromotion],
      }).toEqual({
        admin: "author's role (admin) can read the ledger",
        blind: null,
        again: `author saw this rollout's ledger numbers after reviewing it in audit item ${i1}`,
        former: "author held the role lead, which can read the ledger, before submitting",
        beforePromotion: null,
      });
      // and reviews are append-only again once the migration is done
      await expect(q(`update reviews set excluded_reason = null`)).rejects.toThrow("reviews is append-only");
    } finally {
      await c.end();
    }
  });
});
