/**
 * A unified line diff, read-only: removed lines red with "−", added lines green with "+", each
 * with its line number, and a hidden "Removed:" / "Added:" for screen readers (colour is never the
 * only sign). Long unchanged stretches are folded; a button shows them.
 */
import { useMemo, useState } from 'react';
import { countChanges, diffTexts, foldUnchanged, type DiffLine } from './line-diff';

export interface LineDiffProps {
  oldText: string;
  newText: string;
  /** What the two sides are, for the legend and the accessible name ("this version", "the file now"). */
  oldLabel: string;
  newLabel: string;
}

export function LineDiff({ oldText, newText, oldLabel, newLabel }: LineDiffProps) {
  const lines = useMemo(() => diffTexts(oldText, newText), [oldText, newText]);
  const rows = useMemo(() => foldUnchanged(lines), [lines]);
  const { added, removed } = countChanges(lines);
  const [open, setOpen] = useState<ReadonlySet<number>>(new Set());

  return (
    <div className="line-diff" role="group" aria-label={`Differences between ${oldLabel} and ${newLabel}`}>
      <p className="line-diff-legend">
        <span className="del-key">
          <span aria-hidden>−</span> {removed} {removed === 1 ? 'line' : 'lines'} only in {oldLabel}
        </span>
        <span className="add-key">
          <span aria-hidden>+</span> {added} {added === 1 ? 'line' : 'lines'} only in {newLabel}
        </span>
      </p>
      <div className="line-diff-body">
        {rows.map((row, i) =>
          row.kind === 'fold' ? (
            open.has(i) ? (
              row.lines.map((l) => <DiffLineView key={`s${l.oldNo}`} line={l} />)
            ) : (
              <button key={`f${i}`} type="button" className="dl-fold" onClick={() => setOpen((prev) => new Set(prev).add(i))}>
                Show {row.lines.length} unchanged lines
              </button>
            )
          ) : (
            <DiffLineView key={row.kind === 'add' ? `a${row.newNo}` : `${row.kind[0]}${row.oldNo}`} line={row} />
          ),
        )}
      </div>
    </div>
  );
}

/**
 * One line of a diff: its number, its sign and its text, with a hidden "Removed:" / "Added:" for
 * screen readers. `side`: the number an unchanged line shows (its old one unless 'new'); an
 * unchanged line on the new side is not read out (the side-by-side diff, features/consolidation, shows it
 * twice and reads it once, on the left).
 */
export function DiffLineView({ line, side = 'old' }: { line: DiffLine; side?: 'old' | 'new' }) {
  const no = line.kind === 'add' ? line.newNo : line.kind === 'del' ? line.oldNo : side === 'old' ? line.oldNo : line.newNo;
  return (
    <div className={`dl ${line.kind}`} aria-hidden={line.kind === 'same' && side === 'new' ? true : undefined}>
      <span className="dl-no" aria-hidden>
        {no}
      </span>
      <span className="dl-sign" aria-hidden>
        {line.kind === 'add' ? '+' : line.kind === 'del' ? '−' : ''}
      </span>
      <span className="dl-text">
        {line.kind !== 'same' && <span className="sr-only">{line.kind === 'add' ? 'Added: ' : 'Removed: '}</span>}
        {line.text}
      </span>
    </div>
  );
}
