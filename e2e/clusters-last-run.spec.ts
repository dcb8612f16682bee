import { expect, test } from "./fixtures/auth.ts";

// The clusters page opened without a run (typed, bookmarked, or from a page that names none) opens on the run the
// user last looked at, not on whichever run is newest; a run in its address still wins.
test.describe("the clusters page without a run", () => {
  test.use({ role: "researcher" });
  test.describe.configure({ timeout: 90_000 });

  const summary = (page: import("@playwright/test").Page) => page.getByTestId("window-summary");

  test("opens on the run last looked at, from its run page or another page's run filter", async ({ page }) => {
    await page.goto("/runs/grpo-hacking");
    await expect(page.getByRole("heading", { level: 1, name: "Run grpo-hacking" })).toBeVisible();
    await page.goto("/clusters");
    await expect(summary(page)).toContainText("Run grpo-hacking,");

    await page.goto("/trajectories?run=grpo-main");
    await expect(page.getByTestId("match-count")).toBeVisible();
    await page.goto("/monitors");
    await page.goto("/clusters");
    await expect(summary(page)).toContainText("Run grpo-main,");

    // the address's run wins, and is the one remembered next
    await page.goto("/clusters?run=grpo-hacking");
    await expect(summary(page)).toContainText("Run grpo-hacking,");
    await page.goto("/clusters");
    await expect(summary(page)).toContainText("Run grpo-hacking,");
  });

  test("a run that no longer exists is passed over for the newest run with rollouts", async ({ page, context }) => {
    const { hostname } = new URL(test.info().project.use.baseURL!);
    await context.addCookies([{ name: "verity-run", value: "no-such-run", domain: hostname, path: "/" }]);
    await page.goto("/clusters");
    await expect(summary(page)).toContainText(/^Run [^,]+,/);
    await expect(page.getByText(/there is no run/)).toHaveCount(0);
  });
});
