// The New batch form as it first shows: previewed and created without touching a field (the optional numbers
// blank or at their defaults), for a ticket batch and for a pairwise one.
import { query, SETUP_TIMEOUT, setupBatch, type Setup } from "./audit-setup.ts";
import { expect, test } from "./fixtures/auth.ts";

test.describe.configure({ timeout: SETUP_TIMEOUT });

// 800 tickets: at the default rate of 1 % the preview draws none with probability 0.99^800 ≈ 0.03 %.
const TICKETS = 800;
let run: Setup;
test.beforeAll(async () => {
  run = await setupBatch(
    "defaults",
    Array.from({ length: TICKETS }, () => "honest" as const),
    { sample: false },
  );
});

test.describe("the lead", () => {
  test.use({ role: "lead" });

  test("previews and creates a ticket batch with every field left as the form shows it", async ({ page }) => {
    await page.goto("/audit/new");
    const form = page.getByRole("form", { name: "Batch parameters" });
    // the newest run (this spec's) is the form's default, with its whole window
    await expect(form.getByLabel("Run")).toHaveValue(run.runId);
    await expect(form.getByLabel("Minimum per stratum")).toHaveValue("");
    await form.getByRole("button", { name: "Preview" }).click();

    await expect(page).toHaveURL(/minPerStratum=&/);
    await expect(page.getByText("Enter a number.")).toHaveCount(0);
    const preview = page.getByTestId("preview");
    await expect(preview).toContainText(`Tickets in window${TICKETS}`);
    const create = page.getByRole("button", { name: /^Create batch \(\d+ items\)$/ });
    const drawn = Number(/\((\d+) items\)/.exec(await create.innerText())![1]);
    expect(drawn).toBeGreaterThan(0);

    await create.click();
    await expect(page).toHaveURL(/\/audit\?created=\d+/);
    const batchId = Number(new URL(page.url()).searchParams.get("created"));
    const [batch] = await query<{ run_id: string; rate: number; min_per_stratum: number | null; items: string }>(
      `select run_id, rate, min_per_stratum, (select count(*)::text from audit_items where batch_id = b.id) as items
         from audit_batches b where id = $1`,
      [batchId],
    );
    expect(batch).toEqual({ run_id: run.runId, rate: 0.01, min_per_stratum: null, items: String(drawn) });
  });

  test("previews a pairwise batch with the defaults untouched", async ({ page }) => {
    await page.goto("/audit/new");
    const form = page.getByRole("form", { name: "Batch parameters" });
    await form.getByLabel("Kind").selectOption("pairwise");
    await form.getByRole("button", { name: "Preview" }).click();
    await expect(page).toHaveURL(/kind=pairwise/);
    await expect(page.getByText("Enter a number.")).toHaveCount(0);
    await expect(page.getByText("Preview (pairwise)")).toBeVisible();
  });
});
