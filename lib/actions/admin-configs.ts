"use server";

import { revalidatePath } from "next/cache";
import { setDefaultConfig } from "@/lib/admin/mutations.ts";
import { formObject, setDefaultConfigInput, type FormState } from "@/lib/admin/schema.ts";
import { isForm, NOT_A_FORM, requireActionUser } from "@/lib/auth/guards.ts";

export async function setDefaultConfigAction(_prev: FormState, form: FormData): Promise<FormState> {
  const me = await requireActionUser("configs.manage");
  if (!isForm(form)) return NOT_A_FORM;
  const parsed = setDefaultConfigInput.safeParse(formObject(form));
  if (!parsed.success) return { ok: false, message: "Missing config id." };
  const r = await setDefaultConfig(parsed.data.configId, { userId: me.id, email: me.email });
  if (!r.ok) return { ok: false, message: r.error };
  revalidatePath("/admin/configs");
  return { ok: true, message: "Default config changed." };
}
