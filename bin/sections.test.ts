// Every console page streams behind a skeleton: each page.tsx under app/(console) has a loading.tsx in its folder or
// in a folder above it inside the console, and every folder holding a loading.tsx has a layout.tsx beside it (or
// above it, inside the console) that settles the caller's role before the skeleton is sent — a streamed page has
// already answered 200, so a 403 must be decided first.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const CONSOLE = path.resolve(import.meta.dirname, "..", "app", "(console)");

function pages(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return pages(p);
    return e.name === "page.tsx" ? [dir] : [];
  });
}

/** The nearest folder from `dir` up to the console's root holding `file`; null when none does. */
function nearest(dir: string, file: string): string | null {
  for (let d = dir; d.startsWith(CONSOLE); d = path.dirname(d)) if (fs.existsSync(path.join(d, file))) return d;
  return null;
}

describe("the console's sections", () => {
  const dirs = pages(CONSOLE);
  it("finds the console's pages", () => {
    expect(dirs.length).toBeGreaterThan(20);
  });
  it("each page has a loading skeleton", () => {
    const bare = dirs.filter((d) => nearest(d, "loading.tsx") === null).map((d) => path.relative(CONSOLE, d));
    expect(bare, "pages without a loading.tsx in their folder or above").toEqual([]);
  });
  it("each skeleton sits under a layout that checks the role before it is sent", () => {
    const unguarded = dirs
      .map((d) => nearest(d, "loading.tsx"))
      .filter((d): d is string => d !== null)
      .filter((d) => {
        const layout = nearest(d, "layout.tsx");
        if (layout === null || layout === CONSOLE) return true;
        return !/requirePageUser|sectionLayout|subjectLayout/.test(
          fs.readFileSync(path.join(layout, "layout.tsx"), "utf8"),
        );
      })
      .map((d) => path.relative(CONSOLE, d));
    expect([...new Set(unguarded)], "skeletons without a role-checking layout").toEqual([]);
  });
});
