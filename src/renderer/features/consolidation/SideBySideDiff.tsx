/**
 * A file's text before and after a change, side by side, read-only: the line diff of the history
 * and the Inbox (history/line-diff.ts: the same lines, the same folding of long unchanged
 * stretches, the same colours and signs), laid out in two columns, removed lines on the left beside
 * the lines added in their place on the right. A hidden "Removed:" / "Added:" tells a screen reader
 * what colour tells the eye. A side with no text (a file going, a new one) says so.
 */
import { useMemo, useState } from 'react';
import { countChanges, diffTexts, foldUnchanged, type DiffLine, type DiffRow } from '../history/line-diff';
import { DiffLineView } from '../history/LineDiff';

type Same = Extract<DiffLine, { kind: 'same' }>;
type Cell = DiffLine | null;
type Pair = { kind: 'pair'; left: Cell; right: Cell } | { kind: 'fold'; lines: Same[]; at: number };

/** The diff's rows as left/right pairs: each run of removed lines beside the run of added lines after it. */
export function pairRows(rows: readonly DiffRow[]): Pair[] {
  const out: Pair[] = [];
  let i = 0;
  while (i < rows.length) {
    const r = rows[i]!;
    if (r.kind === 'fold') {
      out.push({ kind: 'fold', lines: r.lines, at: i });
      i++;
    } else if (r.kind === 'same') {
      out.push({ kind: 'pair', left: r, right: r });
      i++;
    } else {
      const dels: DiffLine[] = [];
      const adds: DiffLine[] = [];
      while (i < rows.length && rows[i]!.kind === 'del') dels.push(rows[i++] as DiffLine);
      while (i < rows.length && rows[i]!.kind === 'add') adds.push(rows[i++] as DiffLine);
      for (let k = 0; k < Math.max(dels.length, adds.length); k++) out.push({ kind: 'pair', left: dels[k] ?? null, right: adds[k] ?? null });
    }
  }
  return out;
}

export interface SideBySideDiffProps {
  /** The text now (null: no file). */
  before: string | null;
  /** The text it becomes (null: the file goes). */
  after: string | null;
  /** The two sides, for the headings and the accessible name. */
  beforeLabel: string;
  afterLabel: string;
  /** What the diff is of (the file's path), for the accessible name. */
  of: string;
}

export function SideBySideDiff({ before, after, beforeLabel, afterLabel, of }: SideBySideDiffProps) {
  const lines = useMemo(() => diffTexts(before ?? '', after ?? ''), [before, after]);
  const pairs = useMemo(() => pairRows(foldUnchanged(lines)), [lines]);
  const { added, removed } = countChanges(lines);
  const [open, setOpen] = useState<ReadonlySet<number>>(new Set());

  return (
    <div className="sbs" role="group" aria-label={`${of}: ${beforeLabel} beside ${afterLabel}`}>
      <div className="sbs-heads" aria-hidden>
        <span>
          {beforeLabel} <span className="del-key">−{removed}</span>
        </span>
        <span>
          {afterLabel} <span className="add-key">+{added}</span>
        </span>
      </div>
      <p className="sr-only">
        {removed} {removed === 1 ? 'line' : 'lines'} removed, {added} {added === 1 ? 'line' : 'lines'} added.
      </p>
      <div className="sbs-body">
        {pairs.map((p, i) =>
          p.kind === 'fold' ? (
            open.has(p.at) ? (
              p.lines.map((l) => <PairRow key={`s${l.oldNo}`} left={l} right={l} />)
            ) : (
              <button key={`f${p.at}`} type="button" className="dl-fold" onClick={() => setOpen((prev) => new Set(prev).add(p.at))}>
                Show {p.lines.length} unchanged lines
              </button>
            )
          ) : (
            <PairRow key={i} left={p.left} right={p.right} />
          ),
        )}
        {before === null && <p className="sbs-none">No file before: it is new.</p>}
        {after === null && lines.length === 0 && <p className="sbs-none">The file is empty; it goes.</p>}
      </div>
    </div>
  );
}

function PairRow({ left, right }: { left: Cell; right: Cell }) {
  return (
    <div className="sbs-row">
      <Side line={left} side="old" />
      <Side line={right} side="new" />
    </div>
  );
}

function Side({ line, side }: { line: Cell; side: 'old' | 'new' }) {
  if (line === null) return <div className="dl empty" aria-hidden />;
  return <DiffLineView line={line} side={side} />;
}
