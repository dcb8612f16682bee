"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { changeRole, createUser, resetPassword, setUserDisabled } from "@/lib/admin/mutations.ts";
import {
  changeRoleInput,
  createUserInput,
  formObject,
  resetPasswordInput,
  setDisabledInput,
  type FormState,
} from "@/lib/admin/schema.ts";
import { describeTokenEffects } from "@/lib/admin/token-effects.ts";
import { isForm, NOT_A_FORM, requireActionUser } from "@/lib/auth/guards.ts";

const invalid = (error: z.ZodError, values?: Record<string, string>): FormState => ({
  ok: false,
  fieldErrors: z.flattenError(error).fieldErrors,
  message: "Fix the fields marked below.",
  values,
});

/** The typed values of the create-user form minus the password, to refill it after a refusal. */
const typed = (form: FormData) => ({
  email: String(form.get("email") ?? ""),
  name: String(form.get("name") ?? ""),
  role: String(form.get("role") ?? ""),
});

export async function createUserAction(_prev: FormState, form: FormData): Promise<FormState> {
  const me = await requireActionUser("users.manage");
  if (!isForm(form)) return NOT_A_FORM;
  const parsed = createUserInput.safeParse(formObject(form));
  if (!parsed.success) return invalid(parsed.error, typed(form));
  const r = await createUser(parsed.data, { userId: me.id, email: me.email });
  if (!r.ok)
    return {
      ok: false,
      message: r.error,
      fieldErrors: r.field ? { [r.field]: [r.error] } : undefined,
      values: typed(form),
    };
  revalidatePath("/admin/users");
  return { ok: true, message: `Created ${parsed.data.email} (${parsed.data.role}).` };
}

export async function changeRoleAction(_prev: FormState, form: FormData): Promise<FormState> {
  const me = await requireActionUser("users.manage");
  if (!isForm(form)) return NOT_A_FORM;
  const parsed = changeRoleInput.safeParse(formObject(form));
  if (!parsed.success) return invalid(parsed.error);
  const r = await changeRole(parsed.data.userId, parsed.data.role, { userId: me.id, email: me.email });
  if (!r.ok) return { ok: false, message: r.error };
  revalidatePath("/admin/users");
  revalidatePath("/admin/tokens");
  return { ok: true, message: `Role set to ${parsed.data.role}. ${describeTokenEffects(r.tokens)}`.trim() };
}

export async function setDisabledAction(_prev: FormState, form: FormData): Promise<FormState> {
  const me = await requireActionUser("users.manage");
  if (!isForm(form)) return NOT_A_FORM;
  const parsed = setDisabledInput.safeParse(formObject(form));
  if (!parsed.success) return invalid(parsed.error);
  const r = await setUserDisabled(parsed.data.userId, parsed.data.disabled, { userId: me.id, email: me.email });
  if (!r.ok) return { ok: false, message: r.error };
  revalidatePath("/admin/users");
  revalidatePath("/admin/tokens");
  const done = parsed.data.disabled ? "Disabled." : "Enabled.";
  return { ok: true, message: `${done} ${describeTokenEffects(r.tokens)}`.trim() };
}

export async function resetPasswordAction(_prev: FormState, form: FormData): Promise<FormState> {
  const me = await requireActionUser("users.manage");
  if (!isForm(form)) return NOT_A_FORM;
  const parsed = resetPasswordInput.safeParse(formObject(form));
  if (!parsed.success) return invalid(parsed.error);
  const r = await resetPassword(parsed.data.userId, parsed.data.password, { userId: me.id, email: me.email });
  if (!r.ok) return { ok: false, message: r.error };
  revalidatePath("/admin/users");
  return { ok: true, message: "Password reset. The user's sessions were ended." };
}
