// The scale benchmark's ingest input, streamed instead of written to a file (5 M rollouts with their score records
// would be ~14 GB of NDJSON): a template of pre-scored rollouts from the demo generator is serialised once with
// sentinels in place of the identity fields, and each copy c of it is produced by splicing new ids
// (`<id>/c<c>`) and steps (`step + c × span`) into the strings. The rows are the verifier's own; producing a line
// costs a few string concatenations, so the producer takes little of the CPU the ingest is measured on.
import { demoRunValues } from "@/lib/demo/generate.ts";
import { caseSchema, rolloutSchema, type Case } from "@/lib/verifier/schema.ts";
import { scoreRollout } from "@/lib/verifier/score.ts";

const TID = "@@TID@@";
const GID = "@@GID@@";
const STEP = 987654321;
const SENTINELS = /@@TID@@|@@GID@@|987654321/g;

type Spliced = { pieces: string[]; kinds: ("t" | "g" | "s")[] };
type Entry = { tid: string; gid: string; step: number; rollout: Spliced; score: Spliced; external: Spliced };
export type Template = { runId: string; cases: string[]; entries: Entry[]; span: number };

function compile(s: string): Spliced {
  const pieces: string[] = [];
  const kinds: Spliced["kinds"] = [];
  let last = 0;
  for (const m of s.matchAll(SENTINELS)) {
    pieces.push(s.slice(last, m.index));
    kinds.push(m[0] === TID ? "t" : m[0] === GID ? "g" : "s");
    last = m.index! + m[0].length;
  }
  pieces.push(s.slice(last));
  return { pieces, kinds };
}

function splice(x: Spliced, tid: string, gid: string, step: number): string {
  let out = x.pieces[0];
  for (let i = 0; i < x.kinds.length; i++) {
    const k = x.kinds[i];
    out += (k === "t" ? tid : k === "g" ? gid : String(step)) + x.pieces[i + 1];
  }
  return out;
}

/** `n` rollouts of a generated run (500 tickets × K = 4), each with the verifier's score record and an external one. */
export function buildTemplate(runId: string, n: number): Template {
  const tickets = 500;
  const k = 4;
  const steps = Math.max(1, Math.ceil(n / (tickets * k)));
  const cases = new Map<string, Case>();
  const caseLines: string[] = [];
  const entries: Entry[] = [];
  let maxStep = 0;
  for (const v of demoRunValues({ runId, tickets, steps, k, seed: "scale", variant: "normal" })) {
    if (v.kind === "case") {
      const c = caseSchema.parse(v);
      cases.set(c.ticket.id, c);
      caseLines.push(JSON.stringify(v));
      continue;
    }
    if (entries.length >= n) break;
    const r = rolloutSchema.parse(v);
    const id = { tid: r.trajectory_id, gid: r.group_id ?? "", step: r.step };
    maxStep = Math.max(maxStep, r.step);
    const record = scoreRollout(r, cases.get(r.ticket_id)!);
    const marked = { ...(v as object), trajectory_id: TID, group_id: GID, step: STEP };
    const markedRecord = { ...record, trajectory_id: TID, group_id: GID, step: STEP };
    const external = {
      kind: "score",
      source: "external",
      trajectory_id: TID,
      run_id: runId,
      step: STEP,
      ticket_id: record.ticket_id,
      group_id: GID,
      sample_index: record.sample_index,
      reward: record.reward ?? 0,
      raw_reward: record.raw_reward,
      subscores: record.subscores ?? undefined,
      guardrails: (record.guardrails ?? []).map((g: { code: string; cap?: number | null }) =>
        g.cap == null ? { code: g.code } : { code: g.code, cap: g.cap },
      ),
    };
    entries.push({
      ...id,
      rollout: compile(JSON.stringify(marked)),
      score: compile(JSON.stringify(markedRecord)),
      external: compile(JSON.stringify(external)),
    });
  }
  return { runId, cases: caseLines, entries, span: maxStep + 1 };
}

/**
 * Lines for `total` rollouts: the cases, then copies of the template. `kind`: "scored" (each rollout followed by its
 * score record) or "external" (external score records alone). `from` skips the first rollouts (to continue a run).
 */
export function* scaleLines(t: Template, total: number, kind: "scored" | "external", from = 0): Generator<string> {
  if (from === 0) for (const c of t.cases) yield c;
  const n = t.entries.length;
  for (let i = from; i < total; i++) {
    const c = Math.floor(i / n);
    const e = t.entries[i % n];
    const tid = c === 0 ? e.tid : `${e.tid}/c${c}`;
    const gid = c === 0 ? e.gid : `${e.gid}/c${c}`;
    const step = e.step + c * t.span;
    if (kind === "scored") {
      yield splice(e.rollout, tid, gid, step);
      yield splice(e.score, tid, gid, step);
    } else yield splice(e.external, tid, gid, step);
  }
}
