"use client";

import { useActionState } from "react";
import { createUserAction } from "@/lib/admin/user-actions.ts";
import type { FormState } from "@/lib/admin/schema.ts";
import { ROLES } from "@/lib/auth/policy.ts";
import { FieldError, FormMessage, inputClass } from "@/components/ui/field.tsx";

export function CreateUserForm() {
  const [state, action, pending] = useActionState<FormState, FormData>(createUserAction, {});
  const err = state.fieldErrors ?? {};
  const v = state.values ?? {};
  return (
    // The key remounts the fields with what was typed when a submission is refused (React resets forms after actions).
    <form
      key={JSON.stringify(v)}
      action={action}
      className="grid gap-2 p-3 md:grid-cols-2"
      aria-label="Create user"
      noValidate
    >
      <div>
        <label htmlFor="new-email" className="mb-1 block text-[12px] font-medium">
          Email
        </label>
        <input
          id="new-email"
          name="email"
          type="email"
          defaultValue={v.email}
          className={inputClass}
          aria-invalid={!!err.email}
          aria-describedby="new-email-error"
        />
        <FieldError id="new-email-error" errors={err.email} />
      </div>
      <div>
        <label htmlFor="new-name" className="mb-1 block text-[12px] font-medium">
          Name
        </label>
        <input
          id="new-name"
          name="name"
          defaultValue={v.name}
          className={inputClass}
          aria-invalid={!!err.name}
          aria-describedby="new-name-error"
        />
        <FieldError id="new-name-error" errors={err.name} />
      </div>
      <div>
        <label htmlFor="new-role" className="mb-1 block text-[12px] font-medium">
          Role
        </label>
        <select
          id="new-role"
          name="role"
          defaultValue={v.role || "researcher"}
          className={inputClass}
          aria-invalid={!!err.role}
          aria-describedby="new-role-error"
        >
          {ROLES.map((r) => (
            <option key={r} value={r}>
              {r}
            </option>
          ))}
        </select>
        <FieldError id="new-role-error" errors={err.role} />
      </div>
      <div>
        <label htmlFor="new-password" className="mb-1 block text-[12px] font-medium">
          Initial password
        </label>
        <input
          id="new-password"
          name="password"
          type="password"
          autoComplete="new-password"
          className={inputClass}
          aria-invalid={!!err.password}
          aria-describedby="new-password-error"
        />
        <FieldError id="new-password-error" errors={err.password} />
      </div>
      <div className="flex items-center gap-2 md:col-span-2">
        <button
          type="submit"
          disabled={pending}
          className="rounded bg-accent px-3 py-1 font-medium text-accent-fg disabled:opacity-60"
        >
          Create user
        </button>
        <FormMessage state={state} />
      </div>
    </form>
  );
}
