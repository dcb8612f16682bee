import { z } from "zod";

/** URL search params of the trajectory browser. Bad values are reported, not ignored. */
export const ledgerPageParams = z.object({
  run: z.string().min(1).max(200).optional(),
  before: z
    .string()
    .regex(/^\d{1,19}$/, "must be a ledger entry id")
    .transform((s) => BigInt(s))
    .optional(),
  limit: z.coerce.number().int().min(1).max(500).optional(),
});
