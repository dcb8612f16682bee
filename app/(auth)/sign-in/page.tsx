import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { DemoSignIns } from "@/components/auth/demo-sign-ins.tsx";
import { SignInForm } from "@/components/auth/sign-in-form.tsx";
import { listDemoSignIns } from "@/lib/auth/data.ts";
import { oidcErrorMessage, oidcSettings } from "@/lib/auth/oidc.ts";
import { homePath } from "@/lib/auth/policy.ts";
import { nextPath } from "@/lib/auth/schema.ts";
import { getCurrentUser } from "@/lib/auth/session.ts";
import { env } from "@/lib/env.ts";

export const metadata: Metadata = { title: "Sign in" };

export default async function SignInPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const sp = await searchParams;
  const next = nextPath.parse(typeof sp.next === "string" ? sp.next : undefined);
  const user = await getCurrentUser();
  if (user) redirect(next ?? homePath(user.role));
  const sso = oidcSettings(env()) !== null;
  const notice = typeof sp.error === "string" ? oidcErrorMessage(sp.error) : undefined;
  const demo = await listDemoSignIns();
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
      <DemoSignIns accounts={demo} />
    </div>
  );
}
