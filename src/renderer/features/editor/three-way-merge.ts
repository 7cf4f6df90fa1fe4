/**
 * The three-way merge of a person's draft with the file as it is on disk now: base is the version
 * the draft was based on, mine the draft, theirs the disk. node-diff3 finds the regions; a region
 * it calls a conflict is looked at again change by change, because diff3 counts edits on adjacent
 * lines (the person's line 8, an agent's line 9) as one conflict, and those do not overlap.
 *
 * Invariants: lines are compared without their line ends, so a draft whose line ends the editor
 * normalised still matches its base; the merged text takes the line end of the file on disk (the
 * editor cannot change line ends, so the file keeps its own), and a trailing newline survives as
 * the empty last line it splits into. Nothing here decides for the person: a merge with conflicts
 * has no text until each conflict has a resolution.
 */
import { diff3Merge, diffIndices } from 'node-diff3';

/** A run of lines both sides agree on (unchanged, changed on one side only, or changed alike). */
interface CleanPiece {
  kind: 'clean';
  lines: string[];
}

/** Lines both sides changed differently: base is what they both started from. */
export interface ConflictPiece {
  kind: 'conflict';
  base: string[];
  mine: string[];
  theirs: string[];
}

type MergePiece = CleanPiece | ConflictPiece;

export interface ThreeWayMerge {
  pieces: MergePiece[];
  /** The line end the merged text is written with. */
  eol: '\n' | '\r\n';
  /** How many pieces are conflicts. */
  conflicts: number;
}

/** How a person resolved one conflict: one side, both (mine first), or text they wrote. */
export type Resolution = { take: 'mine' | 'theirs' | 'both' } | { text: string };

const splitLines = (text: string): string[] => text.split(/\r\n|\n/);
const eolOf = (text: string): '\n' | '\r\n' => (text.includes('\r\n') ? '\r\n' : '\n');

export function mergeThreeWay(base: string, mine: string, theirs: string): ThreeWayMerge {
  const o = splitLines(base);
  const a = splitLines(mine);
  const b = splitLines(theirs);
  const pieces: MergePiece[] = [];
  const clean = (lines: string[]) => {
    if (lines.length === 0) return;
    const last = pieces.at(-1);
    if (last?.kind === 'clean') last.lines.push(...lines);
    else pieces.push({ kind: 'clean', lines: [...lines] });
  };
  for (const region of diff3Merge<string>(a, o, b, { excludeFalseConflicts: true })) {
    if (region.ok) clean(region.ok);
    else if (region.conflict) {
      for (const piece of splitConflict(region.conflict.o, region.conflict.a, region.conflict.b)) {
        if (piece.kind === 'clean') clean(piece.lines);
        else pieces.push(piece);
      }
    }
  }
  return { pieces, eol: theirs.length > 0 ? eolOf(theirs) : eolOf(base || mine), conflicts: pieces.filter((p) => p.kind === 'conflict').length };
}

/** The merged text once every conflict has a resolution (`resolutions[i]` for the i-th conflict), else null. */
export function mergedText(merge: ThreeWayMerge, resolutions: ReadonlyArray<Resolution | undefined>): string | null {
  const lines: string[] = [];
  let n = 0;
  for (const piece of merge.pieces) {
    if (piece.kind === 'clean') {
      lines.push(...piece.lines);
      continue;
    }
    const r = resolutions[n++];
    if (!r) return null;
    lines.push(...resolvedLines(piece, r));
  }
  return lines.join(merge.eol);
}

export function resolvedLines(piece: ConflictPiece, r: Resolution): string[] {
  if ('text' in r) return r.text === '' ? [] : splitLines(r.text);
  if (r.take === 'mine') return piece.mine;
  if (r.take === 'theirs') return piece.theirs;
  return [...piece.mine, ...piece.theirs];
}

/** One side's change inside a region: base lines [start, end) become `lines`. */
interface Change {
  side: 'mine' | 'theirs';
  start: number;
  end: number;
  lines: string[];
}

/**
 * A region diff3 could not merge, split into what does merge and what does not. Two changes
 * clash when their base ranges overlap, or touch where one of them is an insertion (the order of
 * the lines would be a guess); changes on adjacent, distinct lines do not.
 */
function splitConflict(o: string[], a: string[], b: string[]): MergePiece[] {
  const changes: Change[] = [
    ...diffIndices(o, a).map((d): Change => ({ side: 'mine', start: d.buffer1[0], end: d.buffer1[0] + d.buffer1[1], lines: d.buffer2Content })),
    ...diffIndices(o, b).map((d): Change => ({ side: 'theirs', start: d.buffer1[0], end: d.buffer1[0] + d.buffer1[1], lines: d.buffer2Content })),
  ].sort((x, y) => x.start - y.start || x.end - y.end);
  const clash = (x: Change, y: Change) => x.start < y.end && y.start < x.end || ((x.start === x.end || y.start === y.end) && (x.end === y.start || y.end === x.start || x.start === y.start));

  // Groups of changes that clash with each other, in base order.
  const groups: Change[][] = [];
  for (const c of changes) {
    const group = groups.at(-1);
    if (group?.some((g) => clash(g, c))) group.push(c);
    else groups.push([c]);
  }

  const pieces: MergePiece[] = [];
  let at = 0;
  for (const group of groups) {
    const start = Math.min(...group.map((c) => c.start));
    const end = Math.max(...group.map((c) => c.end));
    if (start > at) pieces.push({ kind: 'clean', lines: o.slice(at, start) });
    const side = (s: Change['side']) => apply(o, start, end, group.filter((c) => c.side === s));
    const mine = side('mine');
    const theirs = side('theirs');
    const sides = new Set(group.map((c) => c.side));
    if (sides.size === 1) pieces.push({ kind: 'clean', lines: sides.has('mine') ? mine : theirs });
    else if (mine.join('\n') === theirs.join('\n')) pieces.push({ kind: 'clean', lines: mine });
    else pieces.push({ kind: 'conflict', base: o.slice(start, end), mine, theirs });
    at = end;
  }
  if (at < o.length) pieces.push({ kind: 'clean', lines: o.slice(at) });
  return pieces;
}

/** Base lines [start, end) with one side's changes (in base order, inside that range) applied. */
function apply(o: string[], start: number, end: number, changes: Change[]): string[] {
  const out: string[] = [];
  let at = start;
  for (const c of changes) {
    out.push(...o.slice(at, c.start), ...c.lines);
    at = c.end;
  }
  out.push(...o.slice(at, end));
  return out;
}

/**
 * Two texts with no known common version (a sync's conflict: this machine's file and the other
 * machine's), as a merge: the lines both hold are clean, and each place they differ is a conflict
 * with an empty base, resolved piece by piece like any other. The merged text keeps `mine`'s line end.
 */
export function mergeTwoWay(mine: string, theirs: string): ThreeWayMerge {
  const a = splitLines(mine);
  const b = splitLines(theirs);
  const pieces: MergePiece[] = [];
  let at = 0;
  for (const d of diffIndices(a, b)) {
    const [start, length] = d.buffer1;
    if (start > at) pieces.push({ kind: 'clean', lines: a.slice(at, start) });
    pieces.push({ kind: 'conflict', base: [], mine: a.slice(start, start + length), theirs: d.buffer2Content });
    at = start + length;
  }
  if (at < a.length) pieces.push({ kind: 'clean', lines: a.slice(at) });
  return { pieces, eol: eolOf(mine || theirs), conflicts: pieces.filter((p) => p.kind === 'conflict').length };
}
