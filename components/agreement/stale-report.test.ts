import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { StaleReportNotice } from "@/components/agreement/stale-report.tsx";

// The agreement page's notice that its figures are an earlier report's (lib/agreement/cached.ts
// loadAgreementReportLatest): said with the report's time and a reload link, and not at all for a current report.
describe("StaleReportNotice", () => {
  const html = (asOf: number | null) =>
    renderToStaticMarkup(createElement(StaleReportNotice, { asOf, reloadHref: "/agreement?run=r1&tolerance=0.1" }));

  it("says nothing for the current report", () => {
    expect(html(null)).toBe("");
  });

  it("says how old the figures are, in UTC, and links to the same filters", () => {
    const out = html(Date.parse("2026-12-04T21:05:09.500Z"));
    expect(out).toContain('role="status"');
    expect(out).toContain('<time dateTime="2026-12-04T21:05:09.500Z"');
    expect(out).toContain(">2026-12-04 21:05:09 UTC</time>");
    expect(out).toContain("being added to a new report");
    expect(out).toContain('href="/agreement?run=r1&amp;tolerance=0.1"');
  });
});
