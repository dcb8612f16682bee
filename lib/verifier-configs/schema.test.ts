import { describe, expect, it } from "vitest";
import { configHash, DEFAULT_CONFIG } from "@/lib/verifier/config.ts";
import { nameFromFileName, parseAddConfigForm, parseConfigDocument } from "@/lib/verifier-configs/schema.ts";

function form(fields: Record<string, string | File>): FormData {
  const f = new FormData();
  for (const [k, v] of Object.entries(fields)) f.append(k, v);
  return f;
}

describe("parseConfigDocument", () => {
  it("merges a partial document onto the default and hashes the whole, independent of key order", () => {
    const a = parseConfigDocument(
      '{"handoff_outcome": 0.5, "guardrails": {"tool_missing": {"on": true, "cap": 0.55}}}',
    );
    const b = parseConfigDocument(
      '{"guardrails": {"tool_missing": {"cap": 0.55, "on": true}}, "handoff_outcome": 0.5}',
    );
    expect(a.ok && b.ok).toBe(true);
    if (!a.ok || !b.ok) return;
    expect(a.config.handoff_outcome).toBe(0.5);
    expect(a.config.guardrails.tool_missing).toEqual({ on: true, cap: 0.55 });
    expect(a.config.weights).toEqual(DEFAULT_CONFIG.weights);
    expect(a.hash).toBe(b.hash);
    expect(a.hash).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(a.hash).not.toBe(configHash(DEFAULT_CONFIG));
    const empty = parseConfigDocument("{}");
    expect(empty.ok && empty.hash).toBe(configHash(DEFAULT_CONFIG));
  });

  it("says where the JSON breaks", () => {
    const r = parseConfigDocument('{"handoff_outcome": 0.5,}');
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.issues).toHaveLength(1);
    expect(r.issues[0].path).toBe("");
    expect(r.issues[0].message).toMatch(/^not valid JSON: .*position 24/);
  });

  it("refuses weights that do not sum to 1, with their sum, at the weights path", () => {
    const r = parseConfigDocument(
      '{"weights": {"outcome": 0.5, "policy": 0.2, "evidence": 0.2, "efficiency": 0.1, "communication": 0.05}}',
    );
    expect(r).toEqual({
      ok: false,
      issues: [{ path: "weights", message: "weights must sum to 1 (they sum to 1.05)" }],
    });
  });

  it("refuses an unknown guardrail code at its own path, naming the known ones", () => {
    const r = parseConfigDocument('{"guardrails": {"rude_tone": {"on": true, "cap": 0.5}}}');
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.issues).toHaveLength(1);
    expect(r.issues[0].path).toBe("guardrails.rude_tone");
    expect(r.issues[0].message).toMatch(/^unknown guardrail code "rude_tone" \(known: customer_harm, /);
  });

  it("refuses other bad documents with a path each", () => {
    expect(parseConfigDocument("")).toMatchObject({
      ok: false,
      issues: [{ path: "", message: expect.stringMatching(/^the config is empty/) }],
    });
    expect(parseConfigDocument("[1]")).toEqual({
      ok: false,
      issues: [{ path: "", message: "config must be a JSON object" }],
    });
    expect(parseConfigDocument('{"handoff_outcome": 1.5}')).toMatchObject({
      ok: false,
      issues: [{ path: "handoff_outcome" }],
    });
    expect(parseConfigDocument('{"wieghts": {}}')).toEqual({
      ok: false,
      issues: [{ path: "wieghts", message: 'unknown field "wieghts"' }],
    });
    expect(parseConfigDocument(`{"x": "${"a".repeat(600 * 1024)}"}`)).toMatchObject({
      ok: false,
      issues: [{ message: "the config is larger than 512 KB" }],
    });
  });
});

describe("parseAddConfigForm", () => {
  it("takes pasted text with a name and the default switch", async () => {
    const r = await parseAddConfigForm(
      form({ name: " strict ", config: '{"handoff_outcome": 0.4}', makeDefault: "on" }),
    );
    expect(r).toMatchObject({ ok: true, name: "strict", makeDefault: true });
    expect(r.ok && r.config.handoff_outcome).toBe(0.4);
  });

  it("takes an uploaded file, named after the file when no name is given", async () => {
    const r = await parseAddConfigForm(
      form({ name: "", config: "", file: new File(['{"handoff_outcome": 0.3}'], "lenient-handoff.json") }),
    );
    expect(r).toMatchObject({ ok: true, name: "lenient-handoff", makeDefault: false });
  });

  it("puts each problem under its field, the document's with their paths", async () => {
    const bad = await parseAddConfigForm(
      form({ name: "", config: '{"guardrails": {"rude_tone": {"on": true, "cap": 0.5}}, "handoff_outcome": 2}' }),
    );
    expect(bad.ok).toBe(false);
    if (bad.ok) return;
    expect(bad.fieldErrors.name).toEqual(["Name the config (e.g. “strict-evidence”)."]);
    expect(bad.fieldErrors.config).toHaveLength(2);
    expect(
      bad.fieldErrors.config.some((m) => m.startsWith('guardrails.rude_tone: unknown guardrail code "rude_tone"')),
    ).toBe(true);
    expect(bad.fieldErrors.config.some((m) => m.startsWith("handoff_outcome: "))).toBe(true);
    expect(bad.values.config).toContain("rude_tone");

    const file = await parseAddConfigForm(form({ name: "x", config: "", file: new File(["{nope"], "x.json") }));
    expect(file.ok || file.fieldErrors).toEqual({ file: [expect.stringMatching(/^not valid JSON: /)] });

    const none = await parseAddConfigForm(form({ name: "x", config: "  " }));
    expect(none.ok || none.fieldErrors).toEqual({ config: ["Paste a config or choose a JSON file."] });

    const both = await parseAddConfigForm(form({ name: "x", config: "{}", file: new File(["{}"], "y.json") }));
    expect(both.ok || both.fieldErrors).toEqual({ config: ["Upload a file or paste a config, not both."] });

    const badName = await parseAddConfigForm(form({ name: "<b>x</b>", config: "{}" }));
    expect(badName.ok || badName.fieldErrors.name?.[0]).toMatch(/^Use letters, digits/);
  });

  it("derives names from file names", () => {
    expect(nameFromFileName("configs/strict-evidence.json")).toBe("strict-evidence");
    expect(nameFromFileName("C:\\x\\a.JSON")).toBe("a");
    expect(nameFromFileName(".json")).toBeUndefined();
  });
});
