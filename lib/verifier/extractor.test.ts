import { describe, expect, it } from "vitest";
import { buildExtractionInput, restrictClaims, type ExtractionInput } from "@/lib/verifier/extractor.ts";
import { makeCase, makeRollout } from "@/lib/testing/verifier-fixtures.ts";

describe("buildExtractionInput", () => {
  it("carries the reply and three lists of names, nothing else", () => {
    const input = buildExtractionInput(
      makeRollout({ reply: "Done." }),
      makeCase({ forbidden: ["blame_customer", "blame_customer"] }),
    );
    expect(input).toEqual({
      final_reply: "Done.",
      write_tools: [
        "finance.issue_refund",
        "logistics.create_return",
        "logistics.reship",
        "logistics.update_address",
        "finance.charge_customer",
        "order.cancel",
      ],
      mention_keys: ["refund_amount", "refund_eta"],
      forbidden_codes: ["blame_customer"],
    });
    expect(Object.isFrozen(input)).toBe(true);
    expect(JSON.stringify(input)).not.toMatch(/59\.99|O-1|merchant|paid_amount|\$order/);
  });

  it("cannot be given truth by the type system", () => {
    const withSandbox = {
      final_reply: "",
      write_tools: [],
      mention_keys: [],
      forbidden_codes: [],
      sandbox: { writes: [] },
    };
    // @ts-expect-error an object that also carries sandbox data is not an ExtractionInput
    const bad: ExtractionInput = withSandbox;
    expect(bad).toBeDefined();
  });
});

describe("restrictClaims", () => {
  it("drops names outside the input's vocabulary and duplicates", () => {
    const input = buildExtractionInput(makeRollout(), makeCase());
    const claims = restrictClaims(
      {
        claimed_writes: ["finance.issue_refund", "finance.issue_refund", "ticket.close", "made.up"],
        mentioned: [{ key: "refund_amount", value: 1 }, { key: "secret" }],
        forbidden_hits: ["blame_customer", "other"],
      },
      input,
    );
    expect(claims).toEqual({
      claimed_writes: ["finance.issue_refund"],
      mentioned: [{ key: "refund_amount", value: 1 }],
      forbidden_hits: ["blame_customer"],
    });
  });
});
