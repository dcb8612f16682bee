"use client";

import Link from "next/link";
import { usePathname, useSearchParams } from "next/navigation";
import { cn } from "@/components/ui/cn.ts";
import { runOfLocation, withRun } from "@/lib/runs/location.ts";

const matches = (path: string, href: string) => path === href || path.startsWith(href + "/");

/**
 * Active when its href is the longest of `hrefs` the path is under (/admin/configs is Configs, not Admin). A
 * run-scoped page (`carriesRun`) is linked with the run of the current page, so it opens on the run the user came from.
 */
export function NavLink({
  href,
  label,
  hrefs = [],
  carriesRun = false,
}: {
  href: string;
  label: string;
  hrefs?: string[];
  carriesRun?: boolean;
}) {
  const path = usePathname();
  const search = useSearchParams();
  const active = matches(path, href) && !hrefs.some((h) => h.length > href.length && matches(path, h));
  return (
    <Link
      href={carriesRun && !active ? withRun(href, runOfLocation(path, search)) : href}
      aria-current={active ? "page" : undefined}
      className={cn(
        "block rounded px-2 py-1.5 text-[13px]",
        active ? "bg-bg-muted font-medium text-fg" : "text-fg-muted hover:bg-bg-muted hover:text-fg",
      )}
    >
      {label}
    </Link>
  );
}
