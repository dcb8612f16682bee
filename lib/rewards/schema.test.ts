// Validation of version documents: precise paths, regular expressions that do not compile named by character,
// defaults applied, the hash independent of key order.
import { describe, expect, it } from "vitest";
import { functionNameField, parseVersionDocument, parseVersionText, runScopeSchema } from "@/lib/rewards/schema.ts";
import { REWARD_TEMPLATES } from "@/lib/rewards/templates.ts";

const issues = (json: unknown) => {
  const r = parseVersionDocument(json);
  return r.ok ? [] : r.issues;
};

describe("parseVersionDocument", () => {
  it("accepts every shipped template", () => {
    for (const t of REWARD_TEMPLATES) expect({ id: t.id, issues: issues(t.doc) }).toEqual({ id: t.id, issues: [] });
  });

  it("names a pattern that does not compile with its character", () => {
    expect(
      issues({
        components: [
          { kind: "format", pattern: "ok" },
          { kind: "format", pattern: "a(b" },
        ],
      }),
    ).toEqual([{ path: "components.1.pattern", message: "does not compile: Unterminated group (at character 2)" }]);
    expect(issues({ components: [{ kind: "math", pattern: "ANSWER:**" }] })[0].message).toBe(
      "does not compile: Nothing to repeat (at character 9)",
    );
    expect(issues({ components: [{ kind: "exact_match", pattern: "x)" }] })[0].message).toMatch(/at character 2\)$/);
  });

  it("names an unknown kind, an unknown field and a bad value by path", () => {
    expect(issues({ components: [{ kind: "regex" }] })[0].path).toBe("components.0.kind");
    expect(issues({ components: [{ kind: "format", pattern: "x", patern: "y" }] })).toEqual([
      { path: "components.0.patern", message: 'unknown field "patern"' },
    ]);
    expect(issues({ components: [{ kind: "math", tolerance: -1 }] })[0].path).toBe("components.0.tolerance");
    expect(issues({ components: [{ kind: "exact_match", reference: "order.paid" }] })[0].path).toBe(
      "components.0.reference",
    );
    expect(issues({ components: [] })[0]).toEqual({ path: "components", message: "give at least one component" });
    expect(issues({ components: [{ kind: "judge", rubric: " " }] })[0]).toEqual({
      path: "components.0.rubric",
      message: "write the rubric the judge scores by",
    });
  });

  it("applies defaults and hashes the canonical document, whatever the key order", () => {
    const a = parseVersionDocument({ components: [{ pattern: "x", kind: "format" }] });
    const b = parseVersionDocument({
      components: [{ kind: "format", pattern: "x", weight: 1, flags: "" }],
      description: "",
    });
    expect(a.ok && b.ok && a.hash === b.hash).toBe(true);
    const c = parseVersionDocument({ components: [{ kind: "format", pattern: "x", weight: 2 }] });
    expect(a.ok && c.ok && a.hash !== c.hash).toBe(true);
  });

  it("reads text: JSON errors and empty documents are named", () => {
    expect(parseVersionText("")).toMatchObject({ ok: false, issues: [{ message: /empty/ }] });
    expect(parseVersionText("{")).toMatchObject({ ok: false, issues: [{ message: /not valid JSON/ }] });
  });
});

describe("runScopeSchema", () => {
  it("reads each scope and refuses a bad one by path", () => {
    expect(runScopeSchema.parse({ kind: "sample", n: 10, salt: "s" })).toEqual({ kind: "sample", n: 10, salt: "s" });
    const r = runScopeSchema.safeParse({ kind: "sample", n: 0, salt: "s" });
    expect(r.success).toBe(false);
  });
});

describe("functionNameField", () => {
  it("refuses a name taken by a page under /rewards/, saying so, and accepts names around it", () => {
    const r = functionNameField.safeParse("compare");
    expect(r.success).toBe(false);
    expect(r.error?.issues[0].message).toBe(
      "“compare” is taken by a page of the console (/rewards/compare); pick another name.",
    );
    for (const ok of ["compare-v2", "Compare", "comparer"]) expect(functionNameField.safeParse(ok).success).toBe(true);
  });
});
