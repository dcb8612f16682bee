// OpenAI's grader JSON (reinforcement fine-tuning and evals: string_check, score_model, python, multi with its
// calculate_output) to and from reward function versions, where a kind maps; what does not map is named with its
// path and why, never dropped silently. Templates: {{sample.output_text}} is the final reply, any {{item.…}} the
// case's reference_output (Verity's cases carry one reference).
import type { RewardComponent, VersionDocument } from "@/lib/rewards/schema.ts";

export type Unmapped = { path: string; what: string; why: string };
export type Grader = Record<string, unknown> & { type: string; name?: string };

const REPLY = /\{\{\s*sample\.output_text\s*\}\}/g;
const ITEM = /\{\{\s*item\.[\w.]+\s*\}\}/g;

/** The adapter that lets an OpenAI python grader's grade(sample, item) run as Verity's cal_reward(payload). */
const GRADE_ADAPTER = `

def cal_reward(payload):
    import json as _json
    _p = _json.loads(payload)
    _ref = _p.get("reference_output")
    _sample = {"output_text": _p["trajectory"]["root"]["output"]}
    _item = {"reference_answer": _ref, "reference_output": _ref, "input": _p.get("input")}
    print(float(grade(_sample, _item)))
`;

/** The adapter that lets Verity's cal_reward(payload) run as an OpenAI python grader. */
const CAL_REWARD_ADAPTER = `

def grade(sample, item):
    import contextlib as _ctx, io as _io, json as _json
    _payload = _json.dumps({"input": item.get("input", ""), "reference_output": item.get("reference_output"),
                            "trajectory": {"root": {"output": sample["output_text"]}, "steps": []}})
    _out = _io.StringIO()
    with _ctx.redirect_stdout(_out):
        cal_reward(_payload)
    return float(_out.getvalue().strip().splitlines()[-1])
`;

