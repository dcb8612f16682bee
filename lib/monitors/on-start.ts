import { createClient } from "@/lib/db/client.ts";
import { refreshAlarms } from "@/lib/monitors/evaluate.ts";

/**
 * What a start does after the migrations and the demo: evaluates the alarms of the runs whose stored states are not
 * from their current data or from this version's evaluation (a deploy that changed it, or a write that did not
 * evaluate, such as the demo audit). Pages never evaluate alarms, so this and the writes are the only places that do.
 */
export async function refreshStoredAlarms(url: string, say: (line: string) => void): Promise<void> {
  const client = createClient(url);
  try {
    const runs = await refreshAlarms(undefined, { client });
    const evaluated = [...runs.values()].filter((r) => r.evaluated).length;
    if (evaluated > 0) say(`evaluated the alarms of ${evaluated} run${evaluated === 1 ? "" : "s"}`);
  } finally {
    await client.$disconnect();
  }
}
