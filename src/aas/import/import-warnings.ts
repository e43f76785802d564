/**
 * The warnings of an import: what it stored differently from what it was sent, or could not use. Each has a kind,
 * which the import's answer counts (`counts.warnings`):
 *
 * - `package`: the package itself (a part its relationships name but it lacks, a relationship without a target, ...)
 * - `version`: an AAS V2.0 (or V1.0) document converted to V3.0, and what did not map
 * - `dropped`: a part of a document that cannot be read as the metamodel, or a document given twice (same id),
 *   left out; properties the metamodel does not know, left out
 * - `constraint`: a constraint of the metamodel the stored document breaks (stored as it was)
 * - `file`: a File value or thumbnail that names no file of the package (kept as it was)
 */
export const WARNING_KINDS = ['package', 'version', 'dropped', 'constraint', 'file'] as const;

export type WarningKind = (typeof WARNING_KINDS)[number];

export interface ImportWarning {
  kind: WarningKind;
  text: string;
}

/** At most this many warnings are returned; the rest are counted. */
export const MAX_WARNINGS = 200;

/** A line that stands for `n` more (`parseVerified` reports 50 violations of a document, the V2.0 converter 1000 warnings). */
const MORE = /^(?:.*: )?\.\.\. and (\d+) more (?:violations|warnings)$/;

/** How many warnings of each kind (every kind present, a line standing for more counted as those). */
export function countWarnings(warnings: ImportWarning[]): Record<WarningKind, number> {
  const counts = Object.fromEntries(WARNING_KINDS.map((kind) => [kind, 0])) as Record<WarningKind, number>;
  for (const { kind, text } of warnings) {
    const more = MORE.exec(text);
    counts[kind] += more ? Number(more[1]) : 1;
  }
  return counts;
}

/**
 * The warnings as the answer lists them: each text once, in the order first seen, with `(×n)` where it came n
 * times; at most MAX_WARNINGS, then one line with how many more there are and how many in all.
 */
export function warningLines(warnings: ImportWarning[]): string[] {
  const times = new Map<string, number>();
  for (const { text } of warnings) times.set(text, (times.get(text) ?? 0) + 1);
  const lines = [...times].map(([text, n]) => (n > 1 ? `${text} (×${n})` : text));
  if (lines.length <= MAX_WARNINGS) return lines;
  const total = warnings.length;
  const shown = [...times.values()].slice(0, MAX_WARNINGS).reduce((sum, n) => sum + n, 0);
  return [...lines.slice(0, MAX_WARNINGS), `... and ${total - shown} more warnings (${total} in all)`];
}
