// Imported by the demo seed and by the end-to-end tests that send the examples again (no other imports here).

/**
 * Trained rewards for four of the worked examples, as a trainer whose reward function drops the guardrail caps would
 * report them: the verifier's raw reward. Two agree with the ledger (no cap applied), two do not (ex/04 capped at 0.3,
 * ex/06 at 0.55): the rollout page and the browser's "trained reward differs" filter have something to show. The
 * other figures of the demo do not depend on them.
 */
export const EXAMPLE_TRAINED_REWARDS: Readonly<Record<string, number>> = {
  "ex/01": 1,
  "ex/02": 0.2,
  "ex/04": 1,
  "ex/06": 0.866667,
};
