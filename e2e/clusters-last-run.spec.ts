import type { Page } from "@playwright/test";
import { LAST_RUN_COOKIE } from "@/lib/runs/location.ts";
import { expect, hydrated, test } from "./fixtures/auth.ts";

// The clusters page opened without a run (typed, bookmarked, or from a page that names none) opens on the run the
// user last looked at, not on whichever run is newest; a run in its address still wins.
test.describe("the clusters page without a run", () => {
  test.use({ role: "researcher" });
  test.describe.configure({ timeout: 90_000 });

  const summary = (page: Page) => page.getByTestId("window-summary");
  // The page shown remembers its run from the browser once it is up (components/layout/remember-run.tsx).
  const remembered = (page: Page, run: string) =>
    expect
      .poll(async () => (await page.context().cookies()).find((c) => c.name === LAST_RUN_COOKIE)?.value)
      .toBe(encodeURIComponent(run));

  test("opens on the run last looked at, from its run page or another page's run filter", async ({ page }) => {
    await page.goto("/runs/grpo-hacking");
    await expect(page.getByRole("heading", { level: 1, name: "Run grpo-hacking" })).toBeVisible();
    await remembered(page, "grpo-hacking");
    await page.goto("/clusters");
    await expect(summary(page)).toContainText("Run grpo-hacking,");

    await page.goto("/trajectories?run=grpo-main");
    await expect(page.getByTestId("match-count")).toBeVisible();
    await remembered(page, "grpo-main");
    // The monitors page links every run; the router prefetches those links, and a prefetch is not a look.
    await page.goto("/monitors");
    await hydrated(page);
    await page.goto("/clusters");
    await expect(summary(page)).toContainText("Run grpo-main,");

    // the address's run wins, and is the one remembered next
    await page.goto("/clusters?run=grpo-hacking");
    await expect(summary(page)).toContainText("Run grpo-hacking,");
    await remembered(page, "grpo-hacking");
    await page.goto("/clusters");
    await expect(summary(page)).toContainText("Run grpo-hacking,");
  });

  test("a run opened by a link inside the console (no page load) is remembered too", async ({ page }) => {
    await page.goto("/clusters?run=grpo-main");
    await remembered(page, "grpo-main");
    await page.goto("/runs");
    await hydrated(page);
    await page.getByRole("link", { name: "grpo-hacking", exact: true }).first().click();
    await expect(page.getByRole("heading", { level: 1, name: "Run grpo-hacking" })).toBeVisible();
    await remembered(page, "grpo-hacking");
    await page.goto("/clusters");
    await expect(summary(page)).toContainText("Run grpo-hacking,");
  });

  test("a run that no longer exists is passed over for the newest run with rollouts", async ({ page, context }) => {
    const { hostname } = new URL(test.info().project.use.baseURL!);
    await context.addCookies([{ name: LAST_RUN_COOKIE, value: "no-such-run", domain: hostname, path: "/" }]);
    await page.goto("/clusters");
    await expect(summary(page)).toContainText(/^Run [^,]+,/);
    await expect(page.getByText(/there is no run/)).toHaveCount(0);
  });
});
