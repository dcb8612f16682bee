// Wire objects for ingest tests, built from the verifier examples (lib/verifier/examples) with fresh identities.
import { loadExamples } from "@/lib/demo/seed.ts";

type Obj = Record<string, unknown>;

const examples = loadExamples() as Obj[];
const byPrefix = (p: string) => structuredClone(examples.find((e) => String(e.trajectory_id) === `ex/${p}`)!);

/** The case of an example (01 = refund T-1001) under another ticket id. */
export function caseLine(ticketId: string, example = "01"): Obj {
  const c = byPrefix(example).case as Obj;
  (c.ticket as Obj).id = ticketId;
  return c;
}

/** An example rollout (without its embedded case) with a new identity. */
export function rolloutLine(
  trajectoryId: string,
  ticketId: string,
  opts: { run?: string; step?: number; example?: string; group?: string } = {},
): Obj {
  const r = byPrefix(opts.example ?? "01");
  delete r.case;
  return {
    ...r,
    trajectory_id: trajectoryId,
    run_id: opts.run ?? "run-a",
    step: opts.step ?? 1,
    group_id: opts.group ?? `${opts.run ?? "run-a"}/s${opts.step ?? 1}/${ticketId}`,
    ticket_id: ticketId,
  };
}

export function externalScore(
  trajectoryId: string,
  ticketId: string,
  reward: number,
  opts: { run?: string; step?: number; guardrails?: unknown[] } = {},
): Obj {
  return {
    kind: "score",
    source: "external",
    trajectory_id: trajectoryId,
    run_id: opts.run ?? "run-a",
    step: opts.step ?? 1,
    ticket_id: ticketId,
    reward,
    raw_reward: Math.max(reward, 0.8),
    ...(opts.guardrails ? { guardrails: opts.guardrails } : {}),
  };
}
