// The layer check on small trees written for each case: a planted upward import, a planted circle of folders (also
// through a dynamic import), the allowlist silencing one import with its reason, a stale or overlong allowlist.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { checkLayers, formatReport, layerOf, MAX_ALLOWED, sourceFiles } from "@/bin/check-layers.ts";

const roots: string[] = [];
afterEach(() => {
  for (const r of roots.splice(0)) fs.rmSync(r, { recursive: true, force: true });
});

/** A repository of the given files (path → source) in a fresh temporary directory. */
function tree(files: Record<string, string>): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "verity-layers-"));
  roots.push(root);
  for (const [file, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    fs.writeFileSync(path.join(root, file), text);
  }
  return root;
}

/** A clean little house: a page, a component, an action, a feature over the store and the database. */
const clean = {
  "app/page.tsx": 'import { Panel } from "@/components/panel.tsx";\nexport default Panel;\n',
  "components/panel.tsx": 'import { save } from "@/lib/actions/review.ts";\nexport const Panel = () => save;\n',
  "lib/actions/review.ts":
    'import { afterReview } from "@/lib/server/after-write.ts";\nexport const save = afterReview;\n',
  "lib/server/after-write.ts": 'import { gate } from "@/lib/gate/refresh.ts";\nexport const afterReview = gate;\n',
  "lib/gate/refresh.ts": 'import { reviews } from "@/lib/review/data.ts";\nexport const gate = reviews;\n',
  "lib/review/data.ts": 'import { rows } from "@/lib/ledger/store/rows.ts";\nexport const reviews = rows;\n',
  "lib/ledger/store/rows.ts": 'import { id } from "./ids.ts";\nexport const rows = id;\n',
  "lib/ledger/store/ids.ts": 'import { db } from "@/lib/db/client.ts";\nexport const id = db;\n',
  "lib/db/client.ts": "export const db = 1;\n",
};

const allowlist = (entries: unknown[]) => ({ "docs/layers-allowlist.json": JSON.stringify(entries) });

