import fs from "node:fs";
import type { Download, Page } from "@playwright/test";
import pg from "pg";
import { expect, hydrated, test } from "./fixtures/auth.ts";

// A lead watching training health on the demo data (small demo: grpo-main and grpo-hacking, 40 logged steps
// 0–29,250, 240 rollouts each; the hacking variant's hand-off rate creeps past 10%, and its shadow audit — pooled in
// 3,000-step windows, trends fitted over the whole run — disagrees more and more with a rising ledger reward).
// Each test opens chart pages and round-trips server actions; on a shared CI machine that is slow, so the budget is
// generous and the waits for the server's answers are long.
const SLOW = { timeout: 20_000 };

/** The thresholds the demo gives grpo-hacking (HACKING_THRESHOLDS in lib/demo/audit.ts). */
const DEMO_HACKING_THRESHOLDS = { auditWindow: 3000, hackingWindow: 30_000, hackingRise: 0.005 };

/** Puts grpo-hacking back on the demo's thresholds directly in the e2e database, whatever a failed test left behind. */
async function restoreThresholds() {
  if (!process.env.DATABASE_URL) return;
  const c = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await c.connect();
  try {
    await c.query("update runs set thresholds = $2::jsonb where id = $1", [
      "grpo-hacking",
      JSON.stringify(DEMO_HACKING_THRESHOLDS),
    ]);
  } finally {
    await c.end();
  }
}

