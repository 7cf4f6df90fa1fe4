/**
 * A unified line diff, read-only: removed lines red with "−", added lines green with "+", each
 * with its line number, and a hidden "Removed:" / "Added:" for screen readers (colour is never the
 * only sign). Long unchanged stretches are folded; a button shows them.
 */
import { useMemo, useState } from 'react';
import { countChanges, diffTexts, foldUnchanged, type DiffRow } from './line-diff';

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
              row.lines.map((l) => <Line key={`s${l.oldNo}`} row={l} />)
            ) : (
              <button key={`f${i}`} type="button" className="dl-fold" onClick={() => setOpen((prev) => new Set(prev).add(i))}>
                Show {row.lines.length} unchanged lines
              </button>
            )
          ) : (
            <Line key={row.kind === 'add' ? `a${row.newNo}` : `${row.kind[0]}${row.oldNo}`} row={row} />
          ),
        )}
      </div>
    </div>
  );
}

function Line({ row }: { row: Exclude<DiffRow, { kind: 'fold' }> }) {
  const no = row.kind === 'add' ? row.newNo : row.oldNo;
  return (
    <div className={`dl ${row.kind}`}>
      <span className="dl-no" aria-hidden>
        {no}
      </span>
      <span className="dl-sign" aria-hidden>
        {row.kind === 'add' ? '+' : row.kind === 'del' ? '−' : ''}
      </span>
      <span className="dl-text">
        {row.kind !== 'same' && <span className="sr-only">{row.kind === 'add' ? 'Added: ' : 'Removed: '}</span>}
        {row.text}
      </span>
    </div>
  );
}
