import { describe, expect, it } from "vitest";
import { parseInputText } from "@/lib/cli/score-read.ts";

function items(text: string) {
  const r = parseInputText("f.json", text);
  if (!r.ok) throw new Error(r.message);
  return r.items;
}

describe("parseInputText", () => {
  it("reads one JSON object, starting where it starts", () => {
    const [item] = items('\n\n{"kind": "case"}\n');
    expect(item.value).toEqual({ kind: "case" });
    expect(item.line).toBe(3);
  });

  it("reads a pretty-printed array with the line of each element", () => {
    const text = JSON.stringify([{ a: 1 }, { b: { c: [1, 2] } }, "x"], null, 2);
    const got = items(text);
    expect(got.map((i) => i.line)).toEqual([2, 5, 13]);
    expect(got[1].value).toEqual({ b: { c: [1, 2] } });
  });

  it("reads NDJSON, skipping blank lines and keeping bad lines as syntax errors", () => {
    const got = items('{"a":1}\n\n{"b":2}\n{"c":\n');
    expect(got.map((i) => [i.line, i.value, i.syntaxError !== undefined])).toEqual([
      [1, { a: 1 }, false],
      [3, { b: 2 }, false],
      [4, undefined, true],
    ]);
  });

  it("keeps reading NDJSON whose first line is bad: that line costs only itself", () => {
    for (const first of ["not json", "[1, 2", '{"a":', "[]", "42", '"text"']) {
      const got = items(`${first}\n{"b":2}\n\n{"c":3}\n`);
      expect(
        got.map((i) => i.line),
        first,
      ).toEqual([1, 2, 4]);
      expect(got.slice(1).map((i) => i.value)).toEqual([{ b: 2 }, { c: 3 }]);
      expect(got[0].syntaxError !== undefined || got[0].value !== undefined).toBe(true);
    }
    expect(items('[1, 2]\n{"b":2}\n')[0].value).toEqual([1, 2]);
    expect(items('oops\n{"b":2}\n')[0].syntaxError).toMatch(/JSON/);
  });

  it("rejects a broken JSON document as a whole, with a line", () => {
    const r = parseInputText("f.json", '{\n  "a": 1,\n  "b": ,\n}\n');
    expect(r.ok).toBe(false);
    expect(!r.ok && r.message).toMatch(/^f\.json:3: not JSON or NDJSON: /);
    expect(parseInputText("f.json", "[1, 2").ok).toBe(false);
    // A pretty-printed document's nested objects are indented: they do not make it NDJSON.
    const pretty = JSON.stringify({ kind: "rollout", steps: [{ a: 1 }, { b: 2 }] }, null, 2).replace('"a": 1', '"a": ');
    expect(parseInputText("f.json", pretty).ok).toBe(false);
  });

  it("returns nothing for an empty file, and strips a byte-order mark", () => {
    expect(items("  \n")).toEqual([]);
    expect(items('\ufeff{"a": 1}')[0].value).toEqual({ a: 1 });
  });

  it("maps an issue path to the line of that field", () => {
    const doc = {
      kind: "rollout",
      trajectory: {
        steps: [
          { name: "a", status: "ok" },
          { name: "b.c", status: "success" },
        ],
      },
      tools: { "finance.issue_refund": { on: true } },
    };
    const [item] = items(JSON.stringify(doc, null, 2));
    const lines = JSON.stringify(doc, null, 2).split("\n");
    const lineOf = (needle: string) => lines.findIndex((l) => l.includes(needle)) + 1;
    expect(item.lineOf("trajectory.steps.0.status")).toBe(lineOf('"ok"'));
    expect(item.lineOf("trajectory.steps.1")).toBe(lineOf('"b.c"') - 1);
    expect(item.lineOf("tools.finance.issue_refund.on")).toBe(lineOf('"on"'));
    expect(item.lineOf("trajectory.final_reply")).toBe(lineOf('"trajectory"')); // missing: its parent
    expect(item.lineOf("")).toBe(1);
  });

  it("maps paths inside array elements to lines in the file", () => {
    const text = `[\n  {"kind": "case"},\n  {\n    "kind": "rollout",\n    "step": -1\n  }\n]`;
    const got = items(text);
    expect(got[1].lineOf("step")).toBe(5);
  });
});
