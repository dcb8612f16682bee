// CPU time used by the PostgreSQL backends serving one database, read from /proc/<pid>/stat of each backend (the
// server runs on this machine in the benchmark). Sampled while the work runs, because a backend's counters vanish
// with its connection. Wall-clock rates swing with whatever else the machine is doing; CPU seconds do not.
import fs from "node:fs";
import pg from "pg";

const TICK_MS = 10; // USER_HZ = 100 on Linux

/** The CPU milliseconds (user + system) process `pid` has used, or null once it is gone. */
export function cpuMs(pid: number): number | null {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
    return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
  } catch {
    return null;
  }
}

/** Starts sampling; `stop()` resolves to the CPU seconds the database's backends used since, or null if unreadable. */
export function watchBackendCpu(adminUrl: string, database: string): { stop: () => Promise<number | null> } {
  const client = new pg.Client({ connectionString: adminUrl });
  const first = new Map<number, number>();
  const last = new Map<number, number>();
  let busy = false;
  const sample = async () => {
    if (busy) return;
    busy = true;
    try {
      const { rows } = await client.query<{ pid: number }>("select pid from pg_stat_activity where datname = $1", [
        database,
      ]);
      for (const { pid } of rows) {
        // A backend that exits between the query and the read is simply skipped.
        const ms = cpuMs(pid);
        if (ms === null) continue;
        if (!first.has(pid)) first.set(pid, ms);
        last.set(pid, ms);
      }
    } catch {
      /* the next sample will do */
    } finally {
      busy = false;
    }
  };
  const started = client.connect().then(sample);
  const timer = setInterval(() => void sample(), 50);
  return {
    stop: async () => {
      await started;
      await sample();
      clearInterval(timer);
      await client.end().catch(() => undefined);
      if (first.size === 0) return null;
      let ms = 0;
      for (const [pid, end] of last) ms += end - first.get(pid)!;
      return ms / 1000;
    },
  };
}

/**
 * The CPU milliseconds a PostgreSQL server has used, all of it: the postmaster's own and its ended children's (parallel
 * workers and closed backends, which it has reaped: cutime, cstime), and those of its children still running. Read
 * twice, the difference is what the server spent in between, parallel workers included, which sampling backends
 * (watchBackendCpu) misses. `postmaster` is a backend's parent (serverPid).
 */
export function serverCpuMs(postmaster: number): number {
  const stat = (pid: number | string) => fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  const own = stat(postmaster);
  let ms = (Number(own[11]) + Number(own[12]) + Number(own[13]) + Number(own[14])) * TICK_MS;
  for (const pid of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const f = stat(pid);
      if (Number(f[1]) === postmaster) ms += (Number(f[11]) + Number(f[12])) * TICK_MS;
    } catch {
      /* ended between the listing and the read: its time is in the postmaster's cutime now */
    }
  }
  return ms;
}

/** The postmaster's pid of the server `client` is connected to (its backend's parent). */
export async function serverPid(client: pg.ClientBase): Promise<number> {
  const { rows } = await client.query<{ pid: number }>("select pg_backend_pid() as pid");
  return Number(fs.readFileSync(`/proc/${rows[0].pid}/stat`, "utf8").split(") ")[1].split(" ")[1]);
}
