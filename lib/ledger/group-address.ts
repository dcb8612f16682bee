// The group page's address: /groups?run=RUN&id=GROUP[&step=STEP]. A group id is the trainer's and unique only inside
// its run, so the run is part of the address; the step is optional and lets the page read the run's (step, id) index.
import type { GroupAddress } from "@/lib/ledger/detail.ts";

type Raw = string | string[] | undefined;

export type GroupAddressResult = { ok: true; address: GroupAddress } | { ok: false; error: string };

function single(name: string, raw: Raw): { value?: string; error?: string } {
  if (Array.isArray(raw))
    return raw.length > 1 ? { error: `${name}: given ${raw.length} times; give it once` } : { value: raw[0] };
  return { value: raw };
}

/** The group addressed by the page's search parameters, or which parameter is wrong and why. */
export function parseGroupAddress(params: { run?: Raw; id?: Raw; step?: Raw }): GroupAddressResult {
  const run = single("run", params.run);
  const id = single("id", params.id);
  const step = single("step", params.step);
  const error = run.error ?? id.error ?? step.error;
  if (error) return { ok: false, error };
  if (!id.value) return { ok: false, error: "id: missing; open a group from a rollout's page" };
  if (!run.value) return { ok: false, error: "run: missing; a group id names a group only inside its run" };
  if (step.value === undefined || step.value === "")
    return { ok: true, address: { runId: run.value, groupId: id.value } };
  if (!/^\d{1,9}$/.test(step.value))
    return { ok: false, error: `step: "${step.value}" is not a whole number of steps` };
  return { ok: true, address: { runId: run.value, groupId: id.value, step: Number(step.value) } };
}

/** The page's address for a group; `from`, the rollout the reader came from, is where its "back" link leads. */
export function groupHref({ runId, groupId, step }: GroupAddress, from?: string): string {
  const q = new URLSearchParams({ run: runId, id: groupId });
  if (step !== undefined) q.set("step", String(step));
  if (from !== undefined) q.set("from", from);
  return `/groups?${q.toString()}`;
}
