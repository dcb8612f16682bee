"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";
import { cn } from "@/components/ui/cn.ts";

const matches = (path: string, href: string) => path === href || path.startsWith(href + "/");

/** Active when its href is the longest of `hrefs` the path is under (/admin/configs is Configs, not Admin). */
export function NavLink({ href, label, hrefs = [] }: { href: string; label: string; hrefs?: string[] }) {
  const path = usePathname();
  const active = matches(path, href) && !hrefs.some((h) => h.length > href.length && matches(path, h));
  return (
    <Link
      href={href}
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
