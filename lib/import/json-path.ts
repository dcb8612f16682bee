// The path syntax of `verity import jsonl --map field=path`: where a field lives in a line's JSON object. Pure.
//
//   path     := segment ( "." key | "[" index "]" )*      segment := key | "[" index "]"
//   key      := one or more characters other than . [ ] = ,
//   index    := an integer; negative counts from the end ([-1] is the last element)
//
// `output`, `reward_extra_info.acc`, `completion[-1].content`, `messages[0].content`. A key is matched exactly
// (case-sensitive); a path never reaches into a string.

export type PathSegment = { key: string } | { index: number };
export type JsonPath = { text: string; segments: PathSegment[] };

/** Parses a path, or says what is wrong with it (at which character). */
export function parseJsonPath(text: string): { ok: true; path: JsonPath } | { ok: false; message: string } {
  const segments: PathSegment[] = [];
  let i = 0;
  const bad = (why: string) => ({ ok: false as const, message: `bad path ${JSON.stringify(text)}: ${why}` });
  if (text === "") return bad("empty");
  while (i < text.length) {
    const c = text[i];
    if (c === "[") {
      const end = text.indexOf("]", i);
      if (end < 0) return bad(`"[" at character ${i + 1} is never closed`);
      const inner = text.slice(i + 1, end);
      if (!/^-?\d+$/.test(inner)) return bad(`[${inner}] at character ${i + 1} is not an integer index`);
      segments.push({ index: Number(inner) });
      i = end + 1;
    } else {
      if (c === ".") {
        if (segments.length === 0) return bad("starts with a dot");
        i++;
      } else if (segments.length > 0) {
        return bad(`expected "." or "[" at character ${i + 1}`);
      }
      let j = i;
      while (j < text.length && !".[]=,".includes(text[j])) j++;
      if (j === i) return bad(`empty key at character ${i + 1}`);
      if (j < text.length && "]=,".includes(text[j])) return bad(`unexpected "${text[j]}" at character ${j + 1}`);
      segments.push({ key: text.slice(i, j) });
      i = j;
    }
  }
  return { ok: true, path: { text, segments } };
}

export type Resolved = { found: true; value: unknown } | { found: false; missing: string; why: string };

const describe = (v: unknown) => (v === null ? "null" : Array.isArray(v) ? "an array" : typeof v);

/** The value at `path` in `value`; when there is none, the part of the path that is missing and why. */
export function resolveJsonPath(value: unknown, path: JsonPath): Resolved {
  let at: unknown = value;
  let walked = "";
  for (const seg of path.segments) {
    if ("key" in seg) {
      walked += walked ? `.${seg.key}` : seg.key;
      if (at === null || typeof at !== "object" || Array.isArray(at))
        return { found: false, missing: walked, why: `${describe(at)} has no field ${JSON.stringify(seg.key)}` };
      if (!Object.prototype.hasOwnProperty.call(at, seg.key)) return { found: false, missing: walked, why: "absent" };
      at = (at as Record<string, unknown>)[seg.key];
    } else {
      walked += `[${seg.index}]`;
      if (!Array.isArray(at)) return { found: false, missing: walked, why: `${describe(at)} is not an array` };
      const i = seg.index < 0 ? at.length + seg.index : seg.index;
      if (i < 0 || i >= at.length) return { found: false, missing: walked, why: `the array has ${at.length} elements` };
      at = at[i];
    }
  }
  return { found: true, value: at };
}
