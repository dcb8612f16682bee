import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { activityTargetHref } from "@/components/admin/activity-target.tsx";
import { gateRuleHref } from "@/components/gate/gate-card.tsx";
import {
  BatchLink,
  TicketLink,
  TrajectoryLink,
  batchAgreementHref,
  caseHref,
  stepHref,
  stepsHref,
  trajectoryHref,
} from "@/components/ui/id-links.tsx";
import { browseParamsSchema } from "@/lib/ledger/browse-schema.ts";

const html = (el: ReturnType<typeof createElement>) => renderToStaticMarkup(el);
const browserParams = (href: string) =>
  browseParamsSchema.parse(Object.fromEntries(new URL(href, "http://x").searchParams));

describe("id links", () => {
  it("addresses ids with any characters", () => {
    expect(trajectoryHref("run a/t#1?x")).toBe("/trajectories/run%20a%2Ft%231%3Fx");
    expect(caseHref("T-1/2")).toBe("/cases/T-1%2F2");
    expect(caseHref("T-1", 42n)).toBe("/cases/T-1?rollout=42");
  });

  it("sends a step, a bucket of steps and a window to the browser as filters it parses", () => {
    expect(browserParams(stepHref("grpo main", 750))).toMatchObject({ run: "grpo main", step_from: 750, step_to: 750 });
    expect(browserParams(stepHref("r", 1000, 250))).toMatchObject({ step_from: 1000, step_to: 1249 });
    expect(browserParams(stepsHref("r", 10, 20, { handoff: "yes" }))).toMatchObject({
      step_from: 10,
      step_to: 20,
      handoff: "yes",
    });
  });

  it("sends a ticket batch to its items and agreement, a pairwise batch to its report", () => {
    expect(batchAgreementHref(7)).toBe("/agreement?batch=7");
    expect(batchAgreementHref(7, "pairwise")).toBe("/agreement/pairwise?batch=7");
    const ticket = html(createElement(BatchLink, { id: 7, name: "w1" }));
    expect(ticket).toContain('href="/agreement/items?batch=7"');
    expect(ticket).toContain('href="/agreement?batch=7"');
    const pair = html(createElement(BatchLink, { id: 8, name: "p1", kind: "pairwise" }));
    expect(pair).toContain('href="/agreement/pairwise?batch=8"');
    expect(pair).not.toContain("/agreement/items");
  });

  it("links a ticket only for a reader who may open its case", () => {
    expect(html(createElement(TicketLink, { id: "T-9", canOpen: true }))).toContain('href="/cases/T-9"');
    expect(html(createElement(TicketLink, { id: "T-9", canOpen: false }))).not.toContain("href");
    expect(html(createElement(TrajectoryLink, { id: "a<b" }))).toContain("a&lt;b");
  });
});

describe("activity log targets", () => {
  const e = (targetType: string, targetId: string, action = "x", details: unknown = {}) => ({
    action,
    targetType,
    targetId,
    details,
  });
  it("links each kind of target to its page", () => {
    expect(activityTargetHref(e("run", "grpo-main"), "lead")).toBe("/runs/grpo-main");
    expect(activityTargetHref(e("case", "T-1"), "lead")).toBe("/cases/T-1");
    expect(activityTargetHref(e("audit_batch", "12"), "lead")).toBe("/agreement/items?batch=12");
    expect(activityTargetHref(e("audit_item", "5", "review.submit"), "lead")).toBe("/audit/adjudication?item=5");
    expect(activityTargetHref(e("audit_item", "5", "pair_review.submit"), "lead")).toBe("/agreement/pairwise/5");
    expect(activityTargetHref(e("defect", "3", "defect.open", { run_id: "r 1" }), "lead")).toBe(
      "/audit/defects?run=r%201",
    );
    expect(activityTargetHref(e("cluster", "r1:cap:missing_evidence"), "lead")).toBe(
      "/clusters?run=r1&c=cap%3Amissing_evidence",
    );
    expect(activityTargetHref(e("cluster", "r1/k", "cluster.update", { run: "r1", key: "k" }), "lead")).toBe(
      "/clusters?run=r1&c=k",
    );
  });

  it("links admin pages for admins only, and leaves unknown targets as text", () => {
    expect(activityTargetHref(e("user", "4"), "admin")).toBe("/admin/users");
    expect(activityTargetHref(e("user", "4"), "lead")).toBeNull();
    expect(activityTargetHref(e("api_token", "4"), "lead")).toBeNull();
    expect(activityTargetHref(e("something_new", "4"), "admin")).toBeNull();
  });
});

describe("gate rule links", () => {
  const report = (from: number | null, to: number | null) =>
    ({
      run: "grpo main",
      verdict: "pass",
      window: { steps: 500, from, to },
      failed: [],
      insufficient: [],
      rules: [],
    }) as never;
  it("sends the human-checked rules to the run's agreement, the others to the browser on the gate's window", () => {
    expect(gateRuleHref(report(100, 599), "agreement")).toBe("/agreement?run=grpo%20main");
    expect(gateRuleHref(report(100, 599), "extraction")).toBe("/agreement?run=grpo%20main");
    expect(browserParams(gateRuleHref(report(100, 599), "handoff")!)).toMatchObject({
      run: "grpo main",
      step_from: 100,
      step_to: 599,
      handoff: "yes",
    });
    expect(browserParams(gateRuleHref(report(100, 599), "trained_mismatch")!)).toMatchObject({
      trained_differs: "yes",
    });
    expect(browserParams(gateRuleHref(report(100, 599), "hit_rate")!).any).toHaveLength(11);
    expect(browserParams(gateRuleHref(report(100, 599), "reward_hacking")!)).toMatchObject({ step_from: 100 });
  });
  it("has no browser link for a run without steps", () => {
    expect(gateRuleHref(report(null, null), "handoff")).toBeNull();
  });
});
