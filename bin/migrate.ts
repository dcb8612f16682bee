// `npm run db:migrate`: start (or reach) the database and apply pending migrations.
import { ensureDatabase } from "@/lib/db/embedded.ts";
import { migrate } from "@/lib/db/migrate.ts";

async function main(): Promise<number> {
  const db = await ensureDatabase();
  try {
    const applied = await migrate(db.url, { log: (l) => process.stdout.write(l + "\n") });
    process.stdout.write(applied.length ? `${applied.length} migration(s) applied\n` : "database is up to date\n");
    return 0;
  } finally {
    await db.stop();
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`db:migrate: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
