-- Verity 037: how a reward holds up (docs/leaderboard.md "How a judge holds up"). A reward run is now of a kind:
-- plain (035's), probe (each rollout scored as it is and again with each injected line appended to its final reply)
-- or retest (each rollout scored a second time, nothing reused). A probed or repeated result names the result it is
-- compared with (paired_with: a result of the same run partition) and a probed one its line (probe_line). Probed
-- results are not results of the rollout as it is: nothing reuses them and the leaderboard does not read them as the
-- function's reward (probe_line is not null). Columns added to the partitioned parent reach every partition.

ALTER TABLE "reward_runs" ADD COLUMN "kind" TEXT NOT NULL DEFAULT 'plain';
ALTER TABLE "reward_runs" ADD CONSTRAINT "reward_runs_kind_check" CHECK ("kind" IN ('plain', 'probe', 'retest'));

ALTER TABLE "reward_results" ADD COLUMN "probe_line" TEXT;
ALTER TABLE "reward_results" ADD COLUMN "paired_with" BIGINT;
ALTER TABLE "reward_results" ADD CONSTRAINT "reward_results_probe_paired"
  CHECK ("probe_line" IS NULL OR "paired_with" IS NOT NULL);
