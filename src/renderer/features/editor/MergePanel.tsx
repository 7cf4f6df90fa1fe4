/**
 * What the editor shows when a save found the file changed on disk and the draft's base is known
 * (three-way-merge.ts): a merge without conflicts as a diff of what "Save merged" writes against
 * the file on disk now; a merge with conflicts as its pieces, the clean ones already merged and
 * each conflict with Take mine, Take theirs, Take both and Edit. The sides are the draft and the
 * disk, or what the caller names them (a sync's conflict: this machine and the other machine).
 *
 * Invariants: nothing here saves. The editor's banner holds Save merged, enabled once
 * `mergedText` has an answer (every conflict resolved); a resolution can be changed until then.
 * Styles are inline and drawn from the stylesheet's variables, so both themes apply.
 */
import { Check, Pencil } from 'lucide-react';
import { useState, type CSSProperties } from 'react';
import { LineDiff } from '../history/LineDiff';
import { resolvedLines, type ConflictPiece, type Resolution, type ThreeWayMerge } from './three-way-merge';

/** The merge "Save merged" writes, against the file on disk now. */
export function MergePreview({ merged, disk }: { merged: string; disk: string }) {
  return (
    <div className="merge-preview" aria-label="The merge to be saved, against the file on disk">
      <LineDiff oldText={disk} newText={merged} oldLabel="the file on disk" newLabel="the merge" />
    </div>
  );
}

