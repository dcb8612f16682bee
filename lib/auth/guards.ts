// How pages and server actions ask the policy. Signed out → the sign-in page (coming back here afterwards);
// signed in but not allowed → 403 via Next's forbidden() (the nearest forbidden.tsx renders).
import { headers } from "next/headers";
import type { ReactNode } from "react";
import { forbidden, redirect } from "next/navigation";
import type { SessionUser } from "@/lib/auth/data.ts";
import { can, type Action } from "@/lib/auth/policy.ts";
import { PATH_HEADER } from "@/lib/auth/proxy-headers.ts";
import { getCurrentUser } from "@/lib/auth/session.ts";

export function signInHref(next?: string | null): string {
  return next && next !== "/" ? `/sign-in?${new URLSearchParams({ next })}` : "/sign-in";
}

async function signInRedirect(): Promise<never> {
  redirect(signInHref((await headers()).get(PATH_HEADER)));
}

/**
 * First line of every console page: `const user = await requirePageUser("ledger.read")`. Without an action it only
 * requires a signed-in user. Await it before anything streams, so the response carries 307 or 403.
 */
export async function requirePageUser(action?: Action): Promise<SessionUser> {
  const user = await getCurrentUser();
  if (!user) return signInRedirect();
  if (action && !can(user.role, action)) forbidden();
  return user;
}

/**
 * A console section's layout.tsx when the section streams behind a loading.tsx: a streamed page has already answered
 * 200, so the role is settled here, outside that boundary, and a forbidden caller still gets 403. `action` is the one
 * its pages ask (they keep their own check too). `export default sectionLayout("ledger.read")`.
 */
export function sectionLayout(action: Action) {
  return async function SectionLayout({ children }: { children: ReactNode }) {
    await requirePageUser(action);
    return children;
  };
}

/** First line of every server action that changes something: same rule as pages. */
export async function requireActionUser(action: Action): Promise<SessionUser> {
  const user = await getCurrentUser();
  if (!user) redirect("/sign-in");
  if (!can(user.role, action)) forbidden();
  return user;
}

/** What a form's action answers when called with something else than its form (JSON arguments, nothing). */
export const NOT_A_FORM = {
  ok: false,
  message: "Send this form's fields as a form (multipart/form-data), not as other arguments.",
} as const;

/**
 * Whether a server action's argument is the form it expects. Anyone can call an action with arguments of their
 * choosing (JSON in a fetch action), so each form action checks before it reads a field.
 */
export function isForm(form: unknown): form is FormData {
  return form instanceof FormData;
}
