// What a writer of the ledger (ingest, re-score, a case revision's re-score) tells whoever called it: the runs each
// committed transaction changed, and when the whole write is over. The writer does not know who listens; the caller (a
// route, a server action, the CLI) hands in what must follow (lib/server/after-write.ts: alarms, the gate, webhooks).

export type ChangeListener = {
  /** The runs one committed transaction changed (a run with no accepted or re-scored line is not named). */
  committed(runIds: Iterable<string>): void;
  /** The write is over (committed or stopped): whatever the listener still has to do is done when this settles. */
  settle(): Promise<void>;
};
