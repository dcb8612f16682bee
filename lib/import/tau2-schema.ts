// The parts of a tau2-bench results file (src/tau2/data_model/simulation.py `Results`, tasks.py `Task`,
// message.py) that the importer reads, as zod schemas. Loose: tau2-bench adds fields between versions (costs,
// audio, usage), and the importer keeps to the ones it maps. Every field it reads is checked here, so a bad one is
// reported at its own JSON path (`simulations[12].messages[3].tool_calls[0].arguments`).
import { z } from "zod";
import { idSchema } from "@/lib/verifier/schema.ts";

const isJsonObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v) && Object.getPrototypeOf(v) === Object.prototype;
const jsonObject = z.custom<Record<string, unknown>>(isJsonObject, { error: "expected an object" });
const text = z.string().nullable().optional();
/** tau2-bench ids are strings; a number is taken as its decimal spelling. */
const tau2Id = z.union([z.string().min(1, "expected a non-empty id"), z.number().transform(String)], {
  error: "expected a string id",
});
const requestor = z.enum(["assistant", "user"]).default("assistant");

export const tau2ActionSchema = z.looseObject({
  action_id: z.string().nullable().optional(),
  requestor,
  name: idSchema,
  arguments: jsonObject,
  compare_args: z.array(z.string()).nullable().optional(),
});

const instructionsSchema = z.union(
  [
    z.string(),
    z.looseObject({
      domain: text,
      reason_for_call: z.string(),
      known_info: text,
      unknown_info: text,
      task_instructions: text,
    }),
  ],
  { error: "expected the user's instructions: a string, or an object with reason_for_call" },
);

export const tau2TaskSchema = z.looseObject({
  id: tau2Id,
  description: z.looseObject({ purpose: text }).nullable().optional(),
  user_scenario: z.looseObject({ persona: text, instructions: instructionsSchema }),
  ticket: text,
  evaluation_criteria: z
    .looseObject({
      actions: z.array(tau2ActionSchema).nullable().optional(),
      communicate_info: z.array(z.string()).nullable().optional(),
      nl_assertions: z.array(z.string()).nullable().optional(),
      reward_basis: z.array(z.string()).nullable().optional(),
    })
    .nullable()
    .optional(),
});

const toolCallSchema = z.looseObject({
  id: z.string().nullable().optional(),
  name: idSchema,
  arguments: jsonObject,
  requestor,
});

const toolMessageSchema = z.looseObject({
  role: z.literal("tool"),
  id: z.string({ error: "expected the id of the tool call this message answers" }),
  content: text,
  requestor,
  error: z.boolean().nullable().optional(),
});

export const tau2MessageSchema = z.looseObject({
  role: z.enum(["system", "assistant", "user", "tool"], {
    error: "expected role system, assistant, user or tool",
  }),
  content: text,
  tool_calls: z.array(toolCallSchema).nullable().optional(),
  // A tool message answers the call with this id; a MultiToolMessage carries several in tool_messages.
  id: z.string().nullable().optional(),
  error: z.boolean().nullable().optional(),
  requestor: z.enum(["assistant", "user"]).nullable().optional(),
  tool_messages: z.array(toolMessageSchema).nullable().optional(),
});

export const tau2SimulationSchema = z.looseObject({
  id: z.string().nullable().optional(),
  task_id: tau2Id,
  trial: z.number().int().nonnegative().nullable().optional(),
  termination_reason: text,
  messages: z.array(z.unknown()),
  reward_info: z
    .looseObject({ reward: z.number({ error: "expected tau2-bench's reward, a number" }) })
    .nullable()
    .optional(),
});

export type Tau2Action = z.infer<typeof tau2ActionSchema>;
export type Tau2Task = z.infer<typeof tau2TaskSchema>;
export type Tau2Message = z.infer<typeof tau2MessageSchema>;
export type Tau2Simulation = z.infer<typeof tau2SimulationSchema>;

/** `messages.3.tool_calls.0` under `simulations[12]` → `simulations[12].messages[3].tool_calls[0]`. */
export function jsonPath(prefix: string, dotted: string): string {
  if (!dotted) return prefix;
  return dotted
    .split(".")
    .reduce((acc, seg) => (/^\d+$/.test(seg) ? `${acc}[${seg}]` : acc ? `${acc}.${seg}` : seg), prefix);
}
