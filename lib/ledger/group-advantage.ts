/**
 * GRPO group advantage of each member: (r − mean) / std with the population std over the group's rewards.
 * Members without a reward (error records) get null and do not count. std = 0 means every reward is equal: GRPO
 * gets no gradient from the group, shown as null advantages ("no gradient").
 */
export function groupAdvantages(rewards: (number | null)[]): { mean: number | null; std: number | null; advantages: (number | null)[] } {
  const xs = rewards.filter((r): r is number => r !== null);
  if (!xs.length) return { mean: null, std: null, advantages: rewards.map(() => null) };
  const mean = xs.reduce((s, x) => s + x, 0) / xs.length;
  const std = Math.sqrt(xs.reduce((s, x) => s + (x - mean) ** 2, 0) / xs.length);
  const zero = std < 1e-12;
  return { mean, std: zero ? 0 : std, advantages: rewards.map((r) => (r === null || zero ? null : (r - mean) / std)) };
}
