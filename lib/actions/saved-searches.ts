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

/**
 * The shape of every saved-search action: the signed-in reader, the form parsed by `schema`, the write on their own
 * searches, and the answer (the write's refusal at its field, or `done`'s sentence).
 */
async function ownWrite<T>(
  form: FormData,
  schema: z.ZodType<T>,
  write: (userId: number, input: T) => Promise<{ ok: true } | { ok: false; error: string; field?: string }>,
  done: (input: T) => string,
): Promise<SavedSearchFormState> {
  const me = await requireActionUser("ledger.read");
  if (!isForm(form)) return NOT_A_FORM;
  const parsed = schema.safeParse(formObject(form));
  if (!parsed.success) return invalid(parsed.error);
  const r = await write(me.id, parsed.data);
  if (!r.ok) return refused(r);
  revalidate();
  return { ok: true, message: done(parsed.data) };
}

/** Saves the browser's search (name, its query, optionally its run and an alarm line). */
export async function saveSearchAction(_prev: SavedSearchFormState, form: FormData): Promise<SavedSearchFormState> {
  return ownWrite(form, savedSearchInput, createSavedSearch, (s) => `Saved as "${s.name}".`);
}

/** Renames one of the user's saved searches. */
export async function renameSavedSearchAction(
  _prev: SavedSearchFormState,
  form: FormData,
): Promise<SavedSearchFormState> {
  return ownWrite(
    form,
    renameSavedSearchInput,
    (userId, s) => renameSavedSearch(userId, s.id, s.name),
    (s) => `Renamed to "${s.name}".`,
  );
}

/** Deletes one of the user's saved searches. */
export async function deleteSavedSearchAction(
  _prev: SavedSearchFormState,
  form: FormData,
): Promise<SavedSearchFormState> {
  return ownWrite(
    form,
    savedSearchRef,
    (userId, s) => deleteSavedSearch(userId, s.id),
    () => "Deleted.",
  );
}