const CONTEXT = 3;
const box: CSSProperties = { border: '1px solid var(--line)', borderRadius: 6, margin: '8px 14px', background: 'var(--panel)' };
const sideHead: CSSProperties = { margin: 0, padding: '4px 10px', fontSize: 11.5, fontWeight: 600, color: 'var(--muted)', borderBottom: '1px solid var(--line)' };
const code: CSSProperties = { margin: 0, padding: '4px 10px', fontFamily: 'var(--mono)', fontSize: 12.5, lineHeight: 1.5, whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' };
const TAKES = [
  ['mine', 'Take mine'],
  ['theirs', 'Take theirs'],
  ['both', 'Take both'],
] as const;

const shown = (lines: readonly string[]) => (lines.length === 0 ? '(no lines)' : lines.join('\n'));

/** What the two sides of a conflict are called: the person's draft and the disk, unless said otherwise. */
export interface MergeSides {
  mine: string;
  theirs: string;
  /** The group's accessible name. */
  label: string;
  /** What the pieces outside the conflicts are, said after the count. */
  cleanNote: string;
}

const DRAFT_AND_DISK: MergeSides = { mine: 'Yours', theirs: 'On disk now', label: 'Your changes and the file on disk, piece by piece', cleanNote: 'Lines changed on one side only are already merged.' };

/** Conflicts resolved piece by piece; `onResolve(i, r)` records the i-th conflict's resolution. */
export function MergeResolver({ merge, resolutions, onResolve, sides = DRAFT_AND_DISK }: { merge: ThreeWayMerge; resolutions: ReadonlyArray<Resolution | undefined>; onResolve: (i: number, r: Resolution) => void; sides?: MergeSides }) {
  const done = resolutions.filter(Boolean).length;
  let n = -1;
  return (
    <div className="merge-resolver" role="group" aria-label={sides.label}>
      <p className="notice" role="status">
        {done} of {merge.conflicts} {merge.conflicts === 1 ? 'conflict' : 'conflicts'} resolved. {sides.cleanNote}
      </p>
      {merge.pieces.map((piece, i) => {
        if (piece.kind === 'clean') return <CleanLines key={i} lines={piece.lines} first={i === 0} last={i === merge.pieces.length - 1} />;
        const at = ++n;
        return <ConflictView key={i} at={at} of={merge.conflicts} piece={piece} sides={sides} resolution={resolutions[at]} onResolve={(r) => onResolve(at, r)} />;
      })}
    </div>
  );
}

/** Lines both sides agree on, folded to their edges next to a conflict. */
function CleanLines({ lines, first, last }: { lines: string[]; first: boolean; last: boolean }) {
  const [open, setOpen] = useState(false);
  const head = first ? 0 : CONTEXT;
  const tail = last ? 0 : CONTEXT;
  if (open || lines.length <= head + tail + 1) return <pre style={{ ...code, color: 'var(--muted)' }}>{lines.join('\n')}</pre>;
  return (
    <div>
      {head > 0 && <pre style={{ ...code, color: 'var(--muted)' }}>{lines.slice(0, head).join('\n')}</pre>}
      <button type="button" className="dl-fold" onClick={() => setOpen(true)}>
        Show {lines.length - head - tail} merged lines
      </button>
      {tail > 0 && <pre style={{ ...code, color: 'var(--muted)' }}>{lines.slice(-tail).join('\n')}</pre>}
    </div>
  );
}

function ConflictView({ at, of, piece, sides, resolution, onResolve }: { at: number; of: number; piece: ConflictPiece; sides: MergeSides; resolution: Resolution | undefined; onResolve: (r: Resolution) => void }) {
  const [editing, setEditing] = useState<string | null>(null);
  const label = `Conflict ${at + 1} of ${of}`;
  const taken = resolution && 'take' in resolution ? resolution.take : null;
  return (
    <section style={{ ...box, borderColor: resolution ? 'var(--line)' : 'var(--warn)' }} aria-label={label}>
      <h3 style={{ ...sideHead, display: 'flex', alignItems: 'center', gap: 6, color: resolution ? 'var(--ok)' : 'var(--warn)' }}>
        {resolution && <Check size={13} aria-hidden />}
        {label}
        {resolution ? ': resolved' : ': both changed these lines'}
      </h3>
      <div style={{ display: 'grid', gridTemplateColumns: '1fr 1fr' }}>
        <div style={{ borderRight: '1px solid var(--line)', minWidth: 0 }}>
          <h4 style={sideHead}>{sides.mine}</h4>
          <pre style={code} aria-label={sides === DRAFT_AND_DISK ? 'Your lines' : `Lines of ${sides.mine.toLowerCase()}`}>
            {shown(piece.mine)}
          </pre>
        </div>
        <div style={{ minWidth: 0 }}>
          <h4 style={sideHead}>{sides.theirs}</h4>
          <pre style={code} aria-label={sides === DRAFT_AND_DISK ? 'The lines on disk' : `Lines of ${sides.theirs.toLowerCase()}`}>
            {shown(piece.theirs)}
          </pre>
        </div>
      </div>
      <div role="group" aria-label={`Resolve conflict ${at + 1}`} style={{ display: 'flex', flexWrap: 'wrap', gap: 6, padding: '6px 10px', borderTop: '1px solid var(--line)' }}>
        {TAKES.map(([take, words]) => (
          <button
            key={take}
            type="button"
            className={taken === take ? 'btn small primary' : 'btn small'}
            aria-pressed={taken === take}
            onClick={() => {
              setEditing(null);
              onResolve({ take });
            }}
          >
            {words}
          </button>
        ))}
        <button type="button" className="btn small" aria-pressed={editing !== null} onClick={() => setEditing(editing === null ? resolvedLines(piece, resolution ?? { take: 'both' }).join('\n') : null)}>
          <Pencil size={12} aria-hidden /> Edit
        </button>
      </div>
      {editing !== null && (
        <div style={{ padding: '0 10px 8px' }}>
          <textarea aria-label={`Your text for conflict ${at + 1}`} value={editing} rows={Math.min(12, editing.split('\n').length + 1)} style={{ width: '100%', fontFamily: 'var(--mono)', fontSize: 12.5, padding: 6, border: '1px solid var(--line)', borderRadius: 6, background: 'var(--bg)' }} onChange={(e) => setEditing(e.target.value)} />
          <button type="button" className="btn small primary" onClick={() => (onResolve({ text: editing }), setEditing(null))}>
            Use this text
          </button>
        </div>
      )}
      {resolution && editing === null && (
        <div style={{ borderTop: '1px solid var(--line)' }}>
          <h4 style={sideHead}>Becomes</h4>
          <pre style={code} aria-label={`What conflict ${at + 1} becomes`}>
            {shown(resolvedLines(piece, resolution))}
          </pre>
        </div>
      )}
    </section>
  );
}
