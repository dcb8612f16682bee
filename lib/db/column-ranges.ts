// The ranges of PostgreSQL's integer columns, for the boundaries that turn a parameter into a step, a batch id or an
// item id. A number past its column sent to the database fails the whole query (22003 "out of range": a 500, or a
// download that dies after its 200), so each schema caps the number at its column and names the parameter instead.
// Only zod: the forms' schemas use it in the browser too.
import { z } from "zod";

/** int4 (`Int` in schema.prisma): steps, batch, user, token, config and case ids (said once, with the wire limits). */
export { INT4_MAX } from "@/lib/verifier/limits.ts";
/** int8 (`BigInt`): rollout, ledger entry, audit item, review and activity ids. */
export const INT8_MAX = 9_223_372_036_854_775_807n;

/** Whether a string of decimal digits names a number an int8 column can hold. */
export function fitsInt8(digits: string): boolean {
  return /^\d{1,19}$/.test(digits) && BigInt(digits) <= INT8_MAX;
}

/** An int8 id as its decimal digits (a URL or form field): past the column's maximum no row can have it. */
export function int8Digits(message: string) {
  return z
    .string()
    .regex(/^\d{1,19}$/, message)
    .refine(fitsInt8, message);
}

/** An int8 id from a form or an action's input (digits, a safe integer or a bigint), as a bigint. */
export function int8Id(message: string) {
  return z
    .union([int8Digits(message), z.number().int().positive().max(Number.MAX_SAFE_INTEGER), z.bigint()], {
      error: message,
    })
    .transform((v) => BigInt(v))
    .refine((v) => v >= 0n && v <= INT8_MAX, message);
}
