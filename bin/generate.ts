// Runs `prisma generate` without the schema-engine binary: generation does not need it, but the CLI insists
// that the path it is told about exists, so any existing file (node itself) satisfies the check.
import { spawnSync } from "node:child_process";

const env: NodeJS.ProcessEnv = { ...process.env, PRISMA_HIDE_UPDATE_MESSAGE: "1" };
env.PRISMA_SCHEMA_ENGINE_BINARY ??= process.execPath;
const r = spawnSync("npx", ["prisma", "generate"], { stdio: ["ignore", "pipe", "inherit"], env });
if (r.status !== 0) {
  process.stdout.write(r.stdout);
  process.exit(r.status ?? 1);
}
