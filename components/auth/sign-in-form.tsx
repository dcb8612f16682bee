"use client";

import { useActionState } from "react";
import { signIn } from "@/lib/actions/auth.ts";
import type { SignInState } from "@/lib/auth/schema.ts";
import { FieldError, inputClass } from "@/components/ui/field.tsx";

export function SignInForm({ next, notice }: { next?: string; notice?: string }) {
  const [state, action, pending] = useActionState<SignInState, FormData>(signIn, {});
  const message = state.error ?? notice;
  return (
    <form action={action} className="space-y-3" noValidate>
      {message && (
        <p role="alert" className="rounded border border-bad/40 bg-bad-bg px-3 py-2 text-bad">
          {message}
        </p>
      )}
      {next && <input type="hidden" name="next" value={next} />}
      <div>
        <label htmlFor="email" className="mb-1 block text-[12px] font-medium">
          Email
        </label>
        <input
          id="email"
          name="email"
          type="email"
          autoComplete="username"
          required
          defaultValue={state.email}
          aria-invalid={!!state.fieldErrors?.email}
          aria-describedby={state.fieldErrors?.email ? "email-error" : undefined}
          className={inputClass}
        />
        <FieldError id="email-error" errors={state.fieldErrors?.email} />
      </div>
      <div>
        <label htmlFor="password" className="mb-1 block text-[12px] font-medium">
          Password
        </label>
        <input
          id="password"
          name="password"
          type="password"
          autoComplete="current-password"
          required
          aria-invalid={!!state.fieldErrors?.password}
          aria-describedby={state.fieldErrors?.password ? "password-error" : undefined}
          className={inputClass}
        />
        <FieldError id="password-error" errors={state.fieldErrors?.password} />
      </div>
      <button
        type="submit"
        disabled={pending}
        className="w-full rounded bg-accent px-3 py-1.5 font-medium text-accent-fg disabled:opacity-60"
      >
        Sign in
      </button>
    </form>
  );
}
