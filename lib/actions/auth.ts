"use server";

import { redirect } from "next/navigation";
import { z } from "zod";
import { isForm, NOT_A_FORM } from "@/lib/auth/guards.ts";
import { homePath } from "@/lib/auth/policy.ts";
import { endSession, signInWithPassword } from "@/lib/auth/mutations.ts";
import { signInInput, type SignInState } from "@/lib/auth/schema.ts";
import { clearSessionCookie, currentSessionId, requestIp, setSessionCookie } from "@/lib/auth/session.ts";

/** The sign-in form's action (useActionState). Field errors for malformed input; one generic message for wrong credentials. */
export async function signIn(_prev: SignInState, form: FormData): Promise<SignInState> {
  if (!isForm(form)) return { error: NOT_A_FORM.message };
  const raw = {
    email: form.get("email") ?? "",
    password: form.get("password") ?? "",
    next: form.get("next") || undefined,
  };
  const parsed = signInInput.safeParse(raw);
  if (!parsed.success) {
    const f = z.flattenError(parsed.error).fieldErrors;
    return { fieldErrors: { email: f.email, password: f.password }, email: String(raw.email) };
  }
  const result = await signInWithPassword({
    email: parsed.data.email,
    password: parsed.data.password,
    ip: await requestIp(),
  });
  if (!result.ok) return { error: result.message, email: parsed.data.email };
  await setSessionCookie(result.session.token, result.session.expiresAt);
  redirect(parsed.data.next ?? homePath(result.user.role));
}

export async function signOut(): Promise<void> {
  const id = await currentSessionId();
  if (id) await endSession(id);
  await clearSessionCookie();
  redirect("/sign-in");
}
