// OpenAI grader JSON to and from reward function versions: what maps, what is named as not mapping, and a round trip
// that keeps the weights.
import { describe, expect, it } from "vitest";
import { exportGrader, importGrader, linearWeights } from "@/lib/rewards/interchange.ts";
import { versionDocument } from "@/lib/rewards/schema.ts";
import { RULE_TEMPLATES } from "@/lib/rewards/templates.ts";

const valid = versionDocument;

describe("importGrader", () => {
  it("maps string_check eq against the item's reference to exact_match, and a literal like/ilike to a format", () => {
    const eq = importGrader({
      type: "string_check",
      name: "exact",
      operation: "eq",
      input: "{{ sample.output_text }}",
      reference: "{{ item.reference_answer }}",
    });
    expect(valid(eq.doc).components[0]).toMatchObject({ kind: "exact_match", name: "exact" });
    expect(eq.unmapped).toEqual([]);
    const ilike = importGrader({
      type: "string_check",
      operation: "ilike",
      input: "{{sample.output_text}}",
      reference: "Refund (full)",
    });
    expect(valid(ilike.doc).components[0]).toMatchObject({ kind: "format", pattern: "Refund \\(full\\)", flags: "i" });
  });

  it("maps score_model to a judge with the templates translated, python to code behind an adapter", () => {
    const sm = importGrader({
      type: "score_model",
      name: "tone",
      model: "gpt-4.1",
      input: [
        { role: "system", content: "Grade the tone." },
        { role: "user", content: "Reply: {{ sample.output_text }} Ref: {{ item.reference_answer }}" },
      ],
      range: [0, 1],
      sampling_params: { temperature: 0.2 },
    });
    const judge = valid(sm.doc).components[0];
    expect(judge).toMatchObject({ kind: "judge", model: "gpt-4.1", temperature: 0.2 });
    expect(judge.kind === "judge" && judge.prompt).toContain("user: Reply: {{reply}} Ref: {{reference}}");
    const py = importGrader({ type: "python", source: "def grade(sample, item):\n    return 1.0\n" });
    const code = valid(py.doc).components[0];
    expect(code.kind === "code" && code.source).toMatch(
      /def cal_reward\(payload\):[\s\S]*print\(float\(grade\(_sample, _item\)\)\)/,
    );
  });

  it("maps a multi with a weighted-sum calculate_output, naming each grader that does not map", () => {
    const r = importGrader({
      type: "multi",
      graders: {
        fmt: { type: "string_check", operation: "like", input: "{{sample.output_text}}", reference: "ANSWER:" },
        sim: {
          type: "text_similarity",
          input: "{{sample.output_text}}",
          reference: "{{item.x}}",
          evaluation_metric: "bleu",
        },
        ans: { type: "string_check", operation: "eq", input: "{{sample.output_text}}", reference: "{{item.answer}}" },
      },
      calculate_output: "0.2 * fmt + ans * 0.8 + 0.5 * sim",
    });
    expect(valid(r.doc).components.map((c) => [c.kind, c.name, c.weight])).toEqual([
      ["format", "fmt", 0.2],
      ["exact_match", "ans", 0.8],
    ]);
    expect(r.unmapped).toEqual([
      {
        path: "graders.sim",
        what: 'text_similarity grader "sim"',
        why: expect.stringMatching(/no text_similarity component/),
      },
    ]);
    const nonlinear = importGrader({
      type: "multi",
      graders: { a: { type: "python", source: "def grade(s, i): return 1" } },
      calculate_output: "min(a, 1)",
    });
    expect(nonlinear.unmapped[0]).toMatchObject({ path: "calculate_output" });
    expect(importGrader({ type: "label_model" })).toMatchObject({ doc: null, unmapped: [{ path: "" }] });
  });

  it("reads linear formulas only", () => {
    expect(linearWeights("a + 2 * b", ["a", "b"])).toEqual(
      new Map([
        ["a", 1],
        ["b", 2],
      ]),
    );
    expect(linearWeights("a - b", ["a", "b"])).toBeNull();
    expect(linearWeights("a + c", ["a", "b"])).toBeNull();
  });
});

describe("exportGrader", () => {
  it("exports a weighted version as a multi, naming the components that do not map", () => {
    const doc = valid({
      components: [
        { kind: "format", name: "fmt", weight: 0.2, pattern: "ANSWER:" },
        { kind: "exact_match", name: "ans", weight: 0.8 },
        { kind: "math", name: "num", weight: 1 },
        { kind: "verifier" },
      ],
    });
    const r = exportGrader(doc, "mine");
    expect(r.grader).toMatchObject({ type: "multi", name: "mine", calculate_output: "0.2 * fmt + 0.8 * ans" });
    expect(r.unmapped.map((u) => u.path)).toEqual(["components.2", "components.3"]);
    const back = importGrader(r.grader!);
    expect(valid(back.doc).components.map((c) => [c.kind, c.weight])).toEqual([
      ["code", 0.2],
      ["exact_match", 0.8],
    ]);
  });

  it("exports the customer-service judge as a score_model with the rubric inlined", () => {
    const doc = valid(RULE_TEMPLATES.find((t) => t.id === "customer-service-rubric")!.doc);
    const r = exportGrader(doc, "cs");
    expect(r.grader).toMatchObject({ type: "score_model", name: "cs", range: [0, 1] });
    const content = (r.grader!.input as { content: string }[])[0].content;
    expect(content).toContain("{{ sample.output_text }}");
    expect(content).toContain("courteous");
    expect(r.unmapped.map((u) => u.what)).toEqual(['judge "judge_1"\'s {{tools}}']);
  });
});
