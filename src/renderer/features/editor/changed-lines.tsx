/**
 * Where a file changed when the open editor followed the disk: the lines an agent's (or an outside)
 * edit changed, from the history's line diff (features/history/line-diff.ts), marked in the editor
 * (CodeMirror line decorations) and said in words ("Updated by an agent: lines 8-9 changed.").
 *
 * Invariants: marks stand for the change between the text the person was shown and the text that
 * replaced it, never for the person's own edits: they clear at the person's first edit of the text
 * (a transaction not marked as the editor's own value update) or when dismissed. Line numbers are
 * the new text's, 1-based; a change that only removed lines marks the line after the removal.
 */
import { RangeSetBuilder, type Extension } from '@codemirror/state';
import { Decoration, EditorView } from '@codemirror/view';
import { ExternalChange } from '@uiw/react-codemirror';
import { X } from 'lucide-react';
import { useCallback, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { diffTexts } from '../history/line-diff';

/** A run of changed lines of the new text, [first, last], 1-based and inclusive. */
type LineRange = readonly [number, number];

export interface LineChanges {
  /** Lines added or rewritten, in order, runs merged. */
  readonly changed: LineRange[];
  /** Lines removed with nothing in their place: how many, and the new text's line after them. */
  readonly removed: ReadonlyArray<{ readonly count: number; readonly before: number }>;
}

/** What changed from `before` to `after`, by the lines of `after`. */
export function lineChanges(before: string, after: string): LineChanges {
  const changed: Array<[number, number]> = [];
  const removed: Array<{ count: number; before: number }> = [];
  const lines = diffTexts(before, after);
  let nextNew = 1;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.kind === 'same') nextNew = line.newNo + 1;
    else if (line.kind === 'add') {
      nextNew = line.newNo + 1;
      const last = changed[changed.length - 1];
      if (last && last[1] === line.newNo - 1) last[1] = line.newNo;
      else changed.push([line.newNo, line.newNo]);
    } else {
      // A removal: counted as removed only when no added line stands in its place.
      let j = i;
      while (j < lines.length && lines[j]!.kind === 'del') j++;
      if (lines[j]?.kind !== 'add' && lines[i - 1]?.kind !== 'add') removed.push({ count: j - i, before: nextNew });
      i = j - 1;
    }
  }
  return { changed, removed };
}

const plural = (n: number, one: string, many: string) => (n === 1 ? one : many);

/** The change in words: "lines 8-9 changed", "line 3 and lines 8-9 changed; 2 lines removed before line 12". */
export function describeLineChanges(changes: LineChanges): string {
  const parts: string[] = [];
  if (changes.changed.length > 0) {
    const runs = changes.changed.map(([a, b]) => (a === b ? `${a}` : `${a}-${b}`));
    const single = changes.changed.length === 1 && changes.changed[0]![0] === changes.changed[0]![1];
    const listed = runs.length <= 4 ? runs.join(', ') : `${runs.slice(0, 3).join(', ')} and ${runs.length - 3} more places`;
    parts.push(`${single ? 'line' : 'lines'} ${listed} changed`);
  }
  for (const r of changes.removed.slice(0, 2)) parts.push(`${r.count} ${plural(r.count, 'line', 'lines')} removed before line ${r.before}`);
  if (changes.removed.length > 2) parts.push(`lines removed in ${changes.removed.length - 2} more places`);
  return parts.length === 0 ? 'nothing changed in the text' : parts.join('; ');
}

/** The line numbers to mark: changed lines, and the line after each removal (clamped to the text). */
export function markedLines(changes: LineChanges, lineCount: number): number[] {
  const out = new Set<number>();
  for (const [a, b] of changes.changed) for (let n = a; n <= Math.min(b, lineCount); n++) out.add(n);
  for (const r of changes.removed) out.add(Math.max(1, Math.min(r.before, lineCount)));
  return [...out].sort((x, y) => x - y);
}

const changedLine = Decoration.line({ class: 'cm-agent-changed', attributes: { title: 'Changed on disk just now' } });

/** The editor's marks for `lines`, and a listener that clears them at the person's first edit. */
function changedLinesExtension(lines: readonly number[], onPersonEdit: () => void): Extension {
  return [
    EditorView.decorations.compute(['doc'], (state) => {
      const builder = new RangeSetBuilder<Decoration>();
      for (const n of lines) if (n <= state.doc.lines) builder.add(state.doc.line(n).from, state.doc.line(n).from, changedLine);
      return builder.finish();
    }),
    EditorView.updateListener.of((u) => {
      if (u.transactions.some((tr) => tr.docChanged && !tr.annotation(ExternalChange))) onPersonEdit();
    }),
  ];
}

interface Shown {
  changes: LineChanges;
  who: string;
}

/**
 * The open editor's changed-line marks. `base` is the text the editor shows from disk; call
 * `expect(who)` before following the disk, and the next base is compared with the one before it.
 */
export function useChangedLines(base: string | null): {
  /** Mark what the next text from disk changes, said as changed `who` ("by an agent"). */
  expect: (who: string) => void;
  clear: () => void;
  /** The marks' extension (keep it in the editor's extensions). */
  extension: Extension;
  /** The notice saying where, with Dismiss; null when nothing is marked. */
  notice: ReactNode;
} {
  const [shown, setShown] = useState<Shown | null>(null);
  const expected = useRef<{ who: string } | null>(null);
  const lastBase = useRef(base);
  useEffect(() => {
    const before = lastBase.current;
    lastBase.current = base;
    const pending = expected.current;
    if (!pending || base === null || base === before) return;
    expected.current = null;
    if (before === null) return;
    setShown({ changes: lineChanges(before, base), who: pending.who });
  }, [base]);
  const expect = useCallback((who: string) => {
    expected.current = { who };
  }, []);
  const clear = useCallback(() => setShown(null), []);
  const lines = useMemo(() => (shown ? markedLines(shown.changes, Number.MAX_SAFE_INTEGER) : []), [shown]);
  const extension = useMemo(() => (lines.length === 0 ? [] : changedLinesExtension(lines, clear)), [lines, clear]);
  const notice = shown && (
    <div className="notice changed-lines-notice" role="status">
      <span>
        Updated {shown.who}: {describeLineChanges(shown.changes)}.
      </span>
      <button type="button" className="link" onClick={clear} aria-label="Dismiss the marks of what changed">
        <X size={12} aria-hidden /> Dismiss
      </button>
    </div>
  );
  return { expect, clear, extension, notice };
}
