import { describe, expect, it } from "vitest";
import { parseBrowseParams } from "@/lib/ledger/browse-schema.ts";

describe("parseBrowseParams", () => {
  it("refuses a single-valued filter given twice instead of matching the two values joined", () => {
    expect(parseBrowseParams(new URLSearchParams("run=grpo-main&run=grpo-hacking"))).toMatchObject({
      ok: false,
      errors: ["run: is given more than once; give it once"],
      problems: { run: "is given more than once; give it once" },
      partial: { sort: "id", dir: "desc" },
    });
    // the good filters stay, for the form to show; the refused one is dropped from them
    const r = parseBrowseParams({ step_from: ["1", "2"], sort: "step", reward_max: "2", run: "grpo-main" });
    expect(r).toMatchObject({
      ok: false,
      errors: ["step_from: is given more than once; give it once", expect.stringMatching(/^reward_max: /)],
      problems: {
        step_from: "is given more than once; give it once",
        reward_max: expect.stringMatching(/\(given "2"\)$/),
      },
      partial: { sort: "step", run: "grpo-main" },
    });
    expect(r.ok || "step_from" in r.partial || "reward_max" in r.partial).toBe(false);
  });

  it("joins a list filter given twice (a checkbox group), and ignores empty repeats", () => {
    const r = parseBrowseParams(new URLSearchParams("any=customer_harm&any=empty_promise&run=a&run="));
    expect(r).toMatchObject({ ok: true, params: { any: ["customer_harm", "empty_promise"], run: "a" } });
  });

  it("still names unknown filters, once", () => {
    expect(parseBrowseParams(new URLSearchParams("colour=red&colour=blue"))).toMatchObject({
      ok: false,
      errors: ['unknown filter "colour"'],
      problems: { colour: 'unknown filter "colour"' },
    });
  });
});

describe("the filter form with its defaults", () => {
  it("reads every blank number field as no filter (not as 0)", () => {
    const blank = "run=grpo-main&step_from=&step_to=&reward_min=&reward_max=&category=&q=";
    const r = parseBrowseParams(new URLSearchParams(blank));
    expect(r.ok && r.params).toMatchObject({ run: "grpo-main", sort: "id", dir: "desc" });
    expect(r.ok && [r.params.step_from, r.params.step_to, r.params.reward_min, r.params.reward_max]).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
  });
});
