// Keeps an ingest's memory flat. The live set of an ingest is small (two batches, ~40 MB), but V8 collects lazily
// and lets an allocation-heavy loop grow its heap several times over before a full collection; on a large body
// that alone would push the process past a few hundred MB. After each committed batch, if the heap has grown more
// than `headroom` beyond where the ingest started, a full collection runs (a few ms per batch of thousands of lines).
import v8 from "node:v8";
import vm from "node:vm";

let collect: (() => void) | null | undefined;

/** V8's gc(), obtained without starting node with --expose-gc; null where the runtime does not allow it. */
function gcFunction(): (() => void) | null {
  if (collect === undefined) {
    try {
      v8.setFlagsFromString("--expose-gc");
      collect = vm.runInNewContext("gc") as () => void;
    } catch {
      collect = null;
    }
  }
  return collect;
}

/**
 * Node flags for a process that ingests (the `verity` script in package.json passes the same): V8's young generation
 * at 8 MB instead of 16. Ingest keeps little alive between collections (prepared rows are Buffers), so the smaller
 * young generation costs no measurable CPU and saves 20–30 MB of peak memory.
 */
export const INGEST_NODE_FLAGS = ["--max-semi-space-size=8"];

/** The heap and the memory outside it that heap objects hold (Buffers: a prepared batch keeps its rows as bytes). */
function used(): number {
  const m = process.memoryUsage();
  return m.heapUsed + m.external;
}

export class HeapBound {
  private readonly limit: number;
  constructor(headroomBytes: number) {
    this.limit = used() + headroomBytes;
  }

  check(): void {
    if (used() > this.limit) gcFunction()?.();
  }

  /** A full collection now (the work is done; what it allocated need not stay in the process's footprint). */
  release(): void {
    gcFunction()?.();
  }
}
