"use client";

import { useActionState } from "react";
import { createTokenAction, revokeTokenAction } from "@/lib/actions/admin-tokens.ts";
import type { FormState } from "@/lib/admin/schema.ts";
import { TOKEN_SCOPES } from "@/lib/auth/policy.ts";
import { ActionForm, SmallButton } from "@/components/admin/action-form.tsx";
import { FieldError, inputClass, TextField } from "@/components/ui/field.tsx";

const SCOPE_HELP: Record<(typeof TOKEN_SCOPES)[number], string> = {
  ingest: "post rollouts and score records",
  read: "read the ledger over the API",
};

export function CreateTokenForm() {
  const [state, action, pending] = useActionState<FormState, FormData>(createTokenAction, {});
  const err = state.fieldErrors ?? {};
  return (
    <div className="p-3">
      {/* The key remounts the fields with what was typed when a submission is refused (React resets forms after actions). */}
      <form
        key={JSON.stringify(state.values ?? {})}
        action={action}
        className="space-y-2"
        aria-label="Create API token"
        noValidate
      >
        <TextField
          id="token-name"
          label="Token name"
          name="name"
          defaultValue={state.values?.name}
          className={inputClass}
          errors={err.name}
        />
        <fieldset aria-describedby="token-scopes-error">
          <legend className="mb-1 text-[12px] font-medium">Scopes</legend>
          {TOKEN_SCOPES.map((s) => (
            <label key={s} className="mr-4 inline-flex items-center gap-1">
              <input
                type="checkbox"
                name="scopes"
                value={s}
                defaultChecked={state.values ? state.values.scopes.split(",").includes(s) : s === "ingest"}
              />{" "}
              {s}
              <span className="text-[11px] text-fg-subtle">({SCOPE_HELP[s]})</span>
            </label>
          ))}
          <FieldError id="token-scopes-error" errors={err.scopes} />
        </fieldset>
        <button
          type="submit"
          disabled={pending}
          className="rounded bg-accent px-3 py-1 font-medium text-accent-fg disabled:opacity-60"
        >
          Create token
        </button>
        {state.message && !state.token && (
          <span role="alert" className="ml-2 text-bad">
            {state.message}
          </span>
        )}
      </form>
      {state.token && (
        <div role="status" className="mt-3 rounded border border-good/40 bg-good-bg p-2">
          <p className="text-good">{state.message}</p>
          <label htmlFor="new-token" className="mt-1 block text-[12px] font-medium">
            New token
          </label>
          <input
            id="new-token"
            readOnly
            value={state.token}
            className={`${inputClass} font-mono`}
            onFocus={(e) => e.currentTarget.select()}
          />
        </div>
      )}
    </div>
  );
}

export function RevokeTokenForm({ tokenId, name }: { tokenId: number; name: string }) {
  return (
    <ActionForm action={revokeTokenAction} label={`Revoke ${name}`}>
      <input type="hidden" name="tokenId" value={tokenId} />
      <SmallButton tone="bad">Revoke</SmallButton>
    </ActionForm>
  );
}
