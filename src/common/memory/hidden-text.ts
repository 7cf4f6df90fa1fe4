/**
 * Hidden text: the characters of a note that a person does not see and a model still reads. One
 * definition for everything that judges or shows memory text: the content scanners (which flag
 * it, and read what it spells), the context rendering (which never hands it to an agent) and the
 * editor (which shows each hidden run as a visible placeholder).
 *
 * Hidden: every format character (Cf), Default_Ignorable_Code_Point (zero-width characters, soft
 * hyphen, U+034F, Hangul fillers, U+17B4/5, variation selectors, tag characters, U+1D173-1D17A,
 * ...), the line and paragraph separators U+2028/9 and U+FFF9-FFFB, but not the prepended
 * concatenation marks (U+0600-0605, U+06DD, ...), which are drawn. Ordinary text keeps what it
 * needs, so these are not hidden: a byte-order mark at the very start; a zero-width joiner inside
 * an emoji sequence (between pictographs, after VS16 or a skin tone); a zero-width (non-)joiner
 * between letters of a script that uses them (Arabic, Persian, Indic...); one VS15 or VS16 right
 * after a character that has an emoji form (keycaps included); a Mongolian free variation selector
 * after a Mongolian letter; a subdivision flag's tag letters (black flag, 2 to 7 tag letters or
 * digits, cancel tag).
 *
 * Byte-carrying runs are decoded as a model can read them: variation selectors one byte each
 * (U+FE00-FE0F are bytes 0-15, U+E0100-E01EF bytes 16-255) of UTF-8, tag characters one ASCII
 * character each (U+E0020-E007E).
 *
 * Cost: text without a candidate character is answered by one regex test of explicit ranges (no
 * Unicode property escapes, which cost milliseconds to compile in the prompt hook).
 */

export type HiddenKind = 'variation-selectors' | 'tag-characters' | 'bidi' | 'invisible';

/** A run of consecutive hidden code points of one kind. */
export interface HiddenRun {
  /** UTF-16 offsets: text.slice(start, end) is the run. */
  readonly start: number;
  readonly end: number;
  readonly kind: HiddenKind;
  /** How many code points the run holds. */
  readonly count: number;
  /** Its first code point. */
  readonly first: number;
  /**
   * What a byte-carrying run (variation selectors or tag characters, two or more) spells; absent
   * for other runs.
   */
  readonly decoded?: string;
}

/**
 * Every candidate code point, as explicit ranges: [\p{Cf}\p{Default_Ignorable_Code_Point}\p{Zl}\p{Zp}]
 * without the prepended concatenation marks (hidden-text.test.ts checks the two agree).
 */
const CANDIDATE_SOURCE =
  '\\u00ad\\u034f\\u061c\\u115f\\u1160\\u17b4\\u17b5\\u180b-\\u180f\\u200b-\\u200f\\u2028-\\u202e\\u2060-\\u206f\\u3164\\ufe00-\\ufe0f\\ufeff\\uffa0\\ufff0-\\ufffb' +
  '\\u{13430}-\\u{1343f}\\u{1bca0}-\\u{1bca3}\\u{1d173}-\\u{1d17a}\\u{e0000}-\\u{e0fff}';
// The class lists code points one by one (combining ones among them), each matched on its own.
// eslint-disable-next-line no-misleading-character-class
const CANDIDATE = new RegExp(`[${CANDIDATE_SOURCE}]`, 'u');
// eslint-disable-next-line no-misleading-character-class
const CANDIDATES = new RegExp(`[${CANDIDATE_SOURCE}]`, 'gu');

/**
 * A test by UTF-16 code unit, without the `u` flag (several times faster over a long note): the
 * BMP candidates, and the lead surrogates of the astral ones (U+13430, U+1BCA0, U+1D173, U+E0000
 * blocks). A superset; CANDIDATE decides.
 */
// eslint-disable-next-line no-misleading-character-class
const CANDIDATE_UNIT = /[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u2028-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufffb\ud80d\ud82f\ud834\udb40-\udb43]/;

/** Whether text holds any character that may be hidden (a cheap test before hiddenRuns). */
export function mayHide(text: string): boolean {
  return CANDIDATE_UNIT.test(text) && CANDIDATE.test(text);
}

const EMOJI = /\p{Emoji}/u;
const PICTOGRAPHIC = /\p{Extended_Pictographic}/u;

const isVariationSelector = (cp: number): boolean => (cp >= 0xfe00 && cp <= 0xfe0f) || (cp >= 0xe0100 && cp <= 0xe01ef);
const isTag = (cp: number): boolean => cp >= 0xe0000 && cp <= 0xe007f;
const isBidi = (cp: number): boolean => cp === 0x061c || cp === 0x200e || cp === 0x200f || (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069);
const isSkinTone = (cp: number): boolean => cp >= 0x1f3fb && cp <= 0x1f3ff;
const isMongolianLetter = (cp: number): boolean => cp >= 0x1820 && cp <= 0x18aa;
/** Letters of the scripts that need (non-)joiners between them: Hebrew to the end of the Indic and South-East Asian blocks. */
const isJoiningScriptLetter = (cp: number): boolean => cp >= 0x0590 && cp < 0x2000;
/** A tag letter or digit of a subdivision flag (a-z, 0-9). */
const isFlagTag = (cp: number): boolean => (cp >= 0xe0030 && cp <= 0xe0039) || (cp >= 0xe0061 && cp <= 0xe007a);

function kindOf(cp: number): HiddenKind {
  if (isVariationSelector(cp)) return 'variation-selectors';
  if (isTag(cp)) return 'tag-characters';
  if (isBidi(cp)) return 'bidi';
  return 'invisible';
}

