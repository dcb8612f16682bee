/** Shared look of form inputs, and the error line under a field (linked to it by aria-describedby). */
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
