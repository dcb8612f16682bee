import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { skeletonOf } from "@/components/ui/skeleton.tsx";

describe("skeletonOf", () => {
  it("draws a section's blocks in order, under the label a screen reader hears", () => {
    const Loading = skeletonOf("Loading the group…", [
      { header: 2 },
      { stats: 4 },
      { grid: "grid gap-4 lg:grid-cols-2", parts: [{ text: 3 }, { chart: true }] },
      { table: [8, 5], className: "mb-4" },
    ]);
    const html = renderToStaticMarkup(createElement(Loading));
    expect(html).toContain('<span class="sr-only">Loading the group…</span>');
    expect(html).toContain('aria-busy="true"');
    expect(html.indexOf("grid gap-4 lg:grid-cols-2")).toBeGreaterThan(html.indexOf("sm:grid-cols-3"));
    // 8 rows and the header row, 5 columns each
    expect(html.match(/repeat\(5, 1fr\)/g)).toHaveLength(9);
    expect(html.match(/h-48 w-full/g)).toHaveLength(1);
    expect(html.match(/h-7 w-24/g)).toHaveLength(2);
  });
});
