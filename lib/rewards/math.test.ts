// The math reward's parser and comparison, case by case, with Math-Verify's published regression examples where they
// apply (tests/test_all.py of huggingface/Math-Verify: the answers, not the free-text extraction, which a version
// does with its pattern). Where Verity reads an answer differently from Math-Verify, the case says so.
import { describe, expect, it } from "vitest";
import { mathEqual, MathParseError, parseMath, toNumber } from "@/lib/rewards/math.ts";

const eq = (gold: string, pred: string, tolerance = 0) => mathEqual(parseMath(pred), parseMath(gold), tolerance);

describe("parseMath", () => {
  it.each([
    ["0.5", 0.5],
    ["1/2", 0.5],
    ["\\frac{1}{2}", 0.5],
    ["\\dfrac{3}{4}", 0.75],
    ["\\boxed{\\frac{3}{4}}", 0.75],
    ["50%", 0.5],
    ["12.5\\%", 0.125],
    ["1.5e3", 1500],
    ["2.5E-2", 0.025],
    ["2\\times10^{3}", 2000],
    ["-3", -3],
    ["-2^2", -4],
    ["2(3+4)", 14],
    ["10^{-2}", 0.01],
    ["\\boxed{42}.", 42],
    ["$\\frac{7}{2}$", 3.5],
    ["1,234.5", 1234.5],
    ["14{,}916", 14916],
    ["3 \\cdot 4", 12],
    ["\\left( \\frac{1}{3} \\right)", 1 / 3],
  ])("%s = %d", (text, value) => {
    expect(toNumber(parseMath(text))).toBeCloseTo(value, 12);
  });

  it("is exact: 0.1 + 0.2 is 3/10", () => {
    expect(parseMath("0.1 + 0.2")).toEqual({ n: 3n, d: 10n });
  });

  it.each(["abc", "", "1/0", "\\sqrt{2}", "2^{1/2}", "(1+2", "10^{100000}"])("refuses %j", (text) => {
    expect(() => parseMath(text)).toThrow(MathParseError);
  });
});

describe("mathEqual", () => {
  it("applies the relative tolerance to the reference", () => {
    expect(eq("1/3", "0.333", 0)).toBe(false);
    expect(eq("1/3", "0.333", 0.01)).toBe(true);
    expect(eq("100", "101", 0.01)).toBe(true);
    expect(eq("100", "101.5", 0.01)).toBe(false);
    expect(eq("0", "0.0001", 0.01)).toBe(false);
    expect(eq("0", "0", 0)).toBe(true);
    expect(eq("-2", "2", 0.5)).toBe(false);
  });
  it("0.5 = 1/2 and 1.0 = 1 exactly", () => {
    expect(eq("1/2", "0.5")).toBe(true);
    expect(eq("1", "1.0")).toBe(true);
  });
});

describe("Math-Verify's published examples (tests/test_all.py)", () => {
  it.each([
    ["-5", "-5", true],
    ["7425000", "7,425,000", true],
    ["1000", "1 000", true],
    ["1000", "1000.0", true],
    ["1000.0", "1,000.0", true],
    ["0.4", ".4", true],
    ["1000.99", "1,000.99", true],
    ["1000.99", "$1,000.99", true],
    ["1000.99", "1,000.99$", true],
    ["10/9", "\\frac{10}{9}", true],
    ["-10/9", "-\\frac{10}{9}", true],
    ["$1/3$", "$\\frac13 $", true],
    ["$1$", "$\\frac3{3} $", true],
    ["$1/3$", "$\\cfrac{1}{3} $", true],
    ["$1/3$", "$\\dfrac{1}{3} $", true],
    ["$1/3$", "$\\tfrac{1}{3} $", true],
    ["$1/3$", "$ 1/3 $", true],
    ["$1/3$", "$\\left( \\frac{1}{3} \\right)$", true],
    ["$1/3$", "$\\boxed{\\frac{1}{3}}$", true],
    ["$1/3$", "$\\frac{1}{3} \\text{meters}$", true],
    ["$1/3$", "$\\frac{1}{3} \\textbf{meters}$", true],
    ["$0.28$", "28", false],
    ["$28/100$", "28", false],
    ["$28$", "28/100", false],
    ["$\\frac{28}{100}$", "28", false],
    ["$28*\\frac{1}{100}$", "28", false],
  ])("gold %s, answer %s: %s", (gold, pred, expected) => {
    expect(eq(gold, pred)).toBe(expected);
  });

  it("reads a percentage as its fraction: 28% is 0.28, where Math-Verify also accepts 28 for a gold 28%", () => {
    expect(eq("$28\\%$", "0.28")).toBe(true);
    expect(eq("$28\\%$", "28")).toBe(false);
  });
});
