// One spec change for many cases (the bulk fix from a cluster): set the hand-off mode and/or add a required write.
// Pure. The change is applied to each case's current spec; a required write the spec already has (same tool and
// arguments) is not added twice.
import { z } from "zod";
import { HANDOFF_MODES } from "@/lib/verifier/codes.ts";

const jsonObject = z.record(z.string(), z.unknown());

export const specChangeSchema = z
  .strictObject({
    handoff: z.enum(HANDOFF_MODES, { message: `must be one of ${HANDOFF_MODES.join(", ")}` }).optional(),
    addRequiredWrite: z
      .strictObject({
        tool: z.string({ error: "must be a tool name" }).min(1, "must be a tool name").max(200),
        args: jsonObject.optional(),
      })
      .optional(),
  })
  .refine((c) => c.handoff !== undefined || c.addRequiredWrite !== undefined, {
    message: "name a change: handoff, addRequiredWrite, or both",
  });
export type SpecChange = z.infer<typeof specChangeSchema>;

const same = (a: unknown, b: unknown) => JSON.stringify(a ?? {}) === JSON.stringify(b ?? {});

/** The spec with the change applied (a new object; the input is not modified). */
export function applySpecChange(spec: Record<string, unknown>, change: SpecChange): Record<string, unknown> {
  const out: Record<string, unknown> = { ...spec };
  if (change.handoff !== undefined) out.handoff = change.handoff;
  const w = change.addRequiredWrite;
  if (w) {
    const writes = Array.isArray(spec.required_writes) ? (spec.required_writes as Record<string, unknown>[]) : [];
    const has = writes.some((x) => x.tool === w.tool && same(x.args, w.args));
    out.required_writes = has ? writes : [...writes, w.args ? { tool: w.tool, args: w.args } : { tool: w.tool }];
  }
  return out;
}

/** "handoff: not_allowed, required write issue_refund": the change as the activity log and the CLI say it. */
export function describeSpecChange(c: SpecChange): string {
  return [
    ...(c.handoff ? [`handoff: ${c.handoff}`] : []),
    ...(c.addRequiredWrite ? [`required write ${c.addRequiredWrite.tool}`] : []),
  ].join(", ");
}
