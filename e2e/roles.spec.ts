// What each demo role sees: the sidebar lists exactly the pages it may open, a page it may not open answers 403,
// and an annotator sees no ledger number anywhere it can go.
import { expect, test, type DemoRole } from "./fixtures/auth.ts";

// The sidebar test opens every page of a role: more than the default 30 s on a loaded machine.
test.describe.configure({ timeout: 120_000 });

const NAV: Record<DemoRole, string[]> = {
  admin: [
    "Queue",
    "Runs",
    "Trajectories",
    "Audit",
    "Agreement",
    "Clusters",
    "Monitors",
    "Rewards",
    "Configs",
    "Activity log",
    "Admin",
  ],
  lead: ["Runs", "Trajectories", "Audit", "Agreement", "Clusters", "Monitors", "Rewards", "Configs", "Activity log"],
  researcher: ["Runs", "Trajectories", "Audit", "Agreement", "Clusters", "Monitors", "Configs"],
  annotator: ["Queue"],
};
const DENIED: Record<DemoRole, string | null> = {
  admin: null,
  lead: "/admin/users",
  researcher: "/admin/activity-log",
  annotator: "/trajectories",
};

for (const role of Object.keys(NAV) as DemoRole[]) {
  test.describe(`as the ${role}`, () => {
    test.use({ role });

    test("the sidebar shows only what the role may open, and the user menu says who is signed in", async ({ page }) => {
      await page.goto("/");
      const nav = page.getByRole("navigation", { name: "Main" });
      await expect(nav.getByRole("link")).toHaveText(NAV[role]);
      await expect(page.getByText(`${role}@verity.local`)).toBeVisible();
      await expect(page.getByRole("button", { name: "Sign out" })).toBeVisible();
      for (const label of NAV[role]) {
        await nav.getByRole("link", { name: label, exact: true }).click();
        await expect(page.getByRole("heading", { level: 1 })).not.toHaveText(/403/);
      }
    });

    if (DENIED[role]) {
      test(`a page outside the role (${DENIED[role]}) answers 403`, async ({ page }) => {
        const res = await page.goto(DENIED[role]!);
        expect(res?.status()).toBe(403);
        await expect(page.getByRole("heading", { level: 1, name: "403 · Not allowed" })).toBeVisible();
        // the sidebar is still there to go somewhere allowed
        await expect(page.getByRole("navigation", { name: "Main" }).getByRole("link").first()).toBeVisible();
      });
    }
  });
}

test.describe("the annotator", () => {
  test.use({ role: "annotator" });

  test("lands on the queue and sees no ledger numbers on any page it can open", async ({ page }) => {
    await page.goto("/");
    await expect(page).toHaveURL(/\/queue$/);
    await expect(page.getByRole("heading", { level: 1, name: "My queue" })).toBeVisible();
    const nav = page.getByRole("navigation", { name: "Main" });
    const hrefs = await nav
      .getByRole("link")
      .evaluateAll((links) => links.map((a) => (a as HTMLAnchorElement).getAttribute("href")!));
    for (const href of hrefs) {
      await page.goto(href);
      const text = await page.locator("main").innerText();
      // Rewards and sub-scores render as 0.000–1.000, rates as percentages: none may appear.
      expect(text, `ledger numbers on ${href}`).not.toMatch(/\b[01]\.\d{3}\b/);
      expect(text, `rates on ${href}`).not.toMatch(/\d%/);
      expect(text.toLowerCase(), `ledger words on ${href}`).not.toMatch(
        /\b(reward|raw reward|guardrail hits|success)\b/,
      );
    }
  });

  test("cannot open a trajectory, the ledger or a run directly", async ({ page }) => {
    for (const path of ["/trajectories", "/runs", "/runs/grpo-demo", "/clusters", "/agreement", "/monitors"]) {
      const res = await page.goto(path);
      expect(res?.status(), path).toBe(403);
      await expect(page.locator("main")).not.toContainText(/\b[01]\.\d{3}\b/);
    }
  });
});
