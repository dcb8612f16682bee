import { UNRESOLVED, isPointer, resolvePointer } from "@/lib/verifier/pointers.ts";

export type PointerRow = { field: string; pointer: string; resolved: boolean; value: unknown };

/** Every pointer of a verifier spec with the dotted field it sits in and its value in the snapshot. */
export function listSpecPointers(spec: unknown, snapshot: unknown): PointerRow[] {
  const rows: PointerRow[] = [];
  const walk = (v: unknown, path: string) => {
    if (isPointer(v)) {
      const r = resolvePointer(v, snapshot);
      rows.push({ field: path, pointer: v, resolved: r !== UNRESOLVED, value: r === UNRESOLVED ? null : r });
    } else if (Array.isArray(v)) v.forEach((x, i) => walk(x, path ? `${path}.${i}` : String(i)));
    else if (v && typeof v === "object") for (const [k, x] of Object.entries(v)) walk(x, path ? `${path}.${k}` : k);
  };
  walk(spec, "");
  return rows;
}
