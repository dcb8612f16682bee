"use server";
// The annotation form's server actions. None of them returns a ledger value: the draft autosave answers with the
// lease expiry, submit and skip answer with a redirect (submit to the reveal, skip to the next item).
import { redirect } from "next/navigation";
import { after } from "next/server";
import { annotationPath, claimNextItem, releaseLease } from "@/lib/review/leases.ts";
import { requireActionUser } from "@/lib/auth/guards.ts";
import { afterReview } from "@/lib/server/after-write.ts";
import { saveDraft, submitAnsweredReview } from "@/lib/review/mutations.ts";
import { firstIssue, saveDraftInput, skipInput, submitReviewInput } from "@/lib/review/schema.ts";

export type ActionAnswer = { ok: true; leaseExpiresAt?: string } | { ok: false; error: string; code?: string };

/** Debounced autosave from the form; renews the lease. */
export async function saveDraftAction(input: unknown): Promise<ActionAnswer> {
  const me = await requireActionUser("audit.review");
  const parsed = saveDraftInput.safeParse(input);
  if (!parsed.success) return { ok: false, error: firstIssue(parsed.error) };
  const r = await saveDraft(parsed.data.itemId, me.id, parsed.data.body, parsed.data.secondsSpent);
  return r.ok
    ? { ok: true, leaseExpiresAt: r.leaseExpiresAt.toISOString() }
    : { ok: false, error: r.error, code: r.code };
}

/** Submits the review (refused while a claim slot is unanswered); on success the same URL renders the reveal. */
export async function submitReviewAction(input: unknown): Promise<ActionAnswer> {
  const me = await requireActionUser("audit.review");
  const parsed = submitReviewInput.safeParse(input);
  if (!parsed.success) return { ok: false, error: firstIssue(parsed.error) };
  const { itemId, body, denied, secondsSpent } = parsed.data;
  const r = await submitAnsweredReview(itemId, { userId: me.id, email: me.email }, { body, denied, secondsSpent });
  if (!r.ok) return { ok: false, error: r.error, code: r.code };
  // The run's shadow-audit alarms read this review; evaluated once the annotator has their answer.
  after(() => afterReview(parsed.data.itemId));
  redirect(`/review?item=${parsed.data.itemId}`);
}

/** Gives the item back (offered to this user again only when nothing else is left) and leases the next one. */
export async function skipItemAction(input: unknown): Promise<ActionAnswer> {
  const me = await requireActionUser("audit.review");
  const parsed = skipInput.safeParse(input);
  if (!parsed.success) return { ok: false, error: "Missing item." };
  await releaseLease(parsed.data.itemId, me.id, { skip: true });
  const next = await claimNextItem(me.id, { batchId: parsed.data.batchId ?? null });
  redirect(next ? annotationPath(next) : "/queue?empty=1");
}
