"use client";

import { useActionState, type ReactNode } from "react";
import type { FormState } from "@/lib/admin/schema.ts";
import { cn } from "@/components/ui/cn.ts";
import { FormMessage } from "@/components/ui/field.tsx";

type Action = (state: FormState, form: FormData) => Promise<FormState>;

/** A one-button (or one-field) form around a server action, with the action's answer shown beside it. */
export function ActionForm({
  action,
  children,
  className,
  label,
}: {
  action: Action;
  children: ReactNode;
  className?: string;
  label?: string;
}) {
  const [state, formAction, pending] = useActionState(action, {});
  return (
    <form
      action={formAction}
      className={cn("inline-flex items-center gap-1", className)}
      aria-label={label}
      aria-busy={pending}
    >
      {children}
      <FormMessage state={state} className="text-[12px]" />
    </form>
  );
}

export function SmallButton({ children, tone = "neutral" }: { children: ReactNode; tone?: "neutral" | "bad" }) {
  return (
    <button
      type="submit"
      className={cn(
        "rounded border px-2 py-0.5 text-[12px]",
        tone === "bad" ? "border-bad/40 text-bad hover:bg-bad-bg" : "border-border hover:bg-bg-muted",
      )}
    >
      {children}
    </button>
  );
}
