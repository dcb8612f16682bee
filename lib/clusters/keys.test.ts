import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  BLIND_SPOT_KEY,
  browserFilters,
  browserHref,
  clustersHref,
  cofiredKey,
  formatKey,
  isClusterKey,
  levelOneKey,
  parseKey,
  type ClusterKey,
} from "@/lib/clusters/keys.ts";
import { parseBrowseParams } from "@/lib/ledger/browse-schema.ts";
import { GUARDRAIL_CODES } from "@/lib/verifier/codes.ts";

describe("cluster keys", () => {
  it("level one is the deciding guardrail, else the lowest sub-score with ties in table order", () => {
    expect(levelOneKey("empty_promise", { outcome: 0 })).toBe("empty_promise");
    expect(levelOneKey(null, { outcome: 0.45, policy: 1, evidence: 0.33, efficiency: 1, communication: 1 })).toBe(
      "weakest:evidence",
    );
    expect(levelOneKey(null, { outcome: 0, policy: 1, evidence: 1, efficiency: 1, communication: 0 })).toBe(
      "weakest:outcome",
    );
    expect(levelOneKey(null, { outcome: null, communication: 0.5 })).toBe("weakest:communication");
    expect(levelOneKey(null, {})).toBe("weakest:unknown");
  });

  it("round-trips every kind, escaping the separators inside tools, fields and categories", () => {
    const keys: ClusterKey[] = [
      { kind: "level1", l1: "missing_evidence" },
      {
        kind: "level2",
        l1: "weakest:outcome",
        sig: { code: "required_write_missing", tool: "finance.issue_refund", field: null },
      },
      { kind: "level2", l1: "policy_error", sig: { code: "policy_rule_violated", tool: null, field: "a|b#c@d%e" } },
      {
        kind: "level3",
        l1: "missing_evidence",
        sig: { code: "required_read_missing", tool: "order.get", field: "required_reads.0" },
        category: "refund|damaged",
      },
      { kind: "blind_spot" },
      { kind: "cofired", codes: ["unauthorized_write", "missing_evidence"] },
    ];
    for (const k of keys) expect(parseKey(formatKey(k))).toEqual(k);
    expect(formatKey(keys[3])).toBe(
      "missing_evidence|required_read_missing@order.get#required_reads.0|refund%7Cdamaged",
    );
    expect(formatKey(keys[4])).toBe(BLIND_SPOT_KEY);
  });

  it("round-trips arbitrary tools, fields and categories (property)", () => {
    fc.assert(
      fc.property(
        fc.option(fc.string(), { nil: null }),
        fc.option(fc.string(), { nil: null }),
        fc.string({ minLength: 1 }),
        (tool, field, category) => {
          const k: ClusterKey = {
            kind: "level3",
            l1: "customer_harm",
            sig: { code: "customer_harm", tool, field },
            category,
          };
          expect(parseKey(formatKey(k))).toEqual(k);
        },
      ),
    );
  });

  it("refuses what is not a key", () => {
    for (const bad of [
      "",
      "nope",
      "weakest:vibes",
      "empty_promise|",
      "empty_promise|Bad-Code",
      "a|b|c|d",
      "cofired:empty_promise",
      "cofired:missing_evidence+empty_promise",
      "cofired:x+y",
    ]) {
      expect(isClusterKey(bad), bad).toBe(false);
    }
    expect(cofiredKey(["missing_evidence", "empty_promise"])).toBe("cofired:empty_promise+missing_evidence");
  });
});

describe("links into the trajectory browser", () => {
  const w = { runId: "grpo-7", from: 1000, to: 9000, threshold: 0.5 };

  it("applies the window, the threshold (reward strictly below it) and the cluster's exact filters", () => {
    expect(browserHref(w, parseKey("missing_evidence|required_read_missing@order.get#required_reads.0")!)).toBe(
      "/trajectories?run=grpo-7&step_from=1000&step_to=9000&reward_below=0.5&deciding=missing_evidence&sig=required_read_missing%40order.get%23required_reads.0",
    );
    expect(browserFilters(w, parseKey("weakest:outcome")!)).toEqual({
      run: "grpo-7",
      step_from: 1000,
      step_to: 9000,
      reward_below: 0.5,
      deciding: ["none"],
      weakest: ["outcome"],
    });
    expect(browserFilters(w, parseKey("weakest:unknown")!)).toMatchObject({ deciding: ["none"], weakest: ["unknown"] });
    expect(browserFilters(w, parseKey("empty_promise|empty_promise|refund_damaged")!)).toMatchObject({
      category: ["refund_damaged"],
      sig: "empty_promise",
    });
    // a tool with the key's separators in it travels escaped, and the browser reads it back as the same signature
    const k = parseKey(
      formatKey({
        kind: "level2",
        l1: "policy_error",
        sig: { code: "policy_rule_violated", tool: "a|b@c", field: "" },
      }),
    )!;
    expect(browserFilters(w, k).sig).toBe("policy_rule_violated@a%7Cb%40c#");
  });

  it("shows the blind spot whatever the reward, and a co-fired set as all of it and none of the rest", () => {
    const b = browserFilters(w, { kind: "blind_spot" });
    expect(b).toEqual({
      run: "grpo-7",
      step_from: 1000,
      step_to: 9000,
      handoff: "credited",
      none: [...GUARDRAIL_CODES],
      sandbox_write: "no",
    });
    const c = browserFilters(w, parseKey("cofired:unauthorized_write+missing_evidence")!);
    expect(c.all).toEqual(["unauthorized_write", "missing_evidence"]);
    expect(c.any).toBeUndefined();
    expect(c.none).toHaveLength(9);
    expect(c.none).not.toContain("missing_evidence");
  });

  it("every link parses back through the browser's own schema", () => {
    const keys = [
      "empty_promise",
      "weakest:communication",
      "weakest:unknown",
      "customer_harm|customer_harm@a%7Cb#x%23y|cat%7Cx",
      BLIND_SPOT_KEY,
      "cofired:customer_harm+tool_missing",
    ];
    for (const key of keys) {
      const href = browserHref({ runId: "r", threshold: 0.35 }, parseKey(key)!);
      const parsed = parseBrowseParams(new URLSearchParams(href.split("?")[1]));
      expect(parsed.ok, key).toBe(true);
    }
  });

  it("keeps the page's own URL short: default threshold and open window are left out", () => {
    expect(clustersHref({ runId: "r", threshold: 0.5 })).toBe("/clusters?run=r");
    expect(clustersHref({ runId: "r", from: 5, threshold: 0.6 }, { c: "empty_promise", view: "treemap" })).toBe(
      "/clusters?run=r&step_from=5&threshold=0.6&c=empty_promise&view=treemap",
    );
  });
});
