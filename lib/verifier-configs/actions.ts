"use server";
// The admin configs page's "Add a config" form: the same validation and storage as `verity config add`.
import { revalidatePath } from "next/cache";
import type { FormState } from "@/lib/admin/schema.ts";
import { requireActionUser } from "@/lib/auth/guards.ts";
import { addVerifierConfig } from "@/lib/verifier-configs/mutations.ts";
import { parseAddConfigForm } from "@/lib/verifier-configs/schema.ts";

export async function addConfigAction(_prev: FormState, form: FormData): Promise<FormState> {
  const me = await requireActionUser("configs.manage");
  const parsed = await parseAddConfigForm(form);
  if (!parsed.ok)
    return {
      ok: false,
      message: "Fix the fields marked below.",
      fieldErrors: parsed.fieldErrors,
      values: parsed.values,
    };
  const r = await addVerifierConfig(
    { name: parsed.name, config: parsed.config, makeDefault: parsed.makeDefault },
    { userId: me.id, email: me.email },
  );
  revalidatePath("/admin/configs");
  revalidatePath("/admin");
  const c = r.config;
  if (r.status === "unchanged") {
    return {
      ok: true,
      message: `Unchanged: this config is already stored as ${c.name} v${c.version}${r.defaultChanged ? ", now the default" : ""}.`,
    };
  }
  return { ok: true, message: `Stored ${c.name} v${c.version}${c.isDefault ? " as the default" : ""}.` };
}
