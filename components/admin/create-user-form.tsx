"use client";

import { useActionState } from "react";
import { createUserAction } from "@/lib/actions/admin-users.ts";
import type { FormState } from "@/lib/admin/schema.ts";
import { ROLES } from "@/lib/auth/policy.ts";
import { FormMessage, inputClass, Labeled, Options, TextField } from "@/components/ui/field.tsx";

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
      <TextField
        id="new-email"
        label="Email"
        name="email"
        type="email"
        defaultValue={v.email}
        className={inputClass}
        errors={err.email}
      />
      <TextField
        id="new-name"
        label="Name"
        name="name"
        defaultValue={v.name}
        className={inputClass}
        errors={err.name}
      />
      <Labeled id="new-role" label="Role" errors={err.role}>
        <select
          id="new-role"
          name="role"
          defaultValue={v.role || "researcher"}
          className={inputClass}
          aria-invalid={!!err.role}
          aria-describedby="new-role-error"
        >
          <Options values={ROLES} />
        </select>
      </Labeled>
      <TextField
        id="new-password"
        label="Initial password"
        name="password"
        type="password"
        autoComplete="new-password"
        className={inputClass}
        errors={err.password}
      />
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
