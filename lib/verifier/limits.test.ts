import { describe, expect, it } from "vitest";
import { depthIssue, depthIssueOfText, idProblem, MAX_DEPTH, MAX_ID_LENGTH } from "@/lib/verifier/limits.ts";

/** `{"a":{"a":…1…}}` with `levels` objects, as text (building it as a value would itself need the stack). */
const nestedText = (levels: number, key = "a") => `{"${key}":`.repeat(levels - 1) + "{}" + "}".repeat(levels - 1);

describe("depth limit", () => {
  it("takes a value of exactly MAX_DEPTH levels and refuses one more, at the path of the first level past it", () => {
    expect(MAX_DEPTH).toBe(64);
    expect(depthIssue(JSON.parse(nestedText(MAX_DEPTH)))).toBeNull();
    expect(depthIssue(JSON.parse(nestedText(MAX_DEPTH + 1)))).toEqual({
      path: Array(MAX_DEPTH).fill("a").join("."),
      message: "nested deeper than 64 levels of objects and arrays",
    });
  });

  it("counts arrays as levels and names array indexes and the first offending branch", () => {
    // Level 1 the line, 2 steps, 3 steps[1], 4 output; with a limit of 3, steps.1.output is the first past it.
    const v = { steps: [{ output: 1 }, { output: { deep: true } }], other: [[[[]]]] };
    expect(depthIssue(v, 3)).toEqual({
      path: "steps.1.output",
      message: "nested deeper than 3 levels of objects and arrays",
    });
    expect(depthIssue([[[]]], 2)).toEqual({
      path: "0.0",
      message: "nested deeper than 2 levels of objects and arrays",
    });
    expect(depthIssue([[[]]], 3)).toBeNull();
    expect(depthIssue("a string", 0)).toBeNull();
    expect(depthIssue(null)).toBeNull();
  });

  it("handles a value nested 100,000 levels deep without overflowing the stack", () => {
    const v = JSON.parse("[".repeat(100_000) + "]".repeat(100_000));
    expect(depthIssue(v)?.path).toBe(Array(MAX_DEPTH).fill("0").join("."));
  });

  it("skips the walk only when the text cannot be that deep, and agrees with it otherwise", () => {
    const shallowButBracketed = JSON.stringify({ list: Array.from({ length: 100 }, () => ({})), s: "{[{[" });
    expect(depthIssueOfText(shallowButBracketed, JSON.parse(shallowButBracketed))).toBeNull();
    const text = nestedText(MAX_DEPTH + 1, "k");
    expect(depthIssueOfText(text, JSON.parse(text))).toEqual(depthIssue(JSON.parse(text)));
    // Brackets inside strings count towards the bound but not towards the depth.
    const inStrings = JSON.stringify({ s: "[".repeat(200) });
    expect(depthIssueOfText(inStrings, JSON.parse(inStrings))).toBeNull();
  });
});

describe("id limits", () => {
  it("say what is wrong with an id, or nothing", () => {
    expect(idProblem("x".repeat(MAX_ID_LENGTH))).toBeNull();
    expect(idProblem("x".repeat(MAX_ID_LENGTH + 1))).toBe("too long: at most 200 characters (got 201)");
    expect(idProblem("a\u001fb")).toMatch(/^contains U\+001F \(a control character\) at character 2: /);
    expect(idProblem("run\u202e1")).toMatch(/^contains U\+202E \(a format character\) at character 4: /);
    expect(idProblem("T-1001/é")).toBeNull();
  });
});
