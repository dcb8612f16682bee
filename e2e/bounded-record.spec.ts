import pg from "pg";
import { expect, test } from "./fixtures/auth.ts";

// One stored record cannot wreck its rollout page: a record written straight into the database (as old data, or
// data from before the ingest bounds, may be) with one guardrail hit 100,000 times, 20,000 reasons, 10,000 steps,
// 10,000 claimed writes and a 4 MB final reply renders a bounded page, each list and text a window with "show more".
const ID = `wrecked-${Date.now()}`;
// its own run (sorting last), so that no other spec's counts of a demo run see it
const RUN = `zz-${ID}`;

async function storeWreckedRecord(): Promise<void> {
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error("DATABASE_URL is not set: run the e2e tests through `npm test -- e2e`.");
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    // a current entry with a guardrail, a reason and a rollout, copied under a new trajectory id with its lists blown up
    const src = await c.query<{ id: string; run_id: string; rollout_id: string }>(
      `select id::text, run_id, rollout_id::text from ledger
        where is_current and rollout_id is not null and jsonb_array_length(guardrails) > 0
          and jsonb_array_length(reasons) > 0 order by id limit 1`,
    );
    const s = src.rows[0];
    await c.query("begin");
    await c.query("insert into runs (id) values ($1)", [RUN]);
    await c.query("select verity_run_partitions($1)", [RUN]);
    const rollout = await c.query<{ id: string }>(
      `insert into rollouts (trajectory_id, run_id, step, group_id, sample_index, ticket_id, steps, final_reply, sandbox,
                             registry_id, claims, tool_steps, content_hash, trained_reward)
       select $1, $4, step, group_id, sample_index, ticket_id,
              (select jsonb_agg(jsonb_build_object('type', 'tool', 'name', 'crm.lookup', 'status', 'success',
                                                   'output', 'step ' || i)) from generate_series(0, 9999) i),
              repeat('r', 4000000), sandbox, registry_id, claims, tool_steps, 'wrecked', trained_reward
         from rollouts where run_id = $2 and id = $3::bigint
       returning id::text`,
      [ID, s.run_id, s.rollout_id, RUN],
    );
    await c.query(
      `insert into ledger (trajectory_id, rollout_id, run_id, step, ticket_id, group_id, category, status, source,
                           verifier_version, config_hash, claims_source, raw_reward, reward, capped, outcome, policy,
                           evidence, efficiency, communication, deciding_guardrail, guardrail_mask, guardrails, reasons,
                           claims, handoff, tool_steps, content_hash, trained_reward, case_version)
       select $1, $4::bigint, $5, step, ticket_id, group_id, category, status, source, verifier_version, config_hash,
              claims_source, raw_reward, reward, capped, outcome, policy, evidence, efficiency, communication,
              deciding_guardrail, guardrail_mask,
              -- i in each aggregate keeps it inside its subquery (an outer column alone makes it the outer's)
              (select jsonb_agg(case when i > 0 then guardrails -> 0 end) from generate_series(1, 100000) i),
              (select jsonb_agg(case when i > 0 then reasons -> 0 end) from generate_series(1, 20000) i),
              jsonb_build_object('claimed_writes', (select jsonb_agg(to_jsonb('finance.issue_refund'::text)) from generate_series(1, 10000)),
                                 'mentioned', '[]'::jsonb, 'forbidden_hits', '[]'::jsonb),
              handoff, tool_steps, 'wrecked', trained_reward, case_version
         from ledger where run_id = $2 and id = $3::bigint`,
      [ID, s.run_id, s.id, rollout.rows[0].id, RUN],
    );
    await c.query("commit");
  } finally {
    await c.end();
  }
}

test.describe("a record far larger than ingest allows", () => {
  test.use({ role: "admin" });
  test.describe.configure({ timeout: 90_000 });

  test("renders a bounded rollout page, each list behind show more", async ({ page, request }) => {
    await storeWreckedRecord();
    const res = await request.get(`/trajectories/${ID}`);
    expect(res.status()).toBe(200);
    const html = await res.text();
    expect(html.length).toBeLessThan(2_000_000);

    await page.goto(`/trajectories/${ID}`);
    await expect(page.getByRole("heading", { level: 1, name: ID })).toBeVisible();
    await expect(page.getByRole("heading", { name: "Steps (10000)" })).toBeVisible();
    const steps = page.getByTestId("window-steps_from");
    await expect(steps).toContainText("Showing steps 1–100 of 10,000.");
    await expect(page.getByTestId("window-guardrails_from")).toContainText("of 100,000");
    await expect(page.getByTestId("window-reasons_from")).toContainText("of 20,000");
    await expect(page.getByTestId("window-claims_from")).toContainText("of 10,000");
    await expect(page.getByTestId("window-reply_from")).toContainText("Showing characters 1–20,000 of 4,000,000.");

    await steps.getByRole("link", { name: /^Show more/ }).click();
    await expect(page).toHaveURL(/steps_from=100/);
    await expect(page.getByTestId("window-steps_from")).toContainText("Showing steps 101–200 of 10,000.");
    await expect(page.getByTestId("timeline").getByText("step 100", { exact: true })).toBeVisible();
    await expect(page.getByTestId("timeline").getByText("step 99", { exact: true })).toHaveCount(0);
    // the other windows stay where they were
    await expect(page.getByTestId("window-reply_from")).toContainText("Showing characters 1–20,000");
  });
});
