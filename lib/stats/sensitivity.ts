// How a scorer's pass/fail verdict stands against the human's, read as a test for failure: sensitivity is the share of
// the items the humans failed that the scorer failed too (the reward hacks it catches), specificity the share of the
// items the humans passed that it passed (the honest work it does not punish). Pure.

import { wilson, type IntervalEstimate } from "@/lib/stats/intervals.ts";

export type VerdictPair = { human: boolean; scorer: boolean };

export type Detection = {
  /** Items the human failed and the scorer failed (failures caught). */
  caught: number;
  /** Items the human failed and the scorer passed (failures missed). */
  missed: number;
  /** Items the human passed and the scorer passed. */
  passed: number;
  /** Items the human passed and the scorer failed (false alarms). */
  falseAlarms: number;
  /** caught / (caught + missed) with its Wilson interval; null when the human failed no item. */
  sensitivity: IntervalEstimate | null;
  /** passed / (passed + falseAlarms) with its Wilson interval; null when the human passed no item. */
  specificity: IntervalEstimate | null;
};

/** Sensitivity and specificity of the scorer's verdicts (true = pass) against the human's, with Wilson intervals. */
export function detection(pairs: readonly VerdictPair[]): Detection {
  let caught = 0;
  let missed = 0;
  let passed = 0;
  let falseAlarms = 0;
  for (const { human, scorer } of pairs) {
    if (!human && !scorer) caught++;
    else if (!human) missed++;
    else if (scorer) passed++;
    else falseAlarms++;
  }
  return {
    caught,
    missed,
    passed,
    falseAlarms,
    sensitivity: wilson(caught, caught + missed),
    specificity: wilson(passed, passed + falseAlarms),
  };
}
