/** Types shared by the scanner's rule modules and its public API. */
import type { HiddenKind } from '../../../common/memory/hidden-text';

export type FindingKind = 'secret' | 'injection';

/** A rule hit before line numbers and messages: a character range of the scanned text. */
export interface RawFinding {
  readonly kind: FindingKind;
  readonly rule: string;
  /** Offset of the first character of the match. */
  readonly start: number;
  /** Offset just past the match. */
  readonly end: number;
  /** Extra, non-secret detail for the message (for example a code point like U+200B). */
  readonly detail?: string;
  /** Found in what a run of hidden characters spells (content-scanner.ts, the model's reading). */
  readonly hidden?: HiddenKind;
}

/** What a rule reports, in words a model can act on. */
export interface RuleInfo {
  readonly kind: FindingKind;
  /** A noun phrase completing "Line N looks like ..." (secrets) or "Line N contains ..." (injection). */
  readonly what: string;
}

/** One scan's inputs and output, shared by the rule modules. */
export interface ScanContext {
  readonly text: string;
  /** text lower-cased with every index unchanged (anchors are searched here). */
  readonly lower: string;
  readonly lines: LineBounds;
  readonly out: RawFinding[];
  /** Lazily computed facts about the text, shared by rules. */
  readonly memo: { pemBegins?: number[]; pemEnds?: number[]; fences?: number[]; passes?: number[] };
  /**
   * The text is a path's names, one per line (scanName): rules that need a note's lines around a
   * hit (exfiltration, transcripts) are off, and a quoted phrase is no mention (a name has no
   * sentence around it to discuss it).
   */
  readonly names?: boolean;
}

/**
 * Bounds of the line holding an index, cached so that many hits on one long line cost one search.
 * Rules look at most WINDOW characters either side of a hit, so a single huge line stays linear.
 */
export class LineBounds {
  start = 0;
  end = -1;
  constructor(private readonly text: string) {}

  /** Moves to the line holding index; then start..end (end excludes the newline). */
  at(index: number): this {
    if (index < this.start || index > this.end) {
      this.start = index === 0 ? 0 : this.text.lastIndexOf('\n', index - 1) + 1;
      const e = this.text.indexOf('\n', index);
      this.end = e === -1 ? this.text.length : e;
    }
    return this;
  }
}

/** How far around a hit the context checks look. */
export const WINDOW = 1024;

/** Calls fn with every index of literal in haystack, left to right. */
export function eachIndex(haystack: string, literal: string, fn: (index: number) => void): void {
  for (let i = haystack.indexOf(literal); i !== -1; i = haystack.indexOf(literal, i + 1)) fn(i);
}

/** Runs a sticky regex at index; the match or null. */
export function matchAt(re: RegExp, text: string, index: number): RegExpExecArray | null {
  if (index < 0) return null;
  re.lastIndex = index;
  return re.exec(text);
}
