"use server";
// The pairwise page's server action. It answers with an error or a redirect to the reveal, never a ledger value.
import { redirect } from "next/navigation";
import { after } from "next/server";
import { requireActionUser } from "@/lib/auth/guards.ts";
import { afterReview } from "@/lib/server/after-write.ts";
import { submitPairReview } from "@/lib/pairwise/mutations.ts";
import { submitPairInput } from "@/lib/pairwise/schema.ts";

export type PairActionAnswer = { ok: false; error: string; code?: string };

/** Submits the judgement; on success the same URL renders the reveal. */
export async function submitPairAction(input: unknown): Promise<PairActionAnswer> {
  const me = await requireActionUser("audit.review");
  const parsed = submitPairInput.safeParse(input);
  if (!parsed.success) return { ok: false, error: parsed.error.issues[0]?.message ?? "The judgement is incomplete." };
  const r = await submitPairReview(
    parsed.data.itemId,
    { userId: me.id, email: me.email },
    parsed.data.body,
    parsed.data.secondsSpent,
  );
  if (!r.ok) return { ok: false, error: r.error, code: r.code };
  // The run's ordering-agreement alarm reads this judgement; evaluated once the annotator has their answer.
  after(() => afterReview(parsed.data.itemId));
  redirect(`/pairwise?item=${parsed.data.itemId}`);
}
