import { performance } from "node:perf_hooks";
import { ensureDatabase } from "@/lib/db/embedded.ts";
const database = await ensureDatabase("postgres");
const u = new URL(database.adminUrl); u.pathname = "/verity_bench_agreement";
const { bindDatabase } = await import("@/lib/db/client.ts");
const client = await bindDatabase(u.toString());
const { loadAgreementItems } = await import("@/lib/agreement/data.ts");
const f = { run: "agree-big", tolerance: 0.1 } as never;
for (let i = 0; i < 2; i++) { const t = performance.now(); const items = await loadAgreementItems(f, client); console.log("load", Math.round(performance.now() - t), items.length); }
const t0 = performance.now();
const cpu0 = process.cpuUsage();
await loadAgreementItems(f, client);
const cpu = process.cpuUsage(cpu0);
console.log("wall", Math.round(performance.now() - t0), "node cpu", Math.round((cpu.user + cpu.system) / 1000));
await client.$disconnect(); await database.stop();
