import fs from "node:fs";
import type { Page } from "@playwright/test";
import { expect, hydrated, test } from "./fixtures/auth.ts";

// The human-corrected curve on the run page (small demo): grpo-hacking is audited per 3,000-step window, and late in
// the run its annotators fail many of the ledger's successes, so the corrected band sits below the ledger's line;
// grpo-main's audit (about 60 rollouts over the run, 500-step windows) is too thin to correct anything.
const SLOW = { timeout: 20_000 };

class CorrectedCard {
  constructor(readonly page: Page) {}
  card = () => this.page.locator("#chart-corrected");
  async open(run: string) {
    await this.page.goto(`/runs/${run}`);
    await expect(this.page.getByRole("heading", { level: 1, name: `Run ${run}` })).toBeVisible(SLOW);
    await hydrated(this.page);
    await this.card().scrollIntoViewIfNeeded();
  }
  /** Clicks the card's CSV link and returns the file name and its rows, as objects keyed by the header. */
  async downloadCsv(): Promise<{ name: string; rows: Record<string, string>[] }> {
    const [download] = await Promise.all([
      this.page.waitForEvent("download"),
      this.card().getByRole("link", { name: /CSV/ }).click(),
    ]);
    const [head, ...lines] = fs
      .readFileSync((await download.path())!, "utf8")
      .trimEnd()
      .split("\r\n");
    const keys = head.split(",");
    return {
      name: download.suggestedFilename(),
      rows: lines.map((l) => Object.fromEntries(l.split(",").map((v, i) => [keys[i], v]))),
    };
  }
}

test.describe("the human-corrected reward curve", () => {
  test.use({ role: "lead" });
  test.describe.configure({ timeout: 90_000 });

  test("grpo-hacking shows the corrected band below the ledger's success late in the run, and its CSV", async ({
    page,
  }) => {
    const c = new CorrectedCard(page);
    await c.open("grpo-hacking");
    await expect(c.card().getByRole("heading", { name: "Human-corrected success and reward" })).toBeVisible();
    const success = c.card().locator('[data-chart="corrected-success"]');
    await expect(success.locator(".recharts-area")).toHaveCount(1, SLOW); // the 95% band
    await expect(success.locator(".recharts-line")).toHaveCount(2); // ledger and corrected
    const legend = success.locator(".recharts-legend-wrapper");
    await expect(legend.getByText("ledger success", { exact: true })).toBeVisible();
    await expect(legend.getByText("corrected success (audit)")).toBeVisible();
    await expect(c.card().locator('[data-chart="corrected-reward"] .recharts-area')).toHaveCount(1);

    const { name, rows } = await c.downloadCsv();
    expect(name).toBe("grpo-hacking-corrected.csv");
    expect(rows.map((r) => Number(r.step))).toEqual(Array.from({ length: 10 }, (_, i) => i * 3000));
    expect(rows.every((r) => Number(r.step_to) === Number(r.step) + 2999)).toBe(true);
    // late in the run the band's upper bound is below the ledger's success rate
    for (const r of rows.slice(-3))
      expect(Number(r["corrected success 95% high"])).toBeLessThan(Number(r["ledger success (reward ≥ 0.9)"]));
    for (const r of rows) {
      const lo = Number(r["corrected success 95% low"]);
      const hi = Number(r["corrected success 95% high"]);
      expect(lo).toBeLessThanOrEqual(hi);
      expect(Number(r["audited rollouts"])).toBeGreaterThan(20);
    }
  });

  test("a run whose audit is too thin says so instead of drawing a corrected line", async ({ page }) => {
    const c = new CorrectedCard(page);
    await c.open("grpo-main");
    const thin = c.card().getByTestId("corrected-thin");
    await expect(thin).toBeVisible(SLOW);
    await expect(thin).toContainText("The audit is too thin to correct the ledger of this run");
    await expect(thin).toContainText(/fewer than (20|10|3)/);
    await expect(c.card().locator('[data-chart="corrected-success"]')).toHaveCount(0);
    // the CSV still has the ledger's side, with the corrected cells empty
    const { rows } = await c.downloadCsv();
    expect(rows.length).toBeGreaterThan(10);
    expect(rows.every((r) => r["corrected success"] === "" && r["ledger success (reward ≥ 0.9)"] !== "")).toBe(true);
  });
});
