"use server";
// Server action of the clusters page: a lead (or admin) pins a cluster, sets its status, writes its note.
import { revalidatePath } from "next/cache";
import { z } from "zod";
import { isForm, NOT_A_FORM, requireActionUser } from "@/lib/auth/guards.ts";
import { setClusterState } from "@/lib/clusters/mutations.ts";
import { clusterStateInput, type FormState } from "@/lib/clusters/schema.ts";

export async function saveClusterStateAction(_prev: FormState, form: FormData): Promise<FormState> {
  // Triage of the data backlog is a lead's job, the same permission as managing audit batches.
  const me = await requireActionUser("audit.manage");
  if (!isForm(form)) return NOT_A_FORM;
  const parsed = clusterStateInput.safeParse({
    run: form.get("run"),
    key: form.get("key"),
    status: form.get("status"),
    pinned: form.get("pinned") ?? false,
    note: form.get("note") ?? "",
  });
  if (!parsed.success)
    return {
      ok: false,
      fieldErrors: z.flattenError(parsed.error).fieldErrors,
      message: "Fix the fields marked below.",
    };
  const r = await setClusterState(parsed.data, { userId: me.id, email: me.email });
  if (!r.ok) return { ok: false, message: r.error };
  revalidatePath("/clusters");
  return { ok: true, message: r.changed ? "Saved." : "No change." };
}
