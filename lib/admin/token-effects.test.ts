import { describe, expect, it } from "vitest";
import { describeTokenEffects, tokenEffects } from "@/lib/admin/token-effects.ts";

const tokens = [
  { id: 1, name: "launcher", prefix: "aaaa1111", scopes: ["ingest", "read"] },
  { id: 2, name: "reader", prefix: "bbbb2222", scopes: ["read"] },
];

describe("what a change to a user does to their tokens", () => {
  it("names each token whose usable scopes move, and only those", () => {
    const lead = tokenEffects(tokens, { role: "admin", disabled: false }, { role: "lead", disabled: false });
    expect(lead).toEqual([{ id: 1, name: "launcher", prefix: "aaaa1111", from: ["ingest", "read"], to: ["read"] }]);
    expect(describeTokenEffects(lead)).toBe("API token affected: “launcher” (vty_aaaa1111_…) ingest, read → read.");
    const off = tokenEffects(tokens, { role: "lead", disabled: false }, { role: "lead", disabled: true });
    expect(describeTokenEffects(off)).toBe(
      "API tokens affected: “launcher” (vty_aaaa1111_…) read → none, inactive; “reader” (vty_bbbb2222_…) read → none, inactive.",
    );
    expect(tokenEffects(tokens, { role: "admin", disabled: false }, { role: "admin", disabled: false })).toEqual([]);
    expect(describeTokenEffects([])).toBe("");
  });
});