test.describe("training monitors", () => {
  test.use({ role: "lead" });
  test.describe.configure({ timeout: 90_000 });

  class RunPage {
    constructor(readonly page: Page) {}
    chart = (id: string) => this.page.locator(`#chart-${id}`);
    async open(run: string, query = "") {
      await this.page.goto(`/runs/${run}${query}`);
      await expect(this.page.getByRole("heading", { level: 1, name: `Run ${run}` })).toBeVisible(SLOW);
      await hydrated(this.page);
    }
    /** Clicks a chart's CSV link and returns the downloaded file's rows. */
    async downloadCsv(id: string): Promise<{ download: Download; rows: string[][] }> {
      const [download] = await Promise.all([
        this.page.waitForEvent("download"),
        this.chart(id).getByRole("link", { name: /CSV/ }).click(),
      ]);
      const text = fs.readFileSync((await download.path())!, "utf8");
      return {
        download,
        rows: text
          .trimEnd()
          .split("\r\n")
          .map((l) => l.split(",")),
      };
    }
  }

  test("the runs list shows each run's latest health and raised alarms", async ({ page }) => {
    await page.goto("/runs");
    const hacking = page.locator('tr[data-run="grpo-hacking"]');
    await expect(hacking).toBeVisible();
    await expect(hacking.getByText(/Hand-off rate: red since step/)).toBeVisible();
    await expect(page.locator('tr[data-run="grpo-main"]').getByText(/Hand-off rate/)).toHaveCount(0);
  });

  test("a lead opens a run and sees the healthy band and the hand-off alarm", async ({ page }) => {
    const run = new RunPage(page);
    await page.goto("/runs");
    await page.getByRole("link", { name: "grpo-hacking", exact: true }).click();
    await expect(page.getByRole("heading", { level: 1, name: "Run grpo-hacking" })).toBeVisible(SLOW);
    await hydrated(page);

    const hit = run.chart("hit-rate");
    await expect(hit.getByRole("heading", { name: "Guardrail hit rate" })).toBeVisible();
    await expect(hit.locator(".recharts-reference-area")).toHaveCount(1);
    await expect(hit.getByText("healthy 10–30%")).toBeVisible();
    await expect(hit.locator(".recharts-line")).toHaveCount(1);
    await hit.getByLabel("One line per guardrail").check();
    await expect(hit.locator(".recharts-legend-wrapper").getByText("missing_evidence")).toBeVisible();
    expect(await hit.locator(".recharts-line").count()).toBeGreaterThan(3);

    const handoff = run.chart("handoff");
    await expect(handoff.getByText("alarm 10%")).toBeVisible();
    await expect(handoff.getByText(/^red since step [\d,]+$/)).toBeVisible();
    // the steps since the alarm turned red are shaded
    await expect(handoff.locator(".recharts-reference-area")).toHaveCount(1);
    await expect(page.locator('tr[data-alarm="handoff"]')).toHaveAttribute("data-state", "red");

    // the tooltip gives exact values (hover scrolls the chart into view first)
    const plot = handoff.locator(".recharts-wrapper");
    const box = (await plot.boundingBox())!;
    await plot.hover({ position: { x: box.width * 0.8, y: box.height / 2 } });
    const tip = handoff.locator(".recharts-tooltip-wrapper");
    await expect(tip.getByText(/^step [\d]+$/)).toBeVisible();
    await expect(tip.getByText(/^\d+\.\d\d%$/).first()).toBeVisible();

    // the other charts are there, the shadow audit of the run among them, and the reward-hacking alarm is red
    for (const id of ["outcomes", "group-std", "removed", "audit"])
      await expect(run.chart(id).locator(".recharts-surface").first()).toBeVisible();
    await expect(
      run.chart("outcomes").locator(".recharts-legend-wrapper").getByText("mean reward ± 1 std"),
    ).toBeVisible();
    await expect(run.chart("audit").getByText(/per 3,000-step window/)).toBeVisible();
    await expect(page.locator('tr[data-alarm="hacking_agreement"]')).toHaveAttribute("data-state", "red");
  });

  test("zooms every chart to a step range and downloads the data behind a chart as CSV", async ({ page }) => {
    const run = new RunPage(page);
    await run.open("grpo-hacking");
    await page.getByLabel("From step").fill("7500");
    await page.getByLabel("To step").fill("15000");
    await page.getByRole("button", { name: "Zoom" }).click();
    await expect(page).toHaveURL(/from=7500&to=15000/, SLOW);
    await expect(page.getByText("Showing steps 7,500–15,000 of 0–29,250")).toBeVisible();

    const { download, rows } = await run.downloadCsv("handoff");
    expect(download.suggestedFilename()).toBe("grpo-hacking-handoff-7500-15000.csv");
    expect(rows[0]).toEqual(["step", "rollouts", "hand-offs", "hand-off rate"]);
    const steps = rows.slice(1).map((r) => Number(r[0]));
    // the demo logs every 750 steps: 7,500 … 15,000 is 11 points
    expect(steps).toEqual(Array.from({ length: 11 }, (_, i) => 7500 + 750 * i));
    for (const [, n, k, rate] of rows.slice(1)) expect(Number(rate)).toBeCloseTo(Number(k) / Number(n), 12);
    expect(Number(rows[rows.length - 1][3])).toBeGreaterThan(0.1);

    // smoothing is a view option that the CSV follows
    await page.getByLabel("Smoothing").selectOption("5");
    await expect(page).toHaveURL(/smooth=5/);
    await expect(run.chart("handoff").getByRole("link", { name: /CSV/ })).toHaveAttribute("href", /smooth=5/);

    await page.getByRole("button", { name: "Whole run" }).click();
    await expect(page).not.toHaveURL(/from=/, SLOW);
    await expect(page.getByText("Whole run", { exact: true })).toBeVisible();
  });

  test("compares two runs on the same charts", async ({ page }) => {
    await page.goto("/runs");
    await hydrated(page);
    const form = page.getByRole("form", { name: "Compare two runs" });
    // the pickers start on two different runs
    const first = await form.getByLabel("First run").inputValue();
    expect(await form.getByLabel("Second run").inputValue()).not.toBe(first);
    await form.getByLabel("First run").selectOption("grpo-main");
    await form.getByLabel("Second run").selectOption("grpo-hacking");
    await form.getByRole("button", { name: "Compare" }).click();
    await expect(page).toHaveURL(/\/runs\/grpo-main\?compare=grpo-hacking/, SLOW);
    await expect(page.getByRole("heading", { name: "Alarms: grpo-main and grpo-hacking" })).toBeVisible();
    const handoff = page.locator("#chart-handoff");
    const legend = handoff.locator(".recharts-legend-wrapper");
    await expect(legend.getByText("grpo-main: hand-off rate")).toBeVisible(SLOW);
    await expect(legend.getByText("grpo-hacking: hand-off rate")).toBeVisible();
    await expect(handoff.locator(".recharts-line")).toHaveCount(2);
    // each run in a colour of its own, line and legend alike
    const strokes = await handoff
      .locator(".recharts-line path.recharts-curve")
      .evaluateAll((ps) => ps.map((p) => p.getAttribute("stroke")));
    expect(strokes).toHaveLength(2);
    expect(strokes[0]).not.toBe(strokes[1]);

    const [download] = await Promise.all([
      page.waitForEvent("download"),
      handoff.getByRole("link", { name: /CSV/ }).click(),
    ]);
    const head = fs.readFileSync((await download.path())!, "utf8").split("\r\n")[0];
    expect(head).toBe(
      "step,grpo-main: rollouts,grpo-main: hand-offs,grpo-main: hand-off rate,grpo-hacking: rollouts,grpo-hacking: hand-offs,grpo-hacking: hand-off rate",
    );

    // the other address of the same view
    await page.goto("/runs/compare?a=grpo-hacking&b=grpo-main");
    await expect(page).toHaveURL(/\/runs\/grpo-hacking\?compare=grpo-main/);
  });

  test("pages read the alarms the writes recorded: reading never changes one", async ({ page }) => {
    const c = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await c.connect();
    try {
      const events = async () =>
        (await c.query("select count(*)::int as n from monitor_alarm_events where run_id = 'grpo-main'")).rows[0].n;
      const [{ thresholds }] = (await c.query("select thresholds from runs where id = 'grpo-main'")).rows;
      const before = await events();
      // a hand-off ceiling every step is past: an evaluation would turn the alarm red and record the change
      await c.query("update runs set thresholds = $1::jsonb where id = 'grpo-main'", [
        JSON.stringify({ handoffCeiling: 0.001 }),
      ]);
      try {
        for (const path of ["/monitors", "/runs", "/runs/grpo-main"]) {
          await page.goto(path);
          await expect(page.getByRole("heading", { level: 1 })).toBeVisible(SLOW);
        }
        await expect(page.locator('tr[data-alarm="handoff"]')).toHaveAttribute("data-state", "green");
        expect(await events()).toBe(before);
      } finally {
        await c.query("update runs set thresholds = $1::jsonb where id = 'grpo-main'", [
          thresholds === null ? null : JSON.stringify(thresholds),
        ]);
      }
    } finally {
      await c.end();
    }
  });

  test("a toy run is not judged; a raised alarm is red since its recorded change; the runs table agrees with the alarms", async ({
    page,
  }) => {
    await page.goto("/runs");
    const demo = page.locator('tr[data-run="grpo-demo"]');
    await expect(demo.getByText("not judged", { exact: true })).toHaveAttribute(
      "title",
      /^not judged: the run has 10 rollouts over \d+ logged steps?; alarms judge a run from 500 rollouts over 5 steps$/,
    );
    // the latest step's rates are coloured by their alarms, whose states the titles give
    const hacking = page.locator('tr[data-run="grpo-hacking"]');
    await expect(hacking.locator("td").nth(5).locator("span").first()).toHaveAttribute("title", /; alarm red: /);

    const c = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await c.connect();
    const { rows } = await c
      .query(
        "select to_state, step from monitor_alarm_events where run_id = 'grpo-hacking' and alarm = 'handoff' order by id desc limit 1",
      )
      .finally(() => c.end());
    expect(rows[0].to_state).toBe("red");
    const run = new RunPage(page);
    await run.open("grpo-hacking");
    const handoff = page.locator('tr[data-alarm="handoff"]');
    await expect(handoff.locator("td").nth(2)).toHaveText(rows[0].step.toLocaleString("en-US"));
    await expect(
      run.chart("handoff").getByText(`red since step ${rows[0].step.toLocaleString("en-US")}`),
    ).toBeVisible();
    for (const key of ["hit_rate", "handoff"] as const) {
      const state = await page.locator(`tr[data-alarm="${key}"]`).getAttribute("data-state");
      await page.goto("/runs");
      const cell = page.locator('tr[data-run="grpo-hacking"] td').nth(key === "hit_rate" ? 4 : 5);
      await expect(cell.locator("span").first()).toHaveAttribute("title", new RegExp(`; alarm ${state}: `));
      await run.open("grpo-hacking");
    }
    // the shadow-audit chart says what it leaves out
    await expect(
      run.chart("audit").getByText(/fewer than 5 reviews \(extraction: 30 claim slots\) is a gap/),
    ).toBeVisible();
  });

  test("the Monitors page lists every alarm across runs, worst first", async ({ page }) => {
    await page.goto("/monitors");
    await expect(page.getByRole("heading", { level: 1, name: "Monitors" })).toBeVisible();
    const first = page.locator("tbody tr[data-alarm]").first();
    await expect(first).toHaveAttribute("data-state", "red");
    const row = page.locator('tr[data-run="grpo-hacking"][data-alarm="handoff"]');
    await expect(row).toHaveAttribute("data-state", "red");
    await expect(row.getByText(/above the 10% ceiling/)).toBeVisible();
    // reward hacking: the ledger's reward rises while the humans' agreement with it falls — on grpo-hacking only
    const hacking = page.locator('tr[data-run="grpo-hacking"][data-alarm="hacking_agreement"]');
    await expect(hacking).toHaveAttribute("data-state", "red");
    await expect(hacking.getByText(/ledger reward \+.+ while shadow agreement −/)).toBeVisible();
    await expect(page.locator('tr[data-run="grpo-main"][data-alarm="hacking_agreement"]')).not.toHaveAttribute(
      "data-state",
      "red",
    );
    // every run is listed, with a link to its page; grpo-demo's ten worked examples are too few to judge, so its
    // trained-reward alarm is not raised although two of them carry an uncapped trained reward
    await expect(page.getByRole("link", { name: "grpo-demo", exact: true }).first()).toBeVisible();
    const demo = page.locator('tr[data-run="grpo-demo"][data-alarm="trained_mismatch"]');
    await expect(demo).toHaveAttribute("data-state", "none");
    await expect(demo.getByText(/^not judged: the run has 10 rollouts/)).toBeVisible();
    // one row per alarm, the pairwise ordering alarm included
    await expect(page.locator('tr[data-run="grpo-main"]')).toHaveCount(8);
  });

  test("a lead changes a run's thresholds (validated), the alarms follow, and resets them", async ({ page }) => {
    // The thresholds are shared state of the e2e database: leave the demo's behind even if this test fails.
    await restoreThresholds();
    const run = new RunPage(page);
    await run.open("grpo-hacking");
    const form = page.getByRole("form", { name: "Alarm thresholds" });
    await form.getByLabel(/Hand-off alarm/).fill("150");
    await form.getByRole("button", { name: "Save thresholds" }).click();
    await expect(form.getByRole("alert")).toHaveText("Fix the fields marked below.", SLOW);
    await expect(form.getByText("At most 1.")).toBeVisible();
    await expect(form.getByLabel(/Hand-off alarm/)).toHaveValue("150");

    await form.getByLabel(/Hand-off alarm/).fill("60");
    await form.getByRole("button", { name: "Save thresholds" }).click();
    await expect(form.getByRole("status")).toHaveText(/Thresholds saved/, SLOW);
    await page.reload();
    await expect(page.locator('tr[data-alarm="handoff"]')).toHaveAttribute("data-state", "green", SLOW);
    await expect(run.chart("handoff").getByText("alarm 60%")).toBeVisible();

    await hydrated(page);
    await page
      .getByRole("form", { name: "Alarm thresholds" })
      .getByRole("button", { name: "Reset to defaults" })
      .click();
    await expect(page.getByRole("form", { name: "Alarm thresholds" }).getByRole("status")).toHaveText(
      /reset to the defaults/,
      SLOW,
    );
    await expect(page.getByRole("form", { name: "Alarm thresholds" }).getByLabel(/Hand-off alarm/)).toHaveValue("10");
    await page.reload();
    await expect(page.locator('tr[data-alarm="handoff"]')).toHaveAttribute("data-state", "red", SLOW);
  });

  test("the trained-reward chart shows where the trainer's reward left the ledger's, with its alarm and CSV", async ({
    page,
  }) => {
    // The demo's hacking trainer drops the guardrail caps from three quarters of training on (step 22,500): its
    // trained reward is then the raw reward, and every capped rollout disagrees with the ledger.
    const run = new RunPage(page);
    await run.open("grpo-hacking");
    const chart = run.chart("trained-reward");
    await expect(chart.getByRole("heading", { name: "Trained reward vs ledger" })).toBeVisible();
    await expect(chart.locator(".recharts-surface").first()).toBeVisible();
    await expect(chart.getByText("alarm 1%")).toBeVisible();
    await expect(chart.locator(".recharts-legend-wrapper").getByText("trained reward differs")).toBeVisible();
    await expect(chart.locator(".recharts-line")).toHaveCount(2);
    await expect(page.locator('tr[data-alarm="trained_mismatch"]')).toHaveAttribute("data-state", "red");

    // grpo-main's trainer agrees with its ledger: both axes span a small range, and no two ticks read alike
    await run.open("grpo-main");
    await expect(run.chart("trained-reward").locator(".recharts-surface").first()).toBeVisible();
    // recharts draws each axis's tick labels in a layer of their own
    const axes = run.chart("trained-reward").locator(".recharts-yAxis-tick-labels");
    await expect(axes).toHaveCount(2);
    for (const axis of await axes.all()) {
      const ticks = await axis.locator("text").evaluateAll((ts) => ts.map((t) => t.textContent ?? ""));
      expect(ticks.length).toBeGreaterThan(2);
      expect(new Set(ticks).size, ticks.join(" ")).toBe(ticks.length);
    }
    await run.open("grpo-hacking");

    const { download, rows } = await run.downloadCsv("trained-reward");
    expect(download.suggestedFilename()).toBe("grpo-hacking-trained-reward.csv");
    expect(rows[0]).toEqual([
      "step",
      "rollouts with a trained reward",
      "trained reward differs",
      "mean |trained − ledger|",
    ]);
    const points = rows.slice(1).map((r) => r.map(Number));
    expect(points).toHaveLength(40);
    for (const [step, n, share, diff] of points) {
      expect(n).toBe(240);
      if (step < 22_500) expect([share, diff]).toEqual([0, 0]);
    }
    const late = points.filter(([step]) => step >= 22_500);
    expect(late.length).toBe(10);
    for (const [, , share, diff] of late) {
      expect(share).toBeGreaterThan(0.01);
      expect(diff).toBeGreaterThan(0);
    }

    // The normal run's trainer optimizes exactly the ledger's reward: no mismatch, the alarm green.
    await run.open("grpo-main");
    await expect(run.chart("trained-reward").locator(".recharts-surface").first()).toBeVisible();
    await expect(page.locator('tr[data-alarm="trained_mismatch"]')).toHaveAttribute("data-state", "green");
  });
  test.afterAll(async () => restoreThresholds());
});

test.describe("training monitors for a researcher", () => {
  test.use({ role: "researcher" });
  test.describe.configure({ timeout: 90_000 });

  test("sees the charts and thresholds but cannot edit them", async ({ page }) => {
    await page.goto("/runs/grpo-main");
    await expect(page.locator("#chart-hit-rate")).toBeVisible();
    await expect(page.getByRole("form", { name: "Alarm thresholds" })).toHaveCount(0);
    await expect(page.getByText(/Leads and admins can change them/)).toBeVisible();
  });
});
