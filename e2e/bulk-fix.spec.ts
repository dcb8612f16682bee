import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect, test } from "./fixtures/auth.ts";
import { handoffRunLines } from "../lib/testing/handoff-run.ts";

// The bulk fix from a cluster, as a lead does it: a run of its own (three tickets whose cases allow a hand-off, two
// rollouts each that hand off and write nothing — the blind spot), so the demo runs the other specs read stay as
// they are. Two of the three tickets are fixed; the blind spot keeps the third one's two rollouts.
const nonce = randomBytes(4).toString("hex");
const RUN = `bulkfix-run-${nonce}`;
const TICKETS = [0, 1, 2].map((i) => `BF-${nonce}-T${i}`);

test.describe.configure({ timeout: 180_000 });

test.beforeAll(async () => {
  const file = path.join(os.tmpdir(), `verity-${RUN}.ndjson`);
  fs.writeFileSync(
    file,
    handoffRunLines(RUN, TICKETS, 2)
      .map((l) => JSON.stringify(l))
      .join("\n") + "\n",
  );
  try {
    const r = spawnSync(
      process.execPath,
      ["--import", "tsx", "bin/verity.ts", "ingest", file, "--no-progress", "--strict"],
      {
        encoding: "utf8",
        env: process.env,
        timeout: 150_000,
      },
    );
    if (r.status !== 0) throw new Error(`verity ingest failed (${r.status}): ${r.stderr}\n${r.stdout}`);
  } finally {
    fs.rmSync(file, { force: true });
  }
});

const blindRollouts = (page: import("@playwright/test").Page) =>
  page.getByTestId("blind-spot").getByText("Rollouts", { exact: true }).locator("xpath=following-sibling::div[1]");

test.describe("bulk fix as a lead", () => {
  test.use({ role: "lead" });

  test("fixes two tickets of the blind spot: dry run with progress and diff, apply, the cluster is smaller", async ({
    page,
  }) => {
    await page.goto(`/clusters?run=${RUN}`);
    await expect(blindRollouts(page)).toHaveText("6");
    await page
      .getByTestId("blind-spot")
      .getByRole("link", { name: /Fix its cases/ })
      .click();
    await expect(page.getByRole("heading", { level: 1 })).toContainText("Bulk fix: hand-off without a write");
    await expect(page.getByTestId("bulk-fix-summary")).toContainText("6 rollouts of 3 tickets");

    // An empty selection is refused by name before anything is scored.
    await page.getByLabel("Only the tickets checked below").check();
    await page.getByRole("button", { name: "Dry run over every affected rollout" }).click();
    await expect(page.getByRole("alert").filter({ hasText: "tickets:" })).toHaveText(
      "tickets: select at least one ticket",
    );

    await page.getByRole("checkbox", { name: new RegExp(TICKETS[0]) }).check();
    await page.getByRole("checkbox", { name: new RegExp(TICKETS[1]) }).check();
    await page.getByRole("button", { name: "Dry run over every affected rollout" }).click();
    await expect(page.getByTestId("bulk-fix-progress")).toContainText("Scored 4 of 4 rollouts: done.");
    const diff = page.getByTestId("bulk-fix-diff");
    await expect(diff).toContainText("Dry run: handoff: not_allowed");
    await expect(
      diff.getByText("Reward changed", { exact: true }).locator("xpath=following-sibling::div[1]"),
    ).toHaveText("4");
    const perTicket = diff.getByRole("table").first();
    await expect(perTicket.getByRole("row")).toHaveCount(3);
    await expect(perTicket).not.toContainText(TICKETS[2]);
    // Outcome 0.45 → 0 on each hand-off: its reward falls by 0.45 × 0.45, from 0.752 to 0.550.
    await expect(perTicket.getByRole("row", { name: `${TICKETS[0]} 2 2 0.752 0.550` })).toBeVisible();

    await page.getByLabel("Reason for the new case versions").fill("these cases must not be handed off");
    await page.getByRole("button", { name: "Apply: save the versions and re-score" }).click();
    await expect(page.getByRole("status").filter({ hasText: "Saved 2 case versions" })).toContainText(
      "re-scored 4 rollouts, 4 with another reward",
    );
    await expect(page.getByTestId("bulk-fix-summary")).toContainText("2 rollouts of 1 tickets");

    await page.getByRole("link", { name: "Back to the cluster" }).first().click();
    await expect(blindRollouts(page)).toHaveText("2");
  });
});

test.describe("bulk fix as a researcher", () => {
  test.use({ role: "researcher" });

  test("is not offered, and the page and its dry run are refused", async ({ page }) => {
    await page.goto(`/clusters?run=${RUN}`);
    await expect(page.getByTestId("blind-spot")).toBeVisible();
    await expect(page.getByRole("link", { name: /Fix its cases/ })).toHaveCount(0);
    const r = await page.goto(`/clusters/fix?run=${RUN}&c=blind_spot:handoff_no_write`);
    expect(r?.status()).toBe(403);
    const api = await page.request.post("/clusters/fix/dry-run", {
      data: { run: RUN, cluster: "blind_spot:handoff_no_write", change: "handoff" },
    });
    expect(api.status()).toBe(403);
  });
});
