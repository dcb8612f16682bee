// Every id the console shows is a link to where that thing is read: a trajectory to its page, a ticket to its case,
// a batch to its items and agreement, a run's step (or range of steps) to the trajectory browser filtered to it.
// One href builder and one component per kind, used everywhere an id is shown. No "use client": server pages and
// client charts (which navigate on a click) share the builders.
import Link from "next/link";
import type { ReactNode } from "react";
import { cn } from "@/components/ui/cn.ts";

const LINK = "text-accent hover:underline";
/** Ids are set in mono, at table size unless the caller gives another size. */
const idClass = (className?: string) => cn("font-mono", className ?? "text-[12px]");

/** A trajectory's page. */
export function trajectoryHref(trajectoryId: string): string {
  return `/trajectories/${encodeURIComponent(trajectoryId)}`;
}

/** A ticket's case (its versions and spec workbench); `rollout` selects one of its rollouts there. */
export function caseHref(ticketId: string, rollout?: bigint | number | string): string {
  return `/cases/${encodeURIComponent(ticketId)}${rollout === undefined ? "" : `?rollout=${rollout}`}`;
}

/** A batch's reviewed items. */
export function batchItemsHref(batchId: number): string {
  return `/agreement/items?batch=${batchId}`;
}

/** A batch's agreement: the pairwise report for a pairwise batch, the agreement report otherwise. */
export function batchAgreementHref(batchId: number, kind: string = "ticket"): string {
  return kind === "pairwise" ? `/agreement/pairwise?batch=${batchId}` : `/agreement?batch=${batchId}`;
}

/** The trajectory browser filtered to a run's step, or to steps [step, step + span − 1] (a chart's bucket). */
export function stepHref(runId: string, step: number, span = 1): string {
  const q = new URLSearchParams({ run: runId, step_from: String(step), step_to: String(step + Math.max(1, span) - 1) });
  return `/trajectories?${q.toString()}`;
}

/** The trajectory browser filtered to a run's steps [from, to], with any further browser filters. */
export function stepsHref(runId: string, from: number, to: number, extra: Record<string, string> = {}): string {
  const q = new URLSearchParams({ run: runId, step_from: String(from), step_to: String(to), ...extra });
  return `/trajectories?${q.toString()}`;
}

export function TrajectoryLink({ id, className }: { id: string; className?: string }) {
  return (
    <Link className={cn(idClass(className), LINK)} href={trajectoryHref(id)}>
      {id}
    </Link>
  );
}

/**
 * A ticket id, linked to its case for those who may open it (the case page asks for "cases.revise"); plain text for
 * anyone else, so nobody is sent to a page that refuses them.
 */
export function TicketLink({
  id,
  canOpen,
  rollout,
  className,
}: {
  id: string;
  canOpen: boolean;
  rollout?: bigint | number | string;
  className?: string;
}) {
  if (!canOpen) return <span className={idClass(className)}>{id}</span>;
  return (
    <Link className={cn(idClass(className), LINK)} href={caseHref(id, rollout)}>
      {id}
    </Link>
  );
}

/**
 * A batch's name linked to its reviewed items, with a second link to its agreement; a pairwise batch's name links to
 * its pairwise report, which lists its pairs.
 */
export function BatchLink({
  id,
  name,
  kind,
  withAgreement = true,
}: {
  id: number;
  name: string;
  kind?: string;
  /** false where the agreement is already the page around it: the name alone, linked to the items. */
  withAgreement?: boolean;
}) {
  if (kind === "pairwise")
    return (
      <Link className={LINK} href={batchAgreementHref(id, kind)} title="the batch's pairwise report">
        {name}
      </Link>
    );
  const items = (
    <Link className={LINK} href={batchItemsHref(id)} title="the batch's reviewed items">
      {name}
    </Link>
  );
  if (!withAgreement) return items;
  return (
    <span className="inline-flex flex-wrap items-baseline gap-x-2">
      {items}
      <Link className={cn(LINK, "text-[12px]")} href={batchAgreementHref(id, kind)}>
        agreement
      </Link>
    </span>
  );
}

/** A step (or a range of `span` steps) of a run, linked to the trajectory browser filtered to it. */
export function StepLink({
  runId,
  step,
  span = 1,
  children,
}: {
  runId: string;
  step: number;
  span?: number;
  children?: ReactNode;
}) {
  return (
    <Link className={LINK} href={stepHref(runId, step, span)}>
      {children ?? step.toLocaleString("en-US")}
    </Link>
  );
}
