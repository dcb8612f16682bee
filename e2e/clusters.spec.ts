import { randomBytes } from "node:crypto";
import fs from "node:fs";
import type { Page } from "@playwright/test";
import { expect, hydrated, test } from "./fixtures/auth.ts";
import { createApiTokens } from "./fixtures/samples.ts";
import { readParquetFile } from "../lib/testing/parquet-reader.ts";

// The clusters page over the demo data (run grpo-main: 60 tickets × 40 steps × K=4, a GRPO run that learns; and
// grpo-hacking, whose hand-offs creep up). A lead drills into the empty-promise cluster down to a category, opens
// its rollouts in the trajectory browser, triages it and exports it as a data backlog.

const count = (text: string) => Number(text.replace(/[^\d]/g, ""));

class ClustersPage {
  constructor(readonly page: Page) {}
  readonly ranked = () => this.page.getByRole("table", { name: "Clusters by priority" });
  readonly detail = () => this.page.getByTestId("cluster-detail");
  readonly blindSpot = () => this.page.getByTestId("blind-spot");
  readonly triage = () => this.detail().getByRole("form", { name: "Cluster triage" });

  async goto(query: string) {
    await this.page.goto(`/clusters?${query}`);
    await expect(this.page.getByRole("heading", { level: 1, name: "Clusters" })).toBeVisible();
  }
}

// Each journey renders the clusters page several times; on a shared two-core test machine one render can take
// seconds, so these journeys get more than the default 30 s.
test.describe.configure({ timeout: 120_000 });