function fromGrader(g: Grader, path: string, unmapped: Unmapped[]): RewardComponent | null {
  const name = typeof g.name === "string" && g.name ? g.name.slice(0, 100) : undefined;
  const base = { name, weight: 1 };
  const skip = (why: string) => (
    unmapped.push({ path, what: `${g.type} grader${name ? ` "${name}"` : ""}`, why }),
    null
  );
  if (g.type === "string_check") {
    const input = String(g.input ?? "");
    const reference = String(g.reference ?? "");
    if (!/^\s*\{\{\s*sample\.output_text\s*\}\}\s*$/.test(input))
      return skip("its input is not {{sample.output_text}}: Verity compares the final reply");
    const templated = new RegExp(ITEM.source).test(reference);
    if (templated && reference.trim().replace(ITEM, "") !== "") return skip("its reference mixes text and a template");
    const literal = reference.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    switch (g.operation) {
      case "eq":
        return templated
          ? {
              kind: "exact_match",
              ...base,
              flags: "",
              normalize: { trim: false, case: false, whitespace: false, thousands: false, currency: false },
            }
          : { kind: "format", ...base, pattern: `^${literal}$`, flags: "" };
      case "like":
      case "ilike":
        if (templated)
          return skip(
            `"${g.operation}" against the item's reference (containment of a per-case value) has no Verity component`,
          );
        return { kind: "format", ...base, pattern: literal, flags: g.operation === "ilike" ? "i" : "" };
      default:
        return skip(`operation "${String(g.operation)}" (only eq, like and ilike map)`);
    }
  }
  if (g.type === "score_model") {
    const range = g.range as unknown;
    if (Array.isArray(range) && (range[0] !== 0 || range[1] !== 1)) return skip("its range is not [0, 1]");
    const messages = Array.isArray(g.input) ? (g.input as { role?: string; content?: unknown }[]) : [];
    const text = messages
      .map((m) => `${m.role ?? "user"}: ${typeof m.content === "string" ? m.content : JSON.stringify(m.content)}`)
      .join("\n\n");
    if (!text) return skip("it has no input messages");
    const sampling = (g.sampling_params ?? {}) as { temperature?: number };
    return {
      kind: "judge",
      ...base,
      rubric: `(imported from an OpenAI score_model grader; the rubric is in the prompt)`,
      prompt: `${text.replace(REPLY, "{{reply}}").replace(ITEM, "{{reference}}")}\n\nAnswer with JSON only: {"score": <a number from 0 to 1>, "reason": "<one sentence>"}`,
      ...(typeof g.model === "string" ? { model: g.model } : {}),
      temperature: typeof sampling.temperature === "number" ? sampling.temperature : 0,
      max_in_flight: 16,
      timeout_ms: 30_000,
      price: { input_per_million: 0, output_per_million: 0 },
      simulated: false,
    };
  }
  if (g.type === "python") {
    if (typeof g.source !== "string" || !/def\s+grade\s*\(/.test(g.source))
      return skip("its source defines no grade(sample, item)");
    return { kind: "code", ...base, source: g.source + GRADE_ADAPTER, timeout_ms: 5_000 };
  }
  return skip(`Verity has no ${g.type} component (text_similarity and label_model do not map)`);
}

/** Weights of a linear calculate_output (`0.2 * a + b * 0.8 + c`), or null when it is anything else. */
export function linearWeights(formula: string, names: string[]): Map<string, number> | null {
  const weights = new Map<string, number>();
  const num = String.raw`\d+(?:\.\d+)?(?:e[+-]?\d+)?`;
  const term = new RegExp(
    String.raw`^\s*(?:(${num})\s*\*\s*([A-Za-z_]\w*)|([A-Za-z_]\w*)\s*\*\s*(${num})|([A-Za-z_]\w*))\s*$`,
    "i",
  );
  for (const part of formula.split("+")) {
    const m = term.exec(part);
    if (!m) return null;
    const name = m[2] ?? m[3] ?? m[5];
    if (!names.includes(name)) return null;
    weights.set(name, (weights.get(name) ?? 0) + Number(m[1] ?? m[4] ?? 1));
  }
  return weights;
}

/** An OpenAI grader (one, or a multi) as a version document, and what did not map. Null doc: nothing mapped. */
export function importGrader(g: Grader): { doc: VersionDocument | null; unmapped: Unmapped[] } {
  const unmapped: Unmapped[] = [];
  let components: RewardComponent[] = [];
  if (g.type === "multi") {
    const graders = (g.graders ?? {}) as Record<string, Grader>;
    const names = Object.keys(graders);
    const weights = linearWeights(String(g.calculate_output ?? ""), names);
    if (!weights)
      unmapped.push({
        path: "calculate_output",
        what: `"${String(g.calculate_output)}"`,
        why: "only a weighted sum of the graders maps (Σ weight × grader); each grader is imported with weight 1",
      });
    for (const key of names) {
      const c = fromGrader({ ...graders[key], name: graders[key].name ?? key }, `graders.${key}`, unmapped);
      if (c) components.push({ ...c, name: key, weight: weights?.get(key) ?? (weights ? 0 : 1) } as RewardComponent);
    }
    components = components.filter((c) => c.weight !== 0);
  } else {
    const c = fromGrader(g, "", unmapped);
    if (c) components.push(c);
  }
  if (components.length === 0) return { doc: null, unmapped };
  return {
    doc: { description: `imported from an OpenAI ${g.type} grader${g.name ? ` "${String(g.name)}"` : ""}`, components },
    unmapped,
  };
}

function toGrader(c: RewardComponent, key: string, path: string, unmapped: Unmapped[]): Grader | null {
  const skip = (why: string) => (unmapped.push({ path, what: `${c.kind} component "${key}"`, why }), null);
  switch (c.kind) {
    case "format":
      return {
        type: "python",
        name: key,
        source: `import re\n\ndef grade(sample, item):\n    return 1.0 if re.search(${JSON.stringify(c.pattern)}, sample["output_text"]${c.flags.includes("i") ? ", re.I" : ""}) else 0.0\n`,
      };
    case "exact_match": {
      const n = c.normalize;
      if (c.pattern || c.reference || n.case || n.whitespace || n.thousands || n.currency)
        return skip(
          "string_check compares the whole reply with the item's reference as is: no extraction pattern, spec pointer or normalisation beyond trimming",
        );
      return {
        type: "string_check",
        name: key,
        operation: "eq",
        input: "{{ sample.output_text }}",
        reference: "{{ item.reference_output }}",
      };
    }
    case "judge": {
      if (c.simulated) return skip("a simulated judge has no model");
      if (c.prompt.includes("{{tools}}"))
        unmapped.push({
          path,
          what: `judge "${key}"'s {{tools}}`,
          why: "OpenAI graders see no tool calls: left out of the prompt",
        });
      const content = c.prompt
        .replaceAll("{{rubric}}", c.rubric)
        .replaceAll("{{reply}}", "{{ sample.output_text }}")
        .replaceAll("{{reference}}", "{{ item.reference_output }}")
        .replaceAll("{{input}}", "{{ item.input }}")
        .replaceAll("{{tools}}", "");
      return {
        type: "score_model",
        name: key,
        input: [{ role: "user", content }],
        ...(c.model ? { model: c.model } : {}),
        range: [0, 1],
        sampling_params: { temperature: c.temperature },
      };
    }
    case "code":
      return { type: "python", name: key, source: c.source + CAL_REWARD_ADAPTER };
    case "math":
      return skip("OpenAI graders have no numeric comparison with a tolerance");
    case "verifier":
      return skip("Verity's rule verifier reads the sandbox's record, which an OpenAI grader does not see");
  }
}

/** A version as an OpenAI grader (a multi when it has several components), and what did not map. */
export function exportGrader(doc: VersionDocument, name: string): { grader: Grader | null; unmapped: Unmapped[] } {
  const unmapped: Unmapped[] = [];
  const keyed = doc.components.map((c, i) => ({ c, key: (c.name ?? `${c.kind}_${i + 1}`).replace(/\W+/g, "_") }));
  const graders = keyed.flatMap(({ c, key }, i) => {
    const g = toGrader(c, key, `components.${i}`, unmapped);
    return g ? [{ key, weight: c.weight, g }] : [];
  });
  if (graders.length === 0) return { grader: null, unmapped };
  if (graders.length === 1 && graders[0].weight === 1) return { grader: { ...graders[0].g, name }, unmapped };
  return {
    grader: {
      type: "multi",
      name,
      graders: Object.fromEntries(graders.map((x) => [x.key, x.g])),
      calculate_output: graders.map((x) => `${x.weight} * ${x.key}`).join(" + "),
    },
    unmapped,
  };
}
