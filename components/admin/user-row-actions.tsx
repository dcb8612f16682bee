"use client";

import { useActionState } from "react";
import { changeRoleAction, resetPasswordAction, setDisabledAction } from "@/lib/actions/admin-users.ts";
import type { FormState } from "@/lib/admin/schema.ts";
import { ROLES } from "@/lib/auth/policy.ts";
import { ActionForm, SmallButton } from "@/components/admin/action-form.tsx";
import { FieldError, FormMessage, inputClass, Options } from "@/components/ui/field.tsx";

export function RoleForm({ userId, email, role }: { userId: number; email: string; role: string }) {
  return (
    <ActionForm action={changeRoleAction} label={`Change the role of ${email}`}>
      <input type="hidden" name="userId" value={userId} />
      <select
        name="role"
        defaultValue={role}
        aria-label={`Role of ${email}`}
        className="rounded border border-border bg-bg px-1 py-0.5 text-[12px]"
      >
        <Options values={ROLES} />
      </select>
      <SmallButton>Save role</SmallButton>
    </ActionForm>
  );
}

export function DisableForm({ userId, disabled }: { userId: number; disabled: boolean }) {
  return (
    <ActionForm action={setDisabledAction}>
      <input type="hidden" name="userId" value={userId} />
      <input type="hidden" name="disabled" value={disabled ? "false" : "true"} />
      <SmallButton tone={disabled ? "neutral" : "bad"}>{disabled ? "Enable" : "Disable"}</SmallButton>
    </ActionForm>
  );
}

export function ResetPasswordForm({ userId, email }: { userId: number; email: string }) {
  const [state, action, pending] = useActionState<FormState, FormData>(resetPasswordAction, {});
  const id = `reset-${userId}`;
  return (
    <details>
      <summary className="cursor-pointer text-[12px] text-accent">Reset password</summary>
      <form action={action} className="mt-1 space-y-1" aria-busy={pending}>
        <input type="hidden" name="userId" value={userId} />
        <label htmlFor={id} className="block text-[12px]">
          New password for {email}
        </label>
        <input
          id={id}
          name="password"
          type="password"
          autoComplete="new-password"
          className={inputClass}
          aria-invalid={!!state.fieldErrors?.password}
          aria-describedby={`${id}-error`}
        />
        <FieldError id={`${id}-error`} errors={state.fieldErrors?.password} />
        <SmallButton>Set password</SmallButton>
        <FormMessage state={state} className="ml-1 text-[12px]" />
      </form>
    </details>
  );
}