describe("the layer check", () => {
  it("passes a tree whose imports all point down, actions and the server composition included", () => {
    const r = checkLayers(tree(clean));
    expect(r.files).toBe(9);
    expect(formatReport(r)).toEqual([]);
  });

  it("fails on a planted upward import: the ledger store reaching a feature", () => {
    const r = checkLayers(
      tree({
        ...clean,
        "lib/ledger/store/rows.ts": 'import { reviews } from "@/lib/review/data.ts";\nexport const rows = reviews;\n',
      }),
    );
    expect(r.violations).toContainEqual({
      kind: "upward",
      from: "lib/ledger/store/rows.ts",
      to: "lib/review/data.ts",
      detail: "core must not import feature",
    });
  });

  it("fails on a feature importing the server composition, and on lib importing components", () => {
    const r = checkLayers(
      tree({
        ...clean,
        "lib/gate/refresh.ts": 'import { afterReview } from "@/lib/server/after-write.ts";\nexport const gate = 1;\n',
        "lib/review/data.ts": 'import { Panel } from "@/components/panel.tsx";\nexport const reviews = Panel;\n',
      }),
    );
    expect(r.violations.map((v) => `${v.kind} ${v.from} -> ${v.to}`).sort()).toEqual([
      "upward lib/gate/refresh.ts -> lib/server/after-write.ts",
      "upward lib/review/data.ts -> components/panel.tsx",
    ]);
  });

  it("reads relative imports too: a data file importing its own folder's actions points up", () => {
    const r = checkLayers(
      tree({
        ...clean,
        "lib/review/data.ts": 'import { save } from "../actions/review.ts";\nexport const reviews = save;\n',
      }),
    );
    expect(r.violations).toContainEqual({
      kind: "upward",
      from: "lib/review/data.ts",
      to: "lib/actions/review.ts",
      detail: "feature must not import actions",
    });
  });

  it("fails on a circle of lib folders, also when a dynamic import() closes it", () => {
    const r = checkLayers(
      tree({
        ...clean,
        "lib/review/data.ts":
          'export async function reviews() {\n  return (await import("@/lib/gate/refresh.ts")).gate;\n}\n',
      }),
    );
    expect(
      r.violations
        .filter((v) => v.kind === "cycle")
        .map((v) => `${v.from} -> ${v.to}`)
        .sort(),
    ).toEqual(["lib/gate/refresh.ts -> lib/review/data.ts", "lib/review/data.ts -> lib/gate/refresh.ts"]);
    expect(r.violations[0].detail).toBe("folders in a circle: lib/gate/ lib/review/");
  });

  it("leaves tests out: a test may import from anywhere", () => {
    const r = checkLayers(
      tree({ ...clean, "lib/db/client.test.ts": 'import { gate } from "@/lib/gate/refresh.ts";\nvoid gate;\n' }),
    );
    expect(formatReport(r)).toEqual([]);
  });

  it("an allowlisted import passes with its reason; an entry no longer needed fails as stale", () => {
    const upward = { from: "lib/ledger/store/rows.ts", to: "lib/review/data.ts", reason: "being moved" };
    const planted = {
      ...clean,
      "lib/ledger/store/rows.ts": 'import { reviews } from "@/lib/review/data.ts";\nexport const rows = reviews;\n',
    };
    expect(formatReport(checkLayers(tree({ ...planted, ...allowlist([upward]) })))).toEqual([]);
    expect(formatReport(checkLayers(tree({ ...clean, ...allowlist([upward]) })))).toEqual([
      "docs/layers-allowlist.json: lib/ledger/store/rows.ts -> lib/review/data.ts is no longer needed: remove it",
    ]);
  });

  it("refuses an allowlist entry without a reason, and a list longer than the cap", () => {
    const entry = { from: "a.ts", to: "b.ts", reason: "" };
    expect(checkLayers(tree({ ...clean, ...allowlist([entry]) })).errors).toEqual([
      "docs/layers-allowlist.json[0]: expected { from, to, reason } with a reason",
    ]);
    const many = Array.from({ length: MAX_ALLOWED + 1 }, (_, i) => ({ from: `x${i}.ts`, to: "y.ts", reason: "r" }));
    expect(checkLayers(tree({ ...clean, ...allowlist(many) })).errors).toEqual([
      `docs/layers-allowlist.json: ${MAX_ALLOWED + 1} entries, at most ${MAX_ALLOWED} (the list may only shrink)`,
    ]);
  });

  it("places each kind of file in its layer", () => {
    expect(
      [
        "proxy.ts",
        "app/(console)/runs/page.tsx",
        "lib/cli/ingest.ts",
        "lib/testing/ingest-db.ts",
        "components/ui/button.tsx",
        "lib/demo/seed.ts",
        "lib/demo/audit-stories.ts",
        "lib/actions/review.ts",
        "lib/actions/pairwise-adjudication.ts",
        "lib/actions/clusters-bulk-fix.ts",
        "lib/server/after-write.ts",
        "lib/review/data.ts",
        "lib/ledger/mutations.ts",
        "lib/ledger/store/write-batch.ts",
        "lib/env.ts",
        "lib/stats/kappa.ts",
      ].map(layerOf),
    ).toEqual([
      "entry",
      "entry",
      "entry",
      "entry",
      "components",
      "seed",
      "seed",
      "actions",
      "actions",
      "actions",
      "server",
      "feature",
      "feature",
      "core",
      "core",
      "core",
    ]);
  });

  it("every server action of the repository is in the actions layer (its file name says so)", () => {
    const root = path.resolve(import.meta.dirname, "..");
    const actions = sourceFiles(root).filter(
      (f) => f.startsWith("lib/") && /^["']use server["']/.test(fs.readFileSync(path.join(root, f), "utf8")),
    );
    expect(actions.length).toBeGreaterThan(10);
    expect(actions.filter((f) => layerOf(f) !== "actions")).toEqual([]);
  });
});
