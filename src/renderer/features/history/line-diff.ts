/**
 * A line diff as rows a person reads top to bottom (the `diff` package's diffLines, split into
 * lines with their old and new line numbers), with long unchanged stretches folded to a few lines
 * of context around each change. Pure.
 */
import { diffLines } from 'diff';

export type DiffLine =
  | { kind: 'same'; text: string; oldNo: number; newNo: number }
  | { kind: 'del'; text: string; oldNo: number }
  | { kind: 'add'; text: string; newNo: number };

/** Folded: a run of unchanged lines shown as one "N unchanged lines" row (expandable). */
export type DiffRow = DiffLine | { kind: 'fold'; lines: Extract<DiffLine, { kind: 'same' }>[] };

function splitLines(value: string): string[] {
  const lines = value.split('\n');
  // A value ending in a newline ends its last line; it does not start an empty one.
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** Every line of `oldText` -> `newText`, in order; unchanged, removed or added. */
export function diffTexts(oldText: string, newText: string): DiffLine[] {
  const out: DiffLine[] = [];
  let oldNo = 1;
  let newNo = 1;
  for (const part of diffLines(oldText, newText)) {
    for (const text of splitLines(part.value)) {
      if (part.added) out.push({ kind: 'add', text, newNo: newNo++ });
      else if (part.removed) out.push({ kind: 'del', text, oldNo: oldNo++ });
      else out.push({ kind: 'same', text, oldNo: oldNo++, newNo: newNo++ });
    }
  }
  return out;
}

/** Lines added and removed. */
export function countChanges(lines: readonly DiffLine[]): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  for (const l of lines) {
    if (l.kind === 'add') added++;
    else if (l.kind === 'del') removed++;
  }
  return { added, removed };
}

/**
 * Keeps `context` unchanged lines around each change and folds longer unchanged runs (a fold of
 * fewer than 3 lines is not worth a row: those stay).
 */
export function foldUnchanged(lines: readonly DiffLine[], context = 3): DiffRow[] {
  const out: DiffRow[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    if (line.kind !== 'same') {
      out.push(line);
      i++;
      continue;
    }
    let j = i;
    while (j < lines.length && lines[j]!.kind === 'same') j++;
    const run = lines.slice(i, j) as Extract<DiffLine, { kind: 'same' }>[];
    const keepBefore = i === 0 ? 0 : context;
    const keepAfter = j === lines.length ? 0 : context;
    if (run.length - keepBefore - keepAfter >= 3) {
      out.push(...run.slice(0, keepBefore));
      out.push({ kind: 'fold', lines: run.slice(keepBefore, run.length - keepAfter) });
      out.push(...run.slice(run.length - keepAfter));
    } else out.push(...run);
    i = j;
  }
  return out;
}
