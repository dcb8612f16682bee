import { describe, expect, it } from "vitest";
import { parseImportJsonlArgs } from "@/lib/cli/import-jsonl.ts";

describe("verity import jsonl flags", () => {
  it("takes a file, a preset or a map, the run and the ingest options", () => {
    const p = parseImportJsonlArgs([
      "dump.jsonl.gz",
      "--preset",
      "trl",
      "--map",
      "outcome=accuracy_reward",
      "--weights",
      "accuracy_reward=0.8,format_reward=0.2",
      "--run",
      "grpo-8",
      "--batch",
      "500",
      "--strict",
      "--no-progress",
    ]);
    expect(p.ok && p.opts).toMatchObject({
      file: "dump.jsonl.gz",
      preset: "trl",
      run: "grpo-8",
      category: "imported",
      batch: 500,
      strict: true,
      progress: "off",
    });
    expect(p.ok && p.map).toMatchObject({
      rewardFromComponents: true,
      weights: { accuracy_reward: 0.8, format_reward: 0.2 },
    });
    expect(p.ok && p.map.paths.outcome?.text).toBe("accuracy_reward");
  });

  it("explains what is wrong", () => {
    const message = (argv: string[]) => {
      const p = parseImportJsonlArgs(argv);
      return p.ok ? "ok" : p.message;
    };
    expect(message([])).toBe("give a JSONL file (.jsonl or .jsonl.gz) to import, or - for standard input");
    expect(message(["a", "b"])).toBe("one file at a time (got a, b)");
    expect(message(["a", "--run", "r"])).toBe("give --preset verl|trl or --map field=path,...");
    expect(message(["a", "--preset", "openrlhf", "--run", "r"])).toMatch(/^--preset: /);
    expect(message(["a", "--preset", "verl"])).toBe("--run: give the run the rollouts belong to (or map run=PATH)");
    expect(message(["a", "--map", "prompt=q,completion=a,reward=r,step=s,run=meta.run"])).toBe("ok");
    expect(message(["a", "--preset", "verl", "--run", "r", "--map", "score=x"])).toMatch(
      /^--map: unknown field "score"/,
    );
    expect(message(["a", "--preset", "verl", "--run", "r", "--reward-range", "1,0"])).toBe(
      '--reward-range: "1,0" is not LO,HI with LO < HI',
    );
    expect(message(["a", "--preset", "verl", "--run", "bad<run"])).toMatch(/^--run: /);
    expect(message(["a", "--bogus"])).toMatch(/bogus/);
    expect(parseImportJsonlArgs(["--help"])).toMatchObject({ ok: false, help: true });
  });
});
