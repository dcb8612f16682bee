import { describe, expect, it } from "vitest";
import { parseJsonPath, resolveJsonPath, type JsonPath } from "@/lib/import/json-path.ts";

function path(text: string): JsonPath {
  const p = parseJsonPath(text);
  if (!p.ok) throw new Error(p.message);
  return p.path;
}

describe("the --map path syntax", () => {
  it("reads keys, dots and indexes, negative from the end", () => {
    expect(path("output").segments).toEqual([{ key: "output" }]);
    expect(path("extra.acc").segments).toEqual([{ key: "extra" }, { key: "acc" }]);
    expect(path("completion[-1].content").segments).toEqual([{ key: "completion" }, { index: -1 }, { key: "content" }]);
    expect(path("[0][2]").segments).toEqual([{ index: 0 }, { index: 2 }]);
    expect(path("a-b c/d").segments).toEqual([{ key: "a-b c/d" }]);
  });

  it("says what is wrong with a bad path, and where", () => {
    const bad = (t: string) => {
      const p = parseJsonPath(t);
      return p.ok ? "ok" : p.message;
    };
    expect(bad("")).toBe('bad path "": empty');
    expect(bad(".a")).toBe('bad path ".a": starts with a dot');
    expect(bad("a..b")).toBe('bad path "a..b": empty key at character 3');
    expect(bad("a.")).toBe('bad path "a.": empty key at character 3');
    expect(bad("a[1")).toBe('bad path "a[1": "[" at character 2 is never closed');
    expect(bad("a[x]")).toBe('bad path "a[x]": [x] at character 2 is not an integer index');
    expect(bad("a[0]b")).toBe('bad path "a[0]b": expected "." or "[" at character 5');
    expect(bad("a]")).toBe('bad path "a]": unexpected "]" at character 2');
  });

  it("resolves a path, or names the part that is missing and why", () => {
    const v = { a: { b: [10, { c: "x" }] }, n: null };
    expect(resolveJsonPath(v, path("a.b[1].c"))).toEqual({ found: true, value: "x" });
    expect(resolveJsonPath(v, path("a.b[-2]"))).toEqual({ found: true, value: 10 });
    expect(resolveJsonPath(v, path("n"))).toEqual({ found: true, value: null });
    expect(resolveJsonPath(v, path("a.z"))).toEqual({ found: false, missing: "a.z", why: "absent" });
    expect(resolveJsonPath(v, path("a.b[2]"))).toEqual({
      found: false,
      missing: "a.b[2]",
      why: "the array has 2 elements",
    });
    expect(resolveJsonPath(v, path("a.b.c"))).toEqual({
      found: false,
      missing: "a.b.c",
      why: 'an array has no field "c"',
    });
    expect(resolveJsonPath(v, path("a[0]"))).toEqual({ found: false, missing: "a[0]", why: "object is not an array" });
    expect(resolveJsonPath({ s: "text" }, path("s.length"))).toMatchObject({ found: false, missing: "s.length" });
    // An inherited property is not a field of the line.
    expect(resolveJsonPath({}, path("constructor"))).toMatchObject({ found: false, why: "absent" });
  });
});
