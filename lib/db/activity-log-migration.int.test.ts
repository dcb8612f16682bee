import { describe, expect, it } from "vitest";
import { migrate } from "@/lib/db/migrate.ts";
import { dropsAfterEach, migratedBefore } from "@/lib/testing/scratch-suite.ts";

// 011_activity_log renames the table of who did what (audit_log → activity_log) on databases that already hold it:
// the rows, the id sequence's position and the append-only trigger survive, and nothing is left under the old name.

const drops = dropsAfterEach();

describe("011_activity_log", () => {
  it("renames audit_log and its indexes, constraints, sequence and trigger, keeping the rows", async () => {
    const { s, all, c } = await migratedBefore("activity", "011", drops);
    try {
      await c.query(
        `insert into audit_log (actor_label, action) values ('cli', 'user.create'), ('cli', 'token.create')`,
      );
      expect(await migrate(s.url, { files: all })).toContain("011_activity_log");

      const rows = await c.query(`select id::int, action from activity_log order by id`);
      expect(rows.rows).toEqual([
        { id: 1, action: "user.create" },
        { id: 2, action: "token.create" },
      ]);
      const next = await c.query(
        `insert into activity_log (actor_label, action) values ('cli', 'x') returning id::int`,
      );
      expect(next.rows[0].id).toBe(3);

      const names = await c.query<{ name: string }>(
        `select relname as name from pg_class where relname like 'activity_log%' or relname like 'audit_log%'
         union all select conname from pg_constraint where conname like 'activity_log%' or conname like 'audit_log%'
         union all select tgname from pg_trigger where tgname like 'activity_log%' or tgname like 'audit_log%'
         order by 1`,
      );
      const found = names.rows.map((r) => r.name);
      expect(found.filter((n) => n.startsWith("audit_log"))).toEqual([]);
      expect(found).toEqual(
        expect.arrayContaining([
          "activity_log",
          "activity_log_action_at_idx",
          "activity_log_actor_id_at_idx",
          "activity_log_actor_id_fkey",
          "activity_log_append_only",
          "activity_log_at_idx",
          "activity_log_id_seq",
          "activity_log_pkey",
        ]),
      );
      await expect(c.query(`delete from activity_log where id = 1`)).rejects.toThrow(
        "activity_log is append-only: rows cannot be deleted",
      );
    } finally {
      await c.end();
    }
  });
});
