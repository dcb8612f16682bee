import { Fragment, type ReactNode } from "react";

// Labels in the uppercase style (text-transform: uppercase) would draw κ, α, ρ, π as Κ, Α, Ρ, Π — other
// letters, other statistics. Greek letters keep their case inside a normal-case span.
const GREEK = /([\u0370-\u03ff\u1f00-\u1fff]+)/u;

/** A symbol that keeps its case inside an uppercase label. */
export function Sym({ children }: { children: ReactNode }) {
  return <span className="normal-case">{children}</span>;
}

/** The label with every run of Greek letters wrapped in a Sym; anything else is returned as it is. */
export function keepSymbols(node: ReactNode): ReactNode {
  if (Array.isArray(node)) return node.map((n, i) => <Fragment key={i}>{keepSymbols(n)}</Fragment>);
  if (typeof node !== "string") return node;
  const parts = node.split(GREEK);
  if (parts.length === 1) return node;
  return parts.map((p, i) => (i % 2 === 1 ? <Sym key={i}>{p}</Sym> : p));
}
