import { describe, expect, it } from "vitest";
import { parseIngestArgs } from "@/lib/cli/ingest.ts";

describe("verity ingest flags", () => {
  it("takes a file or - and the platform identity", () => {
    expect(parseIngestArgs(["rollouts.ndjson"])).toEqual({
      ok: true,
      opts: { file: "rollouts.ndjson", format: "ndjson", strict: false, progress: "auto" },
    });
    expect(
      parseIngestArgs([
        "-",
        "--format",
        "platform",
        "--run",
        "grpo-9",
        "--step",
        "300",
        "--rejects",
        "r.ndjson",
        "--batch",
        "500",
        "--strict",
        "--no-progress",
      ]),
    ).toMatchObject({
      ok: true,
      opts: {
        file: "-",
        format: "platform",
        run: "grpo-9",
        step: 300,
        rejects: "r.ndjson",
        batch: 500,
        strict: true,
        progress: "off",
      },
    });
  });

  it("explains what is wrong", () => {
    expect(parseIngestArgs([])).toEqual({ ok: false, message: "give a file to ingest, or - for standard input" });
    expect(parseIngestArgs(["a", "b"])).toMatchObject({ ok: false, message: "one input at a time (got a, b)" });
    expect(parseIngestArgs(["a", "--format", "csv"])).toMatchObject({
      ok: false,
      message: expect.stringMatching(/^--format: /),
    });
    expect(parseIngestArgs(["a", "--step=-1"])).toMatchObject({
      ok: false,
      message: expect.stringMatching(/^--step: /),
    });
    expect(parseIngestArgs(["a", "--bogus"])).toMatchObject({ ok: false });
    expect(parseIngestArgs(["--help"])).toMatchObject({ ok: false, help: true });
  });
});
