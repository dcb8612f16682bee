// Keeps an ingest's memory flat. The live set of an ingest is small (two batches, ~40 MB), but V8 collects lazily
// and lets an allocation-heavy loop grow its heap several times over before a full collection; on a large body
// that alone would push the process past a few hundred MB. After each committed batch, if the heap and the Buffers
// it holds have grown more than `headroom` beyond where the ingest started, or the process's resident size is above
// 280 MB, a full collection runs (tens of ms; a full collection gives the memory back, so the peak stays bounded).
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

export class HeapBound {
  private readonly limit: number;
  /**
   * @param headroomBytes growth of the heap and its Buffers past where the ingest started that sets off a full
   *   collection (the CPU-friendly rule: collections are rare);
   * @param rssCeilingBytes resident size of the whole process that sets one off too, whatever the growth: a console
   *   server already holds its database client and pages before an ingest starts, so the same growth reaches
   *   300 MB sooner there than in the CLI.
   */
  constructor(
    headroomBytes: number,
    private readonly rssCeilingBytes = RSS_CEILING_BYTES,
  ) {
    const m = process.memoryUsage();
    this.limit = m.heapUsed + m.external + headroomBytes;
  }

  check(): void {
    const m = process.memoryUsage();
    if (m.heapUsed + m.external > this.limit || m.rss > this.rssCeilingBytes) gcFunction()?.();
  }

  /** A full collection now (the work is done; what it allocated need not stay in the process's footprint). */
  release(): void {
    gcFunction()?.();
  }
}

const RSS_CEILING_BYTES = 280 * 1024 * 1024;
