import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { MIGRATIONS_DIR, readMigrations } from "@/lib/db/migrate.ts";

// A migration, once a database has applied it, never changes, not even in a comment: the runner refuses a database
// whose recorded checksum differs from the file (lib/db/migrate.ts), so such an edit stops every console that had
// applied it at its next start. prisma/migrations/checksums.txt holds each migration's checksum; a new migration adds
// its line.
const LOCK = path.join(MIGRATIONS_DIR, "checksums.txt");

function locked(): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of fs.readFileSync(LOCK, "utf8").split("\n")) {
    const m = /^(\S+) ([0-9a-f]{64})$/.exec(line.trim());
    if (m) out.set(m[1], m[2]);
  }
  return out;
}

describe("released migrations", () => {
  it("are each unchanged, and each new one has its line in prisma/migrations/checksums.txt", () => {
    const lock = locked();
    const problems: string[] = [];
    for (const m of readMigrations()) {
      const was = lock.get(m.name);
      if (was === undefined) problems.push(`${m.name}: not in checksums.txt; add the line "${m.name} ${m.checksum}"`);
      else if (was !== m.checksum)
        problems.push(
          `${m.name} changed after it was recorded (${was.slice(0, 12)}… → ${m.checksum.slice(0, 12)}…): restore it and write a new migration`,
        );
    }
    for (const name of lock.keys())
      if (!readMigrations().some((m) => m.name === name)) problems.push(`${name}: recorded but its folder is gone`);
    expect(problems).toEqual([]);
  });
});
