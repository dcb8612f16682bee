/** Shared look of form inputs, the error line under a field (linked to it by aria-describedby), and a form's answer. */
import type { InputHTMLAttributes, ReactNode } from "react";
import { cn } from "@/components/ui/cn.ts";

export const inputClass =
  "w-full rounded border border-border bg-bg px-2 py-1 text-[13px] outline-none focus:border-accent aria-[invalid=true]:border-bad";

export function FieldError({ id, errors }: { id: string; errors?: string[] }) {
  if (!errors?.length) return null;
  return (
    <p id={id} className="mt-1 text-[12px] text-bad">
      {errors.join(" ")}
    </p>
  );
}

/** What a form's action answered: announced politely when it worked, as an alert when it did not. */
export function FormMessage({
  state,
  className,
  block,
}: {
  state: { ok?: boolean; message?: string };
  className?: string;
  block?: boolean;
}) {
  if (!state.message) return null;
  const Tag = block ? "p" : "span";
  return (
    <Tag role={state.ok ? "status" : "alert"} className={cn(className, state.ok ? "text-good" : "text-bad")}>
      {state.message}
    </Tag>
  );
}

/** A labelled field: the label above its control, and the control's error line (`<id>-error`) below. */
export function Labeled({
  id,
  label,
  errors,
  className,
  children,
}: {
  id: string;
  label: ReactNode;
  errors?: string[];
  className?: string;
  children: ReactNode;
}) {
  return (
    <div className={className}>
      <label htmlFor={id} className="mb-1 block text-[12px] font-medium">
        {label}
      </label>
      {children}
      <FieldError id={`${id}-error`} errors={errors} />
    </div>
  );
}

/** An input in a Labeled field, marked invalid and described by its error line. */
export function TextField({
  id,
  label,
  errors,
  className = inputClass,
  ...input
}: Omit<InputHTMLAttributes<HTMLInputElement>, "id"> & { id: string; label: ReactNode; errors?: string[] }) {
  return (
    <Labeled id={id} label={label} errors={errors}>
      <input id={id} className={className} aria-invalid={!!errors} aria-describedby={`${id}-error`} {...input} />
    </Labeled>
  );
}

/** The options of a select whose values are shown as they are. */
export function Options({ values }: { values: readonly string[] }) {
  return values.map((v) => (
    <option key={v} value={v}>
      {v}
    </option>
  ));
}