function codePointBefore(text: string, i: number): number {
  if (i <= 0) return -1;
  const lo = text.charCodeAt(i - 1);
  if (lo >= 0xdc00 && lo <= 0xdfff && i >= 2) {
    const hi = text.charCodeAt(i - 2);
    if (hi >= 0xd800 && hi <= 0xdbff) return text.codePointAt(i - 2)!;
  }
  return lo;
}

const width = (cp: number): number => (cp > 0xffff ? 2 : 1);

/** Whether a code point can precede a ZWJ in an emoji sequence. */
function emojiBeforeJoiner(cp: number): boolean {
  return cp === 0xfe0f || isSkinTone(cp) || cp === 0x20e3 || cp === 0xe007f || (cp > 0 && PICTOGRAPHIC.test(String.fromCodePoint(cp)));
}

/** End of a subdivision flag's tags (after U+1F3F4) starting at i, or -1. */
function flagTagsEnd(text: string, i: number): number {
  if (codePointBefore(text, i) !== 0x1f3f4) return -1;
  let j = i;
  for (let n = 0; n <= 7; n++) {
    const cp = text.codePointAt(j);
    if (cp === undefined) return -1;
    if (cp === 0xe007f) return n >= 2 ? j + 2 : -1;
    if (!isFlagTag(cp)) return -1;
    j += 2;
  }
  return -1;
}

/** Whether the code point cp at i is part of ordinary text (see the header), not hidden. */
function isOrdinary(text: string, i: number, cp: number): boolean {
  if (cp === 0xfeff) return i === 0;
  if (cp === 0x200c || cp === 0x200d) {
    const prev = codePointBefore(text, i);
    const next = text.codePointAt(i + 1) ?? -1;
    if (isJoiningScriptLetter(prev) && isJoiningScriptLetter(next)) return true;
    return cp === 0x200d && emojiBeforeJoiner(prev) && next > 0 && PICTOGRAPHIC.test(String.fromCodePoint(next));
  }
  if (cp === 0xfe0e || cp === 0xfe0f) {
    const prev = codePointBefore(text, i);
    return prev > 0 && !isVariationSelector(prev) && EMOJI.test(String.fromCodePoint(prev));
  }
  if (cp === 0x180b || cp === 0x180c || cp === 0x180d || cp === 0x180f) return isMongolianLetter(codePointBefore(text, i));
  return false;
}

const utf8 = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });

function decodeRun(text: string, start: number, end: number, kind: HiddenKind): string {
  if (kind === 'variation-selectors') {
    const bytes: number[] = [];
    for (let i = start; i < end; i += width(text.codePointAt(i)!)) {
      const cp = text.codePointAt(i)!;
      bytes.push(cp <= 0xfe0f ? cp - 0xfe00 : cp - 0xe0100 + 16);
    }
    return utf8.decode(new Uint8Array(bytes));
  }
  let out = '';
  for (let i = start; i < end; i += 2) {
    const c = text.codePointAt(i)! - 0xe0000;
    if (c >= 0x20 && c <= 0x7e) out += String.fromCharCode(c);
  }
  return out;
}

/** The hidden runs of text, in order (none for text without a candidate character). */
export function hiddenRuns(text: string): HiddenRun[] {
  const runs: HiddenRun[] = [];
  if (!mayHide(text)) return runs;
  let open: { start: number; end: number; kind: HiddenKind; count: number; first: number } | null = null;
  const close = (): void => {
    if (open === null) return;
    const { start, end, kind, count, first } = open;
    const carries = (kind === 'variation-selectors' || kind === 'tag-characters') && count >= 2;
    runs.push(carries ? { start, end, kind, count, first, decoded: decodeRun(text, start, end, kind) } : { start, end, kind, count, first });
    open = null;
  };
  CANDIDATES.lastIndex = 0;
  for (let m = CANDIDATES.exec(text); m !== null; m = CANDIDATES.exec(text)) {
    const i = m.index;
    const cp = text.codePointAt(i)!;
    if (isFlagTag(cp)) {
      const end = flagTagsEnd(text, i);
      if (end !== -1) {
        CANDIDATES.lastIndex = end;
        continue;
      }
    }
    if (isOrdinary(text, i, cp)) continue;
    const kind = kindOf(cp);
    if (open !== null && open.end === i && open.kind === kind) {
      open.end = i + width(cp);
      open.count++;
      continue;
    }
    close();
    open = { start: i, end: i + width(cp), kind, count: 1, first: cp };
  }
  close();
  return runs;
}

/** text without its hidden runs (ordinary emoji sequences, joiners and flags kept). */
export function visibleText(text: string): string {
  const runs = hiddenRuns(text);
  if (runs.length === 0) return text;
  let out = '';
  let at = 0;
  for (const r of runs) {
    out += text.slice(at, r.start);
    at = r.end;
  }
  return out + text.slice(at);
}

/** `U+200B`, `U+E0041`: a code point as people write it. */
export function codePointLabel(cp: number): string {
  return `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;
}

/** What a run is, in words: "74 variation selectors", "the invisible character U+200B". */
export function hiddenRunWords(run: Pick<HiddenRun, 'kind' | 'count' | 'first'>): string {
  switch (run.kind) {
    case 'variation-selectors':
      return run.count === 1 ? `the variation selector ${codePointLabel(run.first)}` : `${run.count} variation selectors`;
    case 'tag-characters':
      return run.count === 1 ? `the tag character ${codePointLabel(run.first)}` : `${run.count} Unicode tag characters`;
    case 'bidi':
      return run.count === 1 ? `the bidirectional control ${codePointLabel(run.first)}` : `${run.count} bidirectional controls`;
    case 'invisible':
      return run.count === 1 ? `the invisible character ${codePointLabel(run.first)}` : `${run.count} invisible characters from ${codePointLabel(run.first)}`;
  }
}
