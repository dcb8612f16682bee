// The layout.tsx of a console page about one thing named in its address (a run, a trajectory, a case, a reward
// function, a judged pair) whose page streams behind a loading.tsx: a streamed page has already answered 200, so what
// decides the status — the role (403) and whether the thing exists (404) — is settled here, before anything is sent.
import { notFound } from "next/navigation";
import type { ReactNode } from "react";
import { requirePageUser } from "@/lib/auth/guards.ts";
import type { Action } from "@/lib/auth/policy.ts";
import { decodeSegment } from "@/lib/server/route-params.ts";

/**
 * A layout that asks the pages' `action` of the user, then answers 404 unless the segment `param` decodes and
 * `exists` finds what it names. `export default subjectLayout("runs.read", "run", async (id) => …)`.
 */
export function subjectLayout<P extends string>(action: Action, param: P, exists: (id: string) => Promise<boolean>) {
  return async function SubjectLayout({
    children,
    params,
  }: {
    children: ReactNode;
    params: Promise<Record<P, string>>;
  }) {
    await requirePageUser(action);
    const id = decodeSegment((await params)[param]);
    if (id === null || !(await exists(id))) notFound();
    return children;
  };
}
