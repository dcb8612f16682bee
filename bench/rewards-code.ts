// Code rewards in the sandbox: `npx tsx bench/rewards-code.ts [rollouts] [cold rollouts]` (defaults 20000 and 100).
// Warm workers against one sandboxed process per rollout; prints rollouts/s, the ratio and whether the targets hold.
import { benchCodeRewards } from "@/bench/lib/rewards-code.ts";

const rollouts = process.argv[2] ? Number(process.argv[2]) : undefined;
const coldRollouts = process.argv[3] ? Number(process.argv[3]) : undefined;
await benchCodeRewards({ rollouts, coldRollouts });
