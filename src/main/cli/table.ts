/**
 * The CLI's output: tables (`stats`, `history`), columns padded to their widest cell, two spaces
 * apart, the last column left as it is (paths); times as people read them in those tables; and
 * the pretty-printed JSON of --json.
 */
import type { CliIo } from './tool-command';

export function writeTable(io: CliIo, rows: ReadonlyArray<readonly string[]>): void {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  for (const row of rows) io.stdout.write(`${row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  ')}\n`);
}

/** An ISO time to the minute, UTC ("2026-11-24 23:39"); '-' for none. */
export function minuteOf(iso: string | null): string {
  return iso ? iso.replace('T', ' ').slice(0, 16) : '-';
}

/** Writes `value` as indented JSON on stdout; returns `exit`, the command's status. */
export function writeJson(io: CliIo, value: unknown, exit = 0): number {
  io.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
  return exit;
}
