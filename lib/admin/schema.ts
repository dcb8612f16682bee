import { z } from "zod";
import { ROLES, TOKEN_SCOPES } from "@/lib/auth/policy.ts";
import { emailField } from "@/lib/auth/schema.ts";
import { INT4_MAX, int8Digits } from "@/lib/db/column-ranges.ts";

const id = z.coerce.number({ error: "Missing id." }).int().positive().max(INT4_MAX);

/** New passwords (admin reset, user creation, CLI). The demo users' "verity" predates this rule on purpose. */
export const passwordField = z
  .string({ error: "Enter a password." })
  .min(10, { error: "At least 10 characters." })
  .max(256, { error: "At most 256 characters." });

export const roleField = z.enum(ROLES, { error: `Pick a role: ${ROLES.join(", ")}.` });

export const createUserInput = z.object({
  email: emailField,
  name: z.string().trim().max(100, { error: "At most 100 characters." }).default(""),
  role: roleField,
  password: passwordField,
});
export type CreateUserInput = z.infer<typeof createUserInput>;

export const changeRoleInput = z.object({ userId: id, role: roleField });
export const setDisabledInput = z.object({
  userId: id,
  disabled: z.enum(["true", "false"]).transform((v) => v === "true"),
});
export const resetPasswordInput = z.object({ userId: id, password: passwordField });

export const createTokenInput = z.object({
  name: z
    .string({ error: "Name the token." })
    .trim()
    .min(1, { error: "Name the token (e.g. “training pipeline”)." })
    .max(100, { error: "At most 100 characters." }),
  scopes: z
    .array(z.enum(TOKEN_SCOPES, { error: `Scopes are ${TOKEN_SCOPES.join(" and ")}.` }))
    .min(1, { error: "Pick at least one scope." }),
});
export const revokeTokenInput = z.object({ tokenId: id });
export const setDefaultConfigInput = z.object({ configId: id });

const day = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, "must be a date like 2025-01-31")
  .refine((s) => !Number.isNaN(Date.parse(`${s}T00:00:00Z`)), "must be a real date");

/** Filters of the activity-log page (URL search params). Dates are whole UTC days, both ends included. */
export const activityLogQuery = z.object({
  action: z
    .string()
    .trim()
    .max(100)
    .optional()
    .transform((s) => s || undefined),
  actor: z
    .string()
    .trim()
    .toLowerCase()
    .max(254)
    .optional()
    .transform((s) => s || undefined),
  from: day.optional().or(z.literal("").transform(() => undefined)),
  to: day.optional().or(z.literal("").transform(() => undefined)),
  before: int8Digits("must be an activity-log entry id")
    .transform((s) => BigInt(s))
    .optional(),
});
export type ActivityLogQuery = z.infer<typeof activityLogQuery>;

/** What a form action returns to its form (useActionState): field errors, a message, or success. */
export type FormState = {
  ok?: boolean;
  message?: string;
  fieldErrors?: Record<string, string[] | undefined>;
  /** A new API token, shown once. */
  token?: string;
  /** What was typed (never a password), to refill the form after a refused submission. */
  values?: Record<string, string>;
};

/** FormData → plain object for a schema; repeated keys (checkboxes) become arrays when `arrays` names them. */
export function formObject(form: FormData, arrays: string[] = []): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of new Set(form.keys())) {
    if (key.startsWith("$ACTION")) continue;
    out[key] = arrays.includes(key) ? form.getAll(key).map(String) : String(form.get(key));
  }
  for (const key of arrays) out[key] ??= [];
  return out;
}
