/**
 * The exit code of a run over several clients: 0 when every row is fine, 1 when no real client
 * succeeded, 3 for a partial result. Manual rows (chat apps) never turn a total failure into a
 * partial one, since nothing was actually set up for them.
 */
export const EXIT_PARTIAL = 3;

export function exitCodeFor(rows: readonly { status: string }[], ok: ReadonlySet<string>): number {
  if (rows.every((r) => ok.has(r.status))) return 0;
  const real = rows.filter((r) => r.status !== 'manual');
  if (real.length > 0 && !real.some((r) => ok.has(r.status))) return 1;
  return EXIT_PARTIAL;
}
