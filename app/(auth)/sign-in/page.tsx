import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { SignInForm } from "@/components/auth/sign-in-form.tsx";
import { oidcSettings } from "@/lib/auth/oidc.ts";
import { homePath } from "@/lib/auth/policy.ts";
import { nextPath } from "@/lib/auth/schema.ts";
import { getCurrentUser } from "@/lib/auth/session.ts";
import { env } from "@/lib/env.ts";

export const metadata: Metadata = { title: "Sign in" };

const SSO_ERRORS: Record<string, string> = {
  sso_state: "Single sign-on did not complete (the sign-in link expired or was used twice). Try again.",
  sso_token: "The identity provider's answer could not be verified. Try again or ask an admin.",
  sso_unavailable: "The identity provider could not be reached. Try again later or sign in with your password.",
  sso_no_account: "No enabled Verity account has the email your identity provider gave. Ask an admin to create one.",
};

export default async function SignInPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const sp = await searchParams;
  const next = nextPath.parse(typeof sp.next === "string" ? sp.next : undefined);
  const user = await getCurrentUser();
  if (user) redirect(next ?? homePath(user.role));
  const sso = oidcSettings(env()) !== null;
  const notice = typeof sp.error === "string" ? SSO_ERRORS[sp.error] : undefined;
  return (
    <div className="w-full max-w-sm rounded-md border border-border bg-bg p-6">
      <div className="mb-4">
        <div className="text-[15px] font-semibold tracking-tight">Verity</div>
        <h1 className="text-lg font-semibold">Sign in</h1>
      </div>
      <SignInForm next={next} notice={notice} />
      {sso && (
        <a
          href={next ? `/auth/oidc?${new URLSearchParams({ next })}` : "/auth/oidc"}
          className="mt-3 block rounded border border-border px-3 py-1.5 text-center hover:bg-bg-muted"
        >
          Sign in with single sign-on
        </a>
      )}
    </div>
  );
}
