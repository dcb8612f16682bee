import { describe, expect, it } from "vitest";
import { groupHref, parseGroupAddress } from "@/lib/ledger/group-address.ts";

describe("parseGroupAddress", () => {
  it("reads run, id and the optional step", () => {
    expect(parseGroupAddress({ run: "r", id: "g" })).toEqual({ ok: true, address: { runId: "r", groupId: "g" } });
    expect(parseGroupAddress({ run: "r", id: "g", step: "12" })).toEqual({
      ok: true,
      address: { runId: "r", groupId: "g", step: 12 },
    });
  });

  it("names the parameter that is missing, repeated or not a step", () => {
    expect(parseGroupAddress({ id: "g" })).toEqual({ ok: false, error: expect.stringMatching(/^run: missing/) });
    expect(parseGroupAddress({ run: "r" })).toEqual({ ok: false, error: expect.stringMatching(/^id: missing/) });
    expect(parseGroupAddress({ run: ["r", "s"], id: "g" })).toEqual({
      ok: false,
      error: "run: given 2 times; give it once",
    });
    expect(parseGroupAddress({ run: "r", id: "g", step: "-1" })).toEqual({
      ok: false,
      error: 'step: "-1" is not a whole number of steps',
    });
    expect(parseGroupAddress({ run: "r", id: "g", step: "1.5" }).ok).toBe(false);
  });

  it("round-trips the page's own links, whatever the ids contain", () => {
    const address = { runId: "grpo main/β", groupId: "a&b=c/s3", step: 3 };
    const href = groupHref(address);
    const q = new URL(href, "http://x").searchParams;
    expect(parseGroupAddress({ run: q.get("run")!, id: q.get("id")!, step: q.get("step")! })).toEqual({
      ok: true,
      address,
    });
  });

  it("carries the rollout the reader came from, for the page's back link", () => {
    const href = groupHref({ runId: "r", groupId: "g" }, "r/t&1");
    expect(new URL(href, "http://x").searchParams.get("from")).toBe("r/t&1");
    expect(new URL(groupHref({ runId: "r", groupId: "g" }), "http://x").searchParams.has("from")).toBe(false);
  });
});
