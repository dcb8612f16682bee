// Reward function templates shipped with Verity, from the reward platform's documented examples: each a version
// document to start from (the editor's "Start from a template", `docs/rewards.md` "Templates"). The code templates
// come with the sandbox (lib/rewards/sandbox).

import { CODE_TEMPLATES } from "@/lib/rewards/templates/code.ts";

export type RewardTemplate = { id: string; title: string; doc: unknown };

export const CUSTOMER_SERVICE_RUBRIC = `Score the agent's handling of the customer's request from 0 to 1:
- 1: the request is resolved (or correctly handed to a human), every action the reply claims was really taken with
  the tools, amounts and order numbers are right, and the tone is courteous;
- 0.5: the request is partly resolved, or the reply is vague about what was done;
- 0: the reply claims an action no tool call took, gives wrong amounts, blames the customer, or ignores the request.`;

export const RULE_TEMPLATES: RewardTemplate[] = [
  {
    id: "status-code",
    title: 'Status code: the reply\'s {"status": N} equals the reference',
    doc: {
      description: "Extracts the status code from a JSON object in the reply and compares it with reference_output.",
      components: [{ kind: "exact_match", pattern: '\\{\\s*"status"\\s*:\\s*(\\d+)\\s*\\}' }],
    },
  },
  {
    id: "intent-label",
    title: 'Intent label: the reply\'s {"intent": "…"} equals the reference',
    doc: {
      description: "Extracts the intent label and compares it with reference_output, ignoring case.",
      components: [
        { kind: "exact_match", pattern: '\\{\\s*"intent"\\s*:\\s*"(.*?)"\\s*\\}', normalize: { case: true } },
      ],
    },
  },
  {
    id: "cot-format-zh",
    title: "Chain-of-thought format (Chinese): 分析过程：… 最终答案：…",
    doc: {
      description: "1 when the reply is an analysis followed by a final answer, in the Chinese headings.",
      components: [{ kind: "format", pattern: "^分析过程：[\\s\\S]+?最终答案：\\s*[\\s\\S]+$" }],
    },
  },
  {
    id: "cot-format-en",
    title: "Chain-of-thought format (English): Analysis: … Final answer: …",
    doc: {
      description: "1 when the reply is an analysis followed by a final answer.",
      components: [{ kind: "format", pattern: "^Analysis:[\\s\\S]+?Final answer:\\s*[\\s\\S]+$" }],
    },
  },
  {
    id: "math-answer",
    title: "Math answer: 0.2 × format + 0.8 × ANSWER: N equals the reference (1% tolerance)",
    doc: {
      description: "The reply ends with ANSWER: N; N is compared numerically with reference_output.",
      components: [
        { kind: "format", name: "format", weight: 0.2, pattern: "ANSWER:\\s*(\\d+\\.?\\d*)" },
        { kind: "math", name: "correct", weight: 0.8, pattern: "ANSWER:\\s*(\\d+\\.?\\d*)", tolerance: 0.01 },
      ],
    },
  },
  {
    id: "customer-service-rubric",
    title: "Customer service rubric (LLM judge)",
    doc: {
      description: "An LLM judge scores the conversation by the customer-service rubric.",
      components: [{ kind: "judge", rubric: CUSTOMER_SERVICE_RUBRIC, temperature: 0 }],
    },
  },
  {
    id: "verifier",
    title: "Verity's rule verifier (the built-in default config)",
    doc: { description: "The ledger's own verifier as a reward function.", components: [{ kind: "verifier" }] },
  },
];

/** Every template the editor offers: the rule and judge ones above, then the sandbox's code rewards. */
export const REWARD_TEMPLATES: RewardTemplate[] = [
  ...RULE_TEMPLATES,
  ...CODE_TEMPLATES.map((t) => ({
    id: `code-${t.id}`,
    title: `Code: ${t.name}`,
    doc: { description: t.description, components: [{ kind: "code", source: t.source }] },
  })),
];
