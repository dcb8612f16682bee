import { describe, expect, it } from "vitest";
import { buildImportMap, parseMapSpec, parseRewardRange, parseWeights } from "@/lib/import/jsonl-map.ts";

const message = (r: { ok: boolean; message?: string }) => (r.ok ? "ok" : r.message);

describe("--map, --weights, --reward-range", () => {
  it("reads field=path pairs", () => {
    const m = parseMapSpec("prompt=data.q, completion=data.a[-1].content,reward=r,step=it");
    expect(m.ok && Object.fromEntries(Object.entries(m.value).map(([k, v]) => [k, v!.text]))).toEqual({
      prompt: "data.q",
      completion: "data.a[-1].content",
      reward: "r",
      step: "it",
    });
  });

  it("refuses unknown fields, a field twice, a pair without = and a bad path", () => {
    expect(message(parseMapSpec("promt=input"))).toMatch(/^unknown field "promt" \(fields: prompt, completion, /);
    expect(message(parseMapSpec("prompt=a,prompt=b"))).toBe('field "prompt" is mapped twice');
    expect(message(parseMapSpec("prompt"))).toBe('"prompt" is not field=path');
    expect(message(parseMapSpec("reward=a..b"))).toBe('reward: bad path "a..b": empty key at character 3');
  });

  it("reads weights and a reward range", () => {
    expect(parseWeights("accuracy_reward=0.8,format_reward=0.2")).toEqual({
      ok: true,
      value: { accuracy_reward: 0.8, format_reward: 0.2 },
    });
    expect(message(parseWeights("a=x"))).toBe('"a=x" is not name=number');
    expect(message(parseWeights("a="))).toBe('"a=" is not name=number');
    expect(parseRewardRange("-1,1")).toEqual({ ok: true, value: [-1, 1] });
    expect(message(parseRewardRange("1,1"))).toBe('"1,1" is not LO,HI with LO < HI');
    expect(message(parseRewardRange("0"))).toBe('"0" is not LO,HI with LO < HI');
  });

  it("builds a map from a preset and overrides, and says which fields a map lacks", () => {
    const verl = buildImportMap({ preset: "verl", map: "outcome=acc" });
    expect(verl.ok && Object.keys(verl.value.paths).sort()).toEqual(
      ["completion", "outcome", "prompt", "reference", "reward", "step"].sort(),
    );
    const trl = buildImportMap({ preset: "trl", weights: "a=2" });
    expect(trl.ok && trl.value).toMatchObject({ rewardFromComponents: true, weights: { a: 2 } });
    // A reward given explicitly replaces TRL's sum.
    const trlReward = buildImportMap({ preset: "trl", map: "reward=total" });
    expect(trlReward.ok && trlReward.value.rewardFromComponents).toBe(false);
    expect(message(buildImportMap({}))).toBe("give --preset verl|trl or --map field=path,...");
    expect(message(buildImportMap({ map: "prompt=q,completion=a" }))).toBe(
      "--map: give step, reward (every line needs prompt, completion, step, reward)",
    );
    expect(message(buildImportMap({ preset: "verl", weights: "acc=1" }))).toMatch(/^--weights: only for/);
    expect(message(buildImportMap({ preset: "verl", rewardRange: "a,b" }))).toMatch(/^--reward-range: /);
  });
});
