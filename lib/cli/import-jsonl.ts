// `verity import jsonl FILE|- --preset verl|trl | --map field=path,...`: a rollout dump (verl's rollout_data_dir,
// TRL's completions table as JSONL, any JSONL under a map) into the ledger, one rollout and one external score record
// a line. The last stdout line is the ingest summary (lib/ingest/schema.ts), line numbers those of the file.
import { flagSpec, argsExit, parseFileArgs, progressFlags, progressOf, stdio, type Io } from "@/lib/cli/command.ts";
import { inputSize, loadExit, loadFile } from "@/lib/cli/file-load.ts";
import { ingestCounts, recordLoad } from "@/lib/ingest/activity.ts";
import { importJsonl } from "@/lib/import/jsonl.ts";
import { buildImportMap, MAP_FIELDS, type ImportMap } from "@/lib/import/jsonl-map.ts";
import { jsonlImportCliSchema, type JsonlImportCliOptions } from "@/lib/import/schema.ts";
import { afterWrite } from "@/lib/server/after-write.ts";

const USAGE = `usage: verity import jsonl FILE|- (--preset verl|trl | --map field=path,...) --run RUN [options]

Imports a rollout dump, one rollout a line (gzip-compressed files are read as they stream): each line becomes a
rollout, an external score record with the dump's reward, and — for a prompt Verity has no case for — a minimal case
(the prompt as the ticket, an empty verifier spec). Importing the same file again changes nothing. See docs/import.md.

  --preset verl      verl's trainer.rollout_data_dir files (<step>.jsonl: input, output, gts, score, step, and the
                     reward function's extra values such as acc, kept as reward components)
  --preset trl       TRL GRPOTrainer's completions table exported as JSONL (step, prompt, completion, one column
                     per reward function, advantage); the reward is the sum of the reward columns (--weights)
  --map F=PATH,...   where each field is in a line (with a preset: overrides and additions); a path is keys and
                     [indexes] (acc, extra.acc, completion[-1].content). Fields:
${Object.entries(MAP_FIELDS)
  .map(([f, about]) => `                       ${f.padEnd(14)} ${about}`)
  .join("\n")}
  --run RUN          the run the rollouts belong to (required unless the map gives run)
  --category C       the category of the tickets created for prompts (default imported)
  --weights N=W,...  weights of TRL's reward columns (default 1 each, as TRL's reward_weights)
  --reward-range LO,HI  the trainer's reward scale, mapped linearly onto the ledger's [0, 1]
  --rejects FILE     write every rejected line (with its error) to FILE as NDJSON
  --batch N          lines per transaction (default 2000)
  --strict           exit 1 when any line was rejected
  --no-progress      no progress line on the terminal

A bad line — not JSON, a field missing or of the wrong type, a reward outside the ledger's scale — is rejected
alone, with its line number, the path in the line and the field; the other lines are stored.

exit status: 0 done, 1 done with rejected lines under --strict, 2 usage, 3 stopped early (the summary's failed_at
and error say why; importing the same file again completes it).`;

export function parseImportJsonlArgs(
  argv: string[],
): { ok: true; opts: JsonlImportCliOptions; map: ImportMap } | { ok: false; message: string; help?: boolean } {
  const r = parseFileArgs(
    argv,
    {
      ...flagSpec(["preset", "map", "run", "category", "weights", "reward-range", "rejects", "batch"], ["strict"]),
      ...progressFlags,
    },
    {
      one: "file",
      positional: "file",
      schema: jsonlImportCliSchema,
      input: (values, file) => ({
        file,
        preset: values.preset,
        map: values.map,
        run: values.run,
        category: values.category,
        weights: values.weights,
        "reward-range": values["reward-range"],
        rejects: values.rejects,
        batch: values.batch,
        strict: values.strict ?? false,
        progress: progressOf(values),
      }),
    },
  );
  if (!r.ok) return r;
  const opts = r.opts;
  const map = buildImportMap({
    preset: opts.preset,
    map: opts.map,
    weights: opts.weights,
    rewardRange: opts["reward-range"],
  });
  if (!map.ok) return { ok: false, message: map.message };
  if (!opts.run && !map.value.paths.run)
    return { ok: false, message: "--run: give the run the rollouts belong to (or map run=PATH)" };
  return { ok: true, opts, map: map.value };
}

export async function run(argv: string[], io: Io = stdio): Promise<number> {
  const args = parseImportJsonlArgs(argv);
  if (!args.ok) return argsExit(args, "import jsonl", USAGE, io)!;
  const { opts, map } = args;
  const input = inputSize(opts.file, true);
  if (!input.readable) {
    io.err(`verity import jsonl: cannot read ${opts.file}`);
    return 2;
  }
  const { summary, secs } = await loadFile(opts, input.bytes, process.stderr, async (pool, { source, hooks }) => {
    const loaded = await importJsonl(source, {
      pool,
      map,
      defaults: { run: opts.run, category: opts.category },
      batchLines: opts.batch,
      after: afterWrite(pool, { intervalMs: 60_000 }),
      ...hooks,
    });
    await recordLoad(pool, {
      actor: { label: "cli" },
      action: "import.jsonl",
      run: opts.run,
      stoppedAt: loaded.failed_at,
      details: { file: opts.file, preset: opts.preset ?? "map", ...ingestCounts(loaded) },
    });
    return loaded;
  });
  const rollouts = summary.by_kind.rollout;
  io.err(
    `verity import jsonl: ${rollouts.accepted} rollouts imported, ${rollouts.unchanged} already there, ` +
      `${summary.rejected} lines rejected, of ${summary.lines} lines in ${secs.toFixed(1)} s` +
      (summary.by_kind.case.accepted ? `; ${summary.by_kind.case.accepted} prompts got a ticket` : "") +
      (summary.rejected && opts.rejects ? `; rejected lines are in ${opts.rejects}` : ""),
  );
  return loadExit("import jsonl", summary, opts.strict, io);
}
