// The repository stands on its own: a user's clone has nothing beside it, so no tracked file may read, import or link
// to a path outside the repository. Every relative path written in a tracked file (a string literal, an import, a
// Markdown link) is resolved against the file's folder and must stay inside the root; absolute paths into home or
// workspace folders, and any mention of a sibling checkout's material, are refused outright.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "..");
const SELF = path.relative(ROOT, import.meta.filename);

/** Tracked files (git), or every file outside the ignored folders when the tree is not a git checkout. */
function trackedFiles(): string[] {
  try {
    return execFileSync("git", ["ls-files", "-z"], { cwd: ROOT, encoding: "utf8" }).split("\0").filter(Boolean);
  } catch {
    const skip = new Set(["node_modules", ".next", ".data", ".git", "lib/generated", "test-results"]);
    const out: string[] = [];
    const walk = (dir: string) => {
      for (const e of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
        const rel = dir ? `${dir}/${e.name}` : e.name;
        if (skip.has(rel)) continue;
        if (e.isDirectory()) walk(rel);
        else out.push(rel);
      }
    };
    walk("");
    return out;
  }
}

const TEXT = /\.(ts|tsx|js|mjs|cjs|json|md|sql|prisma|py|toml|css|sh|yml|yaml|txt)$|(^|\/)(\.ci\/run|\.gitignore)$/;

// A relative path that climbs: inside quotes, backticks or a Markdown link target.
const CLIMBING = /(?:["'`(])((?:\.\.\/)+[^"'`)\s]*)/g;
// Paths that are never part of a clone, however they are written.
const FORBIDDEN = [
  { re: /(^|[^\w.-])\.\.\/shared\b/, why: "a sibling shared/ folder" },
  { re: /\bshared\/(spec|data)\//, why: "the reference material's folders" },
  { re: /["'`(](\/work\/|\/home\/|\/root\/|\/Users\/)/, why: "an absolute path into a home or work folder" },
];

export type Violation = { file: string; line: number; text: string; why: string };

/** The machine's setup scripts beside a CI checkout: the sibling folder's `ci/<name>.sh` (e.g. the Citus build). */
const SETUP_SCRIPT = new RegExp(String.raw`\.\./${"shared"}/ci/[\w-]+\.sh\b`);

/**
 * CI's entry point may call the machine's setup scripts beside the checkout (SETUP_SCRIPT), guarded by their
 * existence, as it installs Chromium: machine setup, not something the product reads.
 */
export function machineSetup(v: Violation): boolean {
  return v.file === ".ci/run" && v.why === "a sibling shared/ folder" && SETUP_SCRIPT.test(v.text);
}

/** Every way `content` (of the tracked file `file`) points outside the repository. */
export function outsideReferences(file: string, content: string): Violation[] {
  const found: Violation[] = [];
  const dir = path.dirname(path.join(ROOT, file));
  content.split("\n").forEach((text, i) => {
    for (const { re, why } of FORBIDDEN) if (re.test(text)) found.push({ file, line: i + 1, text: text.trim(), why });
    for (const m of text.matchAll(CLIMBING)) {
      const target = path.resolve(dir, m[1]);
      if (path.relative(ROOT, target).startsWith("..")) {
        found.push({ file, line: i + 1, text: text.trim(), why: `${m[1]} resolves outside the repository` });
      }
    }
  });
  return found;
}

describe("the repository stands on its own", () => {
  it("no tracked file reads, imports or links to a path outside the repository", () => {
    const files = trackedFiles().filter(
      (f) => TEXT.test(f) && f !== SELF && f !== "package-lock.json" && fs.existsSync(path.join(ROOT, f)),
    );
    expect(files.length).toBeGreaterThan(100);
    const violations = files
      .flatMap((f) => outsideReferences(f, fs.readFileSync(path.join(ROOT, f), "utf8")))
      .filter((v) => !machineSetup(v));
    expect(violations.map((v) => `${v.file}:${v.line}: ${v.why}: ${v.text.slice(0, 160)}`)).toEqual([]);
  });

  it("lets only CI's entry point call the machine's setup scripts beside the checkout", () => {
    const sibling = "shared";
    const at = (file: string, text: string) => outsideReferences(file, text).map(machineSetup);
    expect(at(".ci/run", `bash ../${sibling}/ci/provision-citus.sh`)).toEqual([true]);
    expect(at(".ci/run", `cat ../${sibling}/spec/domain.md`)).toEqual([false, false]);
    expect(at("bin/test.ts", `bash ../${sibling}/ci/provision-citus.sh`)).toEqual([false]);
  });

  it("catches each way of pointing outside", () => {
    // Spelled in pieces, so this file itself names no outside folder.
    const up = (n: number) => "../".repeat(n);
    const sibling = "shared";
    const hits = (file: string, text: string) => outsideReferences(file, text).map((v) => v.why);
    expect(
      hits("lib/claims/x.test.ts", `path.resolve(import.meta.dirname, "${up(3)}${sibling}/spec/examples")`),
    ).toEqual([
      "a sibling shared/ folder",
      "the reference material's folders",
      `${up(3)}${sibling}/spec/examples resolves outside the repository`,
    ]);
    expect(hits("lib/cli/x.ts", `path.resolve(ROOT, "${up(1)}${sibling}/x")`)).toEqual(["a sibling shared/ folder"]);
    expect(hits("docs/x.md", "see [the spec](../../other/spec.md)")).toEqual([
      "../../other/spec.md resolves outside the repository",
    ]);
    expect(hits("lib/a/b.ts", 'import x from "../../../outside.ts";')).toEqual([
      "../../../outside.ts resolves outside the repository",
    ]);
    expect(hits("docs/x.md", `formats: \`${sibling}/spec/formats.md\``)).toEqual(["the reference material's folders"]);
    expect(hits("bench/x.ts", 'const dir = "/work/main/data";')).toEqual([
      "an absolute path into a home or work folder",
    ]);
    // Inside the repository, and system paths the product uses on purpose, are fine.
    expect(hits("app/(console)/runs/[run]/page.tsx", 'import x from "../../../../lib/x.ts";')).toEqual([]);
    expect(hits("docs/x.md", "[benchmarks](../docs/benchmarks.md), /usr/bin/chromium, /tmp/x")).toEqual([]);
  });
});

describe("test support stays apart from the product", () => {
  it("no product file (app, components, lib, bin, proxy) imports lib/testing", () => {
    const product = trackedFiles().filter(
      (f) =>
        /^(app|components|lib|bin)\/.*\.tsx?$|^proxy\.ts$/.test(f) &&
        !/\.test\.tsx?$/.test(f) &&
        !f.startsWith("lib/testing/") &&
        // The test runner is test support: it starts the console and the Citus cluster the tests use.
        f !== "bin/test.ts" &&
        fs.existsSync(path.join(ROOT, f)),
    );
    expect(product.length).toBeGreaterThan(100);
    const offenders = product.filter((f) =>
      /from\s+["']@\/lib\/testing\/|import\(["']@\/lib\/testing\//.test(fs.readFileSync(path.join(ROOT, f), "utf8")),
    );
    expect(offenders).toEqual([]);
  });
});
