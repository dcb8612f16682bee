"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { createApiToken, revokeApiToken } from "@/lib/admin/mutations.ts";
import { createTokenInput, formObject, revokeTokenInput, type FormState } from "@/lib/admin/schema.ts";
import { isForm, NOT_A_FORM, requireActionUser } from "@/lib/auth/guards.ts";

export async function createTokenAction(_prev: FormState, form: FormData): Promise<FormState> {
  const me = await requireActionUser("tokens.manage");
  if (!isForm(form)) return NOT_A_FORM;
  const parsed = createTokenInput.safeParse(formObject(form, ["scopes"]));
  if (!parsed.success) {
    return {
      ok: false,
      fieldErrors: z.flattenError(parsed.error).fieldErrors,
      message: "Fix the fields marked below.",
      values: { name: String(form.get("name") ?? ""), scopes: form.getAll("scopes").map(String).join(",") },
    };
  }
  const r = await createApiToken(parsed.data, { userId: me.id, email: me.email });
  revalidatePath("/admin/tokens");
  return {
    ok: true,
    token: r.token,
    message: `Created token “${parsed.data.name}”. Copy it now: it is not shown again.`,
  };
}

export async function revokeTokenAction(_prev: FormState, form: FormData): Promise<FormState> {
  const me = await requireActionUser("tokens.manage");
  if (!isForm(form)) return NOT_A_FORM;
  const parsed = revokeTokenInput.safeParse(formObject(form));
  if (!parsed.success) return { ok: false, message: "Missing token id." };
  const r = await revokeApiToken(parsed.data.tokenId, { userId: me.id, email: me.email });
  if (!r.ok) return { ok: false, message: r.error };
  revalidatePath("/admin/tokens");
  return { ok: true, message: "Revoked." };
}
