// The dry run of a verifier config over a run (docs/audit.md "Dry-running a verifier config"): what `verity rescore`
// or the admin's re-score would do, rollout by rollout, writing nothing — the same diff as the workbench's Try it
// (lib/cases/dry-run.ts diffRollouts: reward before/after, guardrails and reasons that appear or disappear, the
// counted reviews it would now agree or disagree with). Over the whole run, read in (step, id) pages as the re-score
// reads it, or over a reproducible sample: the `size` rollouts whose md5(seed:trajectory id) is smallest, the same
// for the same seed whatever else the run holds. Memory is bounded by a page (and the sample's ids).
import type pg from "pg";
import { diffRollouts, type RolloutDiff } from "@/lib/cases/dry-run.ts";
import { rolloutFromColumns } from "@/lib/ledger/store/rows.ts";
import { CaseCache } from "@/lib/ledger/store/case-cache.ts";
import type { RolloutRowDb } from "@/lib/ledger/store/rows.ts";
import type { VerifierConfig } from "@/lib/verifier/config.ts";
import { scoreRollout } from "@/lib/verifier/score.ts";

export type ConfigDryRunSkips = { noCase: number; external: number };

const COLUMNS = `r.id::text as id, r.trajectory_id, r.run_id, r.step, r.group_id, r.sample_index, r.ticket_id, r.steps,
                 r.final_reply, r.sandbox, r.claims, t.tools, r.trained_reward`;

/** The run's rollouts in pages: all of them by (step, id), or the sample's in the same order. */
async function* runRollouts(
  pool: pg.Pool,
  runId: string,
  opts: { sample?: { size: number; seed: string }; pageSize: number },
): AsyncGenerator<RolloutRowDb[]> {
  if (opts.sample) {
    // Top-N by hash: one pass over the run's trajectory ids, N kept (a heap in the sort node), nothing else held.
    const { rows } = await pool.query<{ id: string }>(
      `select id::text from rollouts where run_id = $1 order by md5($2 || ':' || trajectory_id), id limit $3`,
      [runId, opts.sample.seed, opts.sample.size],
    );
    const ids = rows.map((r) => r.id).sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : 1));
    for (let i = 0; i < ids.length; i += opts.pageSize) {
      const page = await pool.query<RolloutRowDb>(
        `select ${COLUMNS} from rollouts r join tool_registries t on t.id = r.registry_id
          where r.run_id = $1 and r.id = any($2::bigint[]) order by r.step, r.id`,
        [runId, ids.slice(i, i + opts.pageSize)],
      );
      if (page.rows.length) yield page.rows;
    }
    return;
  }
  let cursor = { step: -1, id: "0" };
  for (;;) {
    const { rows } = await pool.query<RolloutRowDb>(
      `select ${COLUMNS} from rollouts r join tool_registries t on t.id = r.registry_id
        where r.run_id = $1 and (r.step, r.id) > ($2, $3::bigint) order by r.step, r.id limit $4`,
      [runId, cursor.step, cursor.id, opts.pageSize],
    );
    if (rows.length === 0) return;
    cursor = { step: rows[rows.length - 1].step, id: rows[rows.length - 1].id };
    yield rows;
  }
}

/**
 * The diffs of the run's rollouts (or of a sample) under `config`, each with its case's current version, lazily.
 * Rollouts without a case, and those whose current entry came from outside (source external, which a re-score
 * keeps), are not diffed but counted in `skipped` (complete once the diffs are read to the end).
 */
export function dryRunConfig(
  pool: pg.Pool,
  input: { runId: string; config: VerifierConfig; sample?: { size: number; seed: string }; pageSize?: number },
): { diffs: AsyncGenerator<RolloutDiff>; skipped: ConfigDryRunSkips } {
  const skipped: ConfigDryRunSkips = { noCase: 0, external: 0 };
  async function* diffs(): AsyncGenerator<RolloutDiff> {
    const cases = new CaseCache();
    for await (const page of runRollouts(pool, input.runId, {
      sample: input.sample,
      pageSize: input.pageSize ?? 500,
    })) {
      await cases.load(
        pool,
        page.map((r) => r.ticket_id),
      );
      const known = page.filter((r) => cases.has(r.ticket_id));
      skipped.noCase += page.length - known.length;
      const out = await diffRollouts(pool, known, (r) =>
        scoreRollout(rolloutFromColumns(r), cases.get(r.ticket_id)!.doc, input.config),
      );
      for (const d of out) {
        if (d.before?.source === "external") skipped.external++;
        else yield d;
      }
    }
  }
  return { diffs: diffs(), skipped };
}
