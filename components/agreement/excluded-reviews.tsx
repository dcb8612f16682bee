import Link from "next/link";
import { DateTime } from "@/components/ui/datetime.tsx";
import { Head, Table, Td, numeric } from "@/components/ui/table.tsx";
import type { AgreementReport } from "@/lib/agreement/report.ts";

/** Reviews recorded but left out of every figure (docs/audit.md), each with the reason stored at submission. */
export function ExcludedReviews({ excluded }: { excluded: AgreementReport["excluded"] }) {
  return (
    <Table>
      <Head cols={["Item", "Trajectory", "Reviewer", "Submitted", ...numeric("Reward"), "Why it does not count"]} />
      <tbody>
        {excluded.map((x) => (
          <tr key={x.reviewId.toString()} data-testid="excluded-review">
            <Td numeric>{x.itemId.toString()}</Td>
            <Td className="font-mono text-[12px]">
              <Link
                className="text-accent hover:underline"
                href={`/trajectories/${encodeURIComponent(x.trajectoryId)}`}
              >
                {x.trajectoryId}
              </Link>
            </Td>
            <Td>{x.reviewerEmail}</Td>
            <Td>
              <DateTime value={x.createdAt} />
            </Td>
            <Td numeric>{x.reward.toFixed(2)}</Td>
            <Td>{x.reason}</Td>
          </tr>
        ))}
      </tbody>
    </Table>
  );
}
