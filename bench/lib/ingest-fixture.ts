// The benchmark's input: N pre-scored rollouts as NDJSON — the cases, then each rollout followed by the score
// record the verifier gives it (so ingest stores both and runs no verifier of its own). Demo data, seeded.
import fs from "node:fs";
import { once } from "node:events";
import { demoRunValues } from "@/lib/demo/generate.ts";
import { caseSchema, rolloutSchema, type Case } from "@/lib/verifier/schema.ts";
import { scoreRollout } from "@/lib/verifier/score.ts";

export type Fixture = { file: string; lines: number; rollouts: number; cases: number; bytes: number };

export async function writePrescoredFile(file: string, n: number, runId = "bench"): Promise<Fixture> {
  const tickets = 500;
  const k = 4;
  const steps = Math.max(1, Math.ceil(n / (tickets * k)));
  const out = fs.createWriteStream(file);
  const cases = new Map<string, Case>();
  let lines = 0;
  let rollouts = 0;
  const write = async (v: unknown) => {
    lines++;
    if (!out.write(JSON.stringify(v) + "\n")) await once(out, "drain");
  };
  for (const v of demoRunValues({ runId, tickets, steps, k, seed: "bench", variant: "normal" })) {
    if (v.kind === "case") {
      const c = caseSchema.parse(v);
      cases.set(c.ticket.id, c);
      await write(v);
      continue;
    }
    if (rollouts >= n) break;
    rollouts++;
    await write(v);
    const r = rolloutSchema.parse(v);
    await write(scoreRollout(r, cases.get(r.ticket_id)!));
  }
  await new Promise<void>((res) => out.end(() => res()));
  return { file, lines, rollouts, cases: cases.size, bytes: fs.statSync(file).size };
}
