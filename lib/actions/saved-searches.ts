"use server";
// Server actions of saved searches: save the browser's search, rename or delete one of one's own. Anyone who reads
// the ledger may keep searches; each user sees and changes only their own (lib/saved-searches/mutations.ts).
import { revalidatePath } from "next/cache";
import { z } from "zod";
import { isForm, NOT_A_FORM, requireActionUser } from "@/lib/auth/guards.ts";
import { createSavedSearch, deleteSavedSearch, renameSavedSearch } from "@/lib/saved-searches/mutations.ts";
import {
  renameSavedSearchInput,
  savedSearchInput,
  savedSearchRef,
  type SavedSearchFormState,
} from "@/lib/saved-searches/schema.ts";

const formObject = (form: FormData) => Object.fromEntries([...form.keys()].map((k) => [k, form.get(k)]));
const invalid = (error: z.ZodError): SavedSearchFormState => ({
  ok: false,
  fieldErrors: z.flattenError(error).fieldErrors,
  message: "Fix the fields marked below.",
});
const refused = (r: { error: string; field?: string }): SavedSearchFormState => ({
  ok: false,
  message: r.error,
  fieldErrors: r.field ? { [r.field]: [r.error] } : undefined,
});

function revalidate() {
  revalidatePath("/monitors");
  revalidatePath("/clusters");
}

/** Saves the browser's search (name, its query, optionally its run and an alarm line). */
export async function saveSearchAction(_prev: SavedSearchFormState, form: FormData): Promise<SavedSearchFormState> {
  const me = await requireActionUser("ledger.read");
  if (!isForm(form)) return NOT_A_FORM;
  const parsed = savedSearchInput.safeParse(formObject(form));
  if (!parsed.success) return invalid(parsed.error);
  const r = await createSavedSearch(me.id, parsed.data);
  if (!r.ok) return refused(r);
  revalidate();
  return { ok: true, message: `Saved as "${parsed.data.name}".` };
}

/** Renames one of the user's saved searches. */
export async function renameSavedSearchAction(
  _prev: SavedSearchFormState,
  form: FormData,
): Promise<SavedSearchFormState> {
  const me = await requireActionUser("ledger.read");
  if (!isForm(form)) return NOT_A_FORM;
  const parsed = renameSavedSearchInput.safeParse(formObject(form));
  if (!parsed.success) return invalid(parsed.error);
  const r = await renameSavedSearch(me.id, parsed.data.id, parsed.data.name);
  if (!r.ok) return refused(r);
  revalidate();
  return { ok: true, message: `Renamed to "${parsed.data.name}".` };
}

/** Deletes one of the user's saved searches. */
export async function deleteSavedSearchAction(
  _prev: SavedSearchFormState,
  form: FormData,
): Promise<SavedSearchFormState> {
  const me = await requireActionUser("ledger.read");
  if (!isForm(form)) return NOT_A_FORM;
  const parsed = savedSearchRef.safeParse(formObject(form));
  if (!parsed.success) return invalid(parsed.error);
  const r = await deleteSavedSearch(me.id, parsed.data.id);
  if (!r.ok) return refused(r);
  revalidate();
  return { ok: true, message: "Deleted." };
}
