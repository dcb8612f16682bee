// Pointers (verifier.md "Vocabulary"): a spec string that starts with `$` names a value of env_snapshot, e.g.
// "$order.paid_amount" or "$attachments.0.id"; "$$x" is the literal string "$x". Specs hold pointers, not values,
// so one spec serves every order of a ticket category.

/** Returned by resolvePointer when the path does not exist; distinct from every JSON value (null included). */
export const UNRESOLVED: unique symbol = Symbol("unresolved");

/** True for "$a.b", false for "$$a" (an escaped literal) and for strings without a leading "$". */
export function isPointer(value: unknown): value is string {
  return typeof value === "string" && value.charCodeAt(0) === 36 /* $ */ && value.charCodeAt(1) !== 36;
}

const INDEX = /^(?:0|[1-9]\d*)$/;

/**
 * Resolves a pointer against the snapshot by splitting on "." — a numeric segment indexes an array, any other
 * segment is an own property of an object. A missing step anywhere gives UNRESOLVED (never undefined or a zero).
 */
export function resolvePointer(pointer: string, snapshot: unknown): unknown {
  let cur: unknown = snapshot;
  for (const seg of pointer.slice(1).split(".")) {
    if (Array.isArray(cur)) {
      if (!INDEX.test(seg)) return UNRESOLVED;
      const i = Number(seg);
      if (i >= cur.length) return UNRESOLVED;
      cur = cur[i];
    } else if (cur !== null && typeof cur === "object" && Object.hasOwn(cur, seg)) {
      cur = (cur as Record<string, unknown>)[seg];
    } else {
      return UNRESOLVED;
    }
  }
  return cur;
}

export type UnresolvedPointer = { pointer: string; field: string };

/**
 * Returns a copy of `spec` with every string value resolved: pointers replaced by snapshot values, "$$x" by "$x".
 * Keys are never resolved. Every pointer that does not resolve is listed with its dotted path in the spec (the
 * whole bundle is then a spec error); the walk continues so that all of them are reported at once.
 */
export function resolveSpecValues<T>(spec: T, snapshot: unknown): { value: T; unresolved: UnresolvedPointer[] } {
  const unresolved: UnresolvedPointer[] = [];
  const path: (string | number)[] = [];
  const walk = (v: unknown): unknown => {
    if (typeof v === "string") {
      if (v.charCodeAt(0) !== 36) return v;
      if (v.charCodeAt(1) === 36) return v.slice(1);
      const r = resolvePointer(v, snapshot);
      if (r === UNRESOLVED) {
        unresolved.push({ pointer: v, field: path.join(".") });
        return null;
      }
      return r;
    }
    if (Array.isArray(v)) {
      return v.map((item, i) => {
        path.push(i);
        const out = walk(item);
        path.pop();
        return out;
      });
    }
    if (v !== null && typeof v === "object") {
      const out: Record<string, unknown> = {};
      for (const [k, item] of Object.entries(v)) {
        path.push(k);
        // `out.__proto__ = x` would set the prototype instead of a key: define it, like JSON.parse does.
        if (k === "__proto__")
          Object.defineProperty(out, k, { value: walk(item), enumerable: true, writable: true, configurable: true });
        else out[k] = walk(item);
        path.pop();
      }
      return out;
    }
    return v;
  };
  return { value: walk(spec) as T, unresolved };
}