test.describe("clusters as a lead", () => {
  test.use({ role: "lead" });

  test("drill into a cluster, open its rollouts, set its status and export it", async ({ page }) => {
    // The longest journey: a dozen server renders of the page, the browser and the export.
    test.setTimeout(180_000);
    const c = new ClustersPage(page);
    await c.goto("run=grpo-main");
    await expect(page.getByTestId("window-summary")).toContainText("Run grpo-main");

    // Level 1 → level 2 (a reason signature) → level 3 (a ticket category), and back up through the breadcrumbs.
    await c.ranked().getByRole("link", { name: "empty_promise", exact: true }).click();
    await expect(page).toHaveURL(/[?&]c=empty_promise(&|$)/);
    const size = count(await c.detail().getByTestId("cluster-size").innerText());
    expect(size).toBeGreaterThan(0);
    await c.detail().getByRole("table", { name: "Reason signatures" }).getByRole("link").first().click();
    await expect(page).toHaveURL(/c=empty_promise%7C[a-z_]+/);
    await expect(c.detail().getByRole("navigation", { name: "Drill-down" })).toContainText("empty_promise");
    const level3 = c
      .detail()
      .getByRole("heading", { name: "Ticket categories (level 3)" })
      .locator("..")
      .getByRole("link")
      .first();
    const category = await level3.innerText();
    await level3.click();
    await expect(page).toHaveURL(/c=empty_promise%7C[^&]+%7C/);
    await expect(c.detail().getByRole("navigation", { name: "Drill-down" })).toContainText(category);
    await c
      .detail()
      .getByRole("navigation", { name: "Drill-down" })
      .getByRole("link", { name: "empty_promise", exact: true })
      .click();
    await expect(page).toHaveURL(/[?&]c=empty_promise(&|$)/);
    await expect(c.detail().getByTestId("phrasings")).toBeVisible();

    // Its rollouts in the trajectory browser: the same members, counted there by the browser's own query.
    await c
      .detail()
      .getByRole("link", { name: /Open its rollouts in the trajectory browser/ })
      .click();
    await expect(page).toHaveURL(/\/trajectories\?run=grpo-main&reward_below=0\.5&deciding=empty_promise/);
    await expect(page.getByTestId("match-count")).toContainText("matching");
    expect(count(await page.getByTestId("match-count").innerText())).toBe(size);
    await page.goBack();

    // Triage: data requested, pinned, with a note; it survives a reload and moves the cluster to the top.
    await c.triage().getByLabel("Status").selectOption("data_requested");
    await c.triage().getByLabel("Pin to the top").check();
    await c.triage().getByLabel("Note").fill("Build 200 refund cases where the reply claims a refund.");
    await c.triage().getByRole("button", { name: "Save" }).click();
    await expect(c.triage().getByRole("status")).toHaveText("Saved.");
    await page.reload();
    await expect(c.triage().getByLabel("Status")).toHaveValue("data_requested");
    await expect(c.triage().getByLabel("Note")).toHaveValue("Build 200 refund cases where the reply claims a refund.");
    const first = c.ranked().locator("tbody tr").first();
    await expect(first).toHaveAttribute("data-cluster", "empty_promise");
    await expect(first).toContainText("data requested");
    await expect(first.getByLabel("pinned")).toBeVisible();

    // Export: the backlog file holds the cluster, its signatures, its tickets with their cases, and examples.
    const [download] = await Promise.all([
      page.waitForEvent("download"),
      c.detail().getByRole("link", { name: "Export as data backlog (NDJSON)" }).click(),
    ]);
    expect(download.suggestedFilename()).toMatch(/^verity-cluster-grpo-main-empty_promise\.ndjson$/);
    const lines = fs
      .readFileSync((await download.path())!, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines[0]).toMatchObject({ kind: "cluster", run_id: "grpo-main", key: "empty_promise", size });
    const kinds = new Set(lines.map((l) => l.kind));
    expect([...kinds].sort()).toEqual(["case", "cluster", "example", "signature", "ticket"]);
    expect(lines.filter((l) => l.kind === "case").every((l) => l.ticket && l.verifier_spec)).toBe(true);

    // Leave the demo as it was for the other specs.
    await c.triage().getByLabel("Status").selectOption("open");
    await c.triage().getByLabel("Pin to the top").uncheck();
    await c.triage().getByLabel("Note").fill("");
    await c.triage().getByRole("button", { name: "Save" }).click();
    await expect(c.triage().getByRole("status")).toHaveText("Saved.");
  });

  test("download a cluster's rollouts as Parquet, one row per member, readable by DuckDB", async ({ page }) => {
    const c = new ClustersPage(page);
    await c.goto("run=grpo-main&c=empty_promise");
    const size = count(await c.detail().getByTestId("cluster-size").innerText());
    const [download] = await Promise.all([
      page.waitForEvent("download"),
      c.detail().getByRole("link", { name: "Export its rollouts as Parquet" }).click(),
    ]);
    expect(download.suggestedFilename()).toBe("verity-cluster-grpo-main-empty_promise.parquet");
    const view = await readParquetFile((await download.path())!);
    expect(view.rows.length).toBe(size);
    expect(view.rows.every((r) => r.run_id === "grpo-main" && r.deciding_guardrail === "empty_promise")).toBe(true);
    expect(view.rows.every((r) => (r.reward as number) < 0.5)).toBe(true);
    expect(view.rows.every((r) => (r.guardrail_codes as string[]).includes("empty_promise"))).toBe(true);
    expect(view.types.guardrail_codes).toBe("VARCHAR[]");
    expect(JSON.parse(view.metadata["verity.export"])).toMatchObject({
      kind: "cluster",
      run_id: "grpo-main",
      key: "empty_promise",
      threshold: 0.5,
    });
  });

  test("the blind spot grows late in the reward-hacking run, as one repeated reply per language", async ({ page }) => {
    const c = new ClustersPage(page);
    await c.goto("run=grpo-hacking");
    const card = c.blindSpot();
    await expect(card).toContainText("Blind spot: hand-off without a write, no guardrail");
    const [early, late] = (await card.getByTitle(/first third of the window/).innerText())
      .split("→")
      .map((s) => Number(s.replace("%", "")));
    expect(late).toBeGreaterThan(early);
    // one repeated reply per language: every fifth demo customer writes Chinese and is answered in Chinese
    const phrasings = card.getByTestId("phrasings").locator("li");
    await expect(phrasings).toHaveCount(2);
    await expect(phrasings.first()).toContainText(/\b(6\d|7\d|8\d)%/);
    await expect(phrasings.nth(1)).toContainText(/[\u4e00-\u9fff]/);
    await card.getByRole("link", { name: /Open its rollouts in the trajectory browser/ }).click();
    await expect(page).toHaveURL(
      /\/trajectories\?run=grpo-hacking&handoff=credited&none=[a-z_]+(%2C[a-z_]+){10}&sandbox_write=no/,
    );
  });

  test("a treemap view drills down on click", async ({ page }) => {
    const c = new ClustersPage(page);
    await c.goto("run=grpo-main&view=treemap");
    const map = page.locator('[data-chart="cluster-treemap"]');
    await expect(map.locator("rect").first()).toBeVisible();
    await map.locator("rect").first().click();
    await expect(page).toHaveURL(/[?&]c=[a-z_:]+/);
    await expect(c.detail()).toBeVisible();
  });
});

