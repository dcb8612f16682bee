import fs from "node:fs";
import path from "node:path";
import type { APIRequestContext } from "@playwright/test";
import { expect, SIGNED_OUT, test } from "./fixtures/auth.ts";
import { loadSamples } from "./fixtures/samples.ts";

// Server actions called as a hostile client would: with JSON arguments instead of their form, from a page that is
// not theirs and signed out, with an id past int8, with a misspelled key, with a body past the old 1 MB limit. Each
// answers a refusal, never a 500 or an error thrown inside the action (serialized as `E{"digest"…}` in the answer).
// The actions are read from the build's manifest, so a new action is called too.

type ActionRef = { id: string; name: string; pages: string[] };

function actions(): ActionRef[] {
  const file = path.join(process.cwd(), ".next", "server", "server-reference-manifest.json");
  const manifest = JSON.parse(fs.readFileSync(file, "utf8")) as {
    node: Record<string, { workers: Record<string, unknown>; exportedName: string }>;
  };
  return Object.entries(manifest.node).map(([id, v]) => ({
    id,
    name: v.exportedName,
    pages: Object.keys(v.workers).map(
      (w) =>
        "/" +
        w
          .replace(/^app\//, "")
          .replace(/\(.*?\)\//g, "")
          .replace(/\/?page$/, "")
          .replace(/\[.*?\]/g, "x"),
    ),
  }));
}

/** Calls an action as Next's client does (a fetch action), with `args` as its JSON arguments. */
async function callAction(req: APIRequestContext, page: string, id: string, args: unknown[]) {
  const res = await req.post(page, {
    headers: { "next-action": id, "content-type": "text/plain;charset=UTF-8", accept: "text/x-component" },
    data: JSON.stringify(args),
    maxRedirects: 0,
  });
  return { status: res.status(), text: await res.text() };
}

const THREW = /E\{"digest"/;

test.describe("server actions with hostile arguments", () => {
  test.describe.configure({ timeout: 120_000 });

  test.describe("signed in as the admin", () => {
    test.use({ role: "admin" });

    test("every action called with JSON instead of its form refuses, without a 500", async ({ request }) => {
      const found = actions();
      expect(found.map((a) => a.name)).toContain("applyDraftAction");
      const bad: string[] = [];
      // signOut takes no arguments and would end the session the other calls are made in
      for (const a of found.filter((x) => x.name !== "signOut")) {
        for (const args of [[{}, { spec: "{}" }], ["x"], []]) {
          const r = await callAction(request, a.pages[0] || "/", a.id, args);
          if (r.status >= 500 || THREW.test(r.text)) bad.push(`${a.name} ${JSON.stringify(args)}: ${r.status}`);
        }
      }
      expect(bad).toEqual([]);
    });

    test("the bulk-fix dry run refuses a misspelled key by name", async ({ request }) => {
      const res = await request.post("/clusters/fix/dry-run", {
        data: { run: "grpo-main", cluster: "blind_spot:handoff_no_write", change: "handoff", ticket: ["T-1"] },
      });
      expect(res.status()).toBe(400);
      expect((await res.json()).error.message).toContain('unknown parameter "ticket"');
    });

    test("a workbench form past the old 1 MB body limit is answered, not a 500", async ({ request }) => {
      const { ticket } = await loadSamples();
      const apply = actions().find((a) => a.name === "applyDraftAction")!;
      const res = await request.post(`/cases/${encodeURIComponent(ticket)}`, {
        multipart: {
          [`$ACTION_ID_${apply.id}`]: "",
          ticketId: ticket,
          spec: "x".repeat(1_500_000),
          reason: "too long",
        },
        maxRedirects: 0,
      });
      expect(res.status()).toBeLessThan(500);
    });

    test("the workbench states the spec's limit and refuses a longer draft before sending it", async ({ page }) => {
      const { ticket } = await loadSamples();
      await page.goto(`/cases/${encodeURIComponent(ticket)}`);
      await expect(page.getByText("(at most 1,000,000 characters)")).toBeVisible();
      const editor = page.getByLabel("verifier_spec");
      await editor.evaluate((el: HTMLTextAreaElement, n) => {
        // React's onChange reads the value through the native setter and an input event
        const set = Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, "value")!.set!;
        set.call(el, `{"x": "${"y".repeat(n)}"}`);
        el.dispatchEvent(new Event("input", { bubbles: true }));
      }, 1_000_001);
      await expect(page.getByText(/at most 1,000,000 characters \(this draft has 1,000,0\d\d\)/)).toBeVisible();
    });
  });

  test.describe("signed in as an annotator", () => {
    test.use({ role: "annotator" });

    test("a pair judgement for an item id past int8 is refused as a missing item", async ({ request }) => {
      const submit = actions().find((a) => a.name === "submitPairAction")!;
      const r = await callAction(request, "/pairwise", submit.id, [
        { itemId: "9223372036854775808", body: { choice: "left" }, secondsSpent: 1 },
      ]);
      expect(r.status).toBe(200);
      expect(r.text).not.toMatch(THREW);
      expect(r.text).toContain("Missing item.");
    });
  });

  test("signed out, every action posted to a page that is not its own answers without a 500", async ({ browser }) => {
    const ctx = await browser.newContext(SIGNED_OUT);
    const bad: string[] = [];
    try {
      for (const a of actions()) {
        const other = a.pages.includes("/runs") ? "/sign-in" : "/runs";
        const r = await callAction(ctx.request, other, a.id, []);
        if (r.status >= 500 || THREW.test(r.text)) bad.push(`${a.name} on ${other}: ${r.status}`);
      }
    } finally {
      await ctx.close();
    }
    expect(bad).toEqual([]);
  });
});
