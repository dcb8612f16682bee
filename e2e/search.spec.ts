import { expect, hydrated, test } from "./fixtures/auth.ts";
import type { Page } from "@playwright/test";

// Search over what the rollouts said and did, on the demo's grpo-demo run (the ten spec examples: ex/05 refunds
// 29.99, ex/02 answers in Chinese 已为您安排退款).
test.use({ role: "researcher" });

const rows = (page: Page) => page.getByTestId("browser-scroll").locator("tbody tr[data-index]");

test("a search with fields, its snippet highlighted, and its matches marked on the rollout page", async ({ page }) => {
  await page.goto("/trajectories?run=grpo-demo");
  const box = page.getByRole("searchbox", { name: /^Search/ });
  await hydrated(page);
  // "/" focuses the box once the streamed form has hydrated (the layout's hydration mark can come first)
  await expect(async () => {
    await page.keyboard.press("/");
    await expect(box).toBeFocused({ timeout: 500 });
  }).toPass();
  await box.fill("reply:refunded tool:finance.issue_refund arg:29.99");
  await box.press("Enter");

  await expect(page).toHaveURL(/q=reply%3Arefunded/);
  await expect(page).toHaveURL(/run=grpo-demo/);
  await expect(page.getByTestId("match-count")).toHaveText("1 matching");
  await expect(rows(page)).toHaveCount(1);
  await expect(rows(page).locator("td:first-child")).toHaveText("ex/05");
  const match = rows(page).locator("[data-snippet]");
  await expect(match.first().locator("mark").first()).toHaveText("refunded");
  await expect(match.locator("mark")).toContainText(["refunded", "finance.issue_refund"]);

  await rows(page).getByRole("link", { name: "ex/05" }).click();
  await expect(page).toHaveURL(/\/trajectories\/ex%2F05\?.*q=/);
  await expect(page.getByTestId("final-reply").locator("mark")).toHaveText(["refunded"]);
  const timeline = page.getByTestId("timeline");
  await expect(timeline.locator("mark", { hasText: "finance.issue_refund" })).toHaveCount(1);
  await expect(timeline.locator('[data-section="input"] mark')).toHaveText(["29.99"]);
});

test("Chinese: two characters find the reply that holds them", async ({ page }) => {
  await page.goto(`/trajectories?run=grpo-demo&q=${encodeURIComponent("退款")}`);
  await expect(page.getByTestId("match-count")).toHaveText("1 matching");
  await expect(rows(page).locator("td:first-child")).toHaveText("ex/02");
  await expect(rows(page).locator("[data-snippet] mark")).toHaveText(["退款"]);
  // every run: the demo's Chinese-speaking customers are answered with the phrase too
  await page.goto(`/trajectories?q=${encodeURIComponent('"已为您安排退款"')}`);
  await expect(rows(page).first().locator("[data-snippet] mark").first()).toHaveText("已为您安排退款");
  await expect(page.getByTestId("match-count")).not.toHaveText(/^(0|1) matching$/);
});

test("the syntax help opens from the search box and closes with Escape", async ({ page }) => {
  await page.goto("/trajectories");
  await page.getByRole("button", { name: "Syntax" }).click();
  const help = page.getByRole("dialog", { name: "Search syntax" });
  await expect(help).toBeVisible();
  await expect(help).toContainText("tool:finance.issue_refund arg:59.99");
  await expect(help).toContainText("退款");
  await page.keyboard.press("Escape");
  await expect(help).toHaveCount(0);
});

test("a search that does not parse is marked at the search box with where it is wrong", async ({ page }) => {
  await page.goto(`/trajectories?run=grpo-demo&q=${encodeURIComponent('refund "has been')}`);
  await expect(page.locator('[data-problem="q"]')).toContainText("this quote is never closed (at character 8)");
  await page.goto(`/trajectories?run=grpo-demo&q=a`);
  await expect(page.locator('[data-problem="q"]')).toContainText('"a" is too short to search for');
});