test.describe("clusters as a researcher", () => {
  test.use({ role: "researcher" });

  test("reads the triage but cannot change it", async ({ page }) => {
    await page.goto("/clusters?run=grpo-main&c=empty_promise");
    const detail = page.getByTestId("cluster-detail");
    await expect(detail.getByTestId("cluster-state")).toContainText("open");
    await expect(detail.getByRole("form", { name: "Cluster triage" })).toHaveCount(0);
    await expect(detail.getByRole("link", { name: "Export as data backlog (NDJSON)" })).toBeVisible();
  });
});

test.describe("clusters of the run the user came from", () => {
  test.use({ role: "researcher" });

  test("the Clusters link of a run's page, and the run page's own link, open that run's clusters", async ({ page }) => {
    await page.goto("/runs/grpo-hacking");
    await expect(page.getByRole("heading", { level: 1, name: "Run grpo-hacking" })).toBeVisible();
    await hydrated(page);
    const nav = page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Clusters" });
    await expect(nav).toHaveAttribute("href", "/clusters?run=grpo-hacking");
    await nav.click();
    await expect(page.getByTestId("window-summary")).toContainText("Run grpo-hacking");
    // the counts say what they are of
    await expect(page.getByTestId("window-summary")).toContainText("of these low-scoring rollouts only");

    await page.goto("/runs/grpo-main");
    await page.getByRole("link", { name: "Its low-score clusters →" }).click();
    await expect(page.getByTestId("window-summary")).toContainText("Run grpo-main");
  });

  test("a run scored outside Verity forms no 'weakest unknown' cluster and has no blind-spot card", async ({
    page,
  }) => {
    const run = `external-${randomBytes(4).toString("hex")}`;
    const { ingest } = await createApiTokens();
    const lines = Array.from({ length: 12 }, (_, i) =>
      JSON.stringify({
        source: "external",
        trajectory_id: `${run}/s${i % 3}/l${i}`,
        run_id: run,
        step: i % 3,
        ticket_id: `${run}-T${i % 4}`,
        reward: i % 2 ? 0.2 : 1,
      }),
    );
    const res = await page.request.post("/api/v1/ingest", {
      headers: { authorization: `Bearer ${ingest}`, "content-type": "application/x-ndjson" },
      data: lines.join("\n") + "\n",
    });
    expect(res.status()).toBe(200);
    const c = new ClustersPage(page);
    await c.goto(`run=${run}`);
    await expect(page.getByTestId("unscored")).toHaveText(
      "No verifier detail: the 6 low-scoring rollouts of this window were scored outside Verity (no guardrails, no sub-scores), so nothing is clustered.",
    );
    await expect(c.ranked()).toHaveCount(0);
    await expect(page.getByText("weakest unknown")).toHaveCount(0);
    await expect(c.blindSpot()).toHaveCount(0);
  });
});
