/**
 * The path rules of the security envelope: how a model-facing virtual path is parsed, and which
 * names found on disk may ever be shown. Pure; runs before any filesystem access. Everything that
 * accepts or renders a memory path goes through this module.
 */
import {
  MAX_PATH_CHARS,
  MAX_SEGMENT_BYTES,
  MEMORY_ROOT,
  RESERVED_NAME_PREFIX,
  SCOPES,
  type Scope,
} from './constants';
import { MemoryToolError } from './errors';

/** `/memories` itself, or a path inside one scope (`segments` empty for the scope root). */
export type VirtualPath =
  | { readonly kind: 'root' }
  | { readonly kind: 'scope'; readonly scope: Scope; readonly segments: readonly string[] };

/**
 * The one rule for the characters a memory name may hold, for names a model writes and names found
 * on disk alike. Refused: characters that are invisible or can hide, reorder or fake text, and
 * characters that make two names that look the same, or one name that cannot be stored as written:
 * - controls (Cc: C0, DEL, C1), format characters (Cf: soft hyphen, zero-width, bidi controls,
 *   U+061C, U+180E, U+206A-206F, U+FFF9-FFFB, U+1D173-1D17A, tag characters, BOM, ...) and every
 *   Default_Ignorable_Code_Point (variation selectors, U+034F, U+17B4/17B5, Hangul fillers, ...);
 * - line and paragraph separators (Zl, Zp), and spaces other than U+0020 (NBSP, U+2000-200A, U+202F,
 *   U+205F, U+3000, U+1680), which look like a plain space;
 * - private-use characters (Co: they render as whatever a font makes of them, often nothing),
 *   noncharacters (U+FDD0-FDEF, U+xFFFE/xFFFF), and U+FFFD, which a name that is not valid UTF-8
 *   on disk reads as (so two names on disk would show as one);
 * - surrogates: a string that is not well-formed UTF-16 (a lone surrogate) is written to disk as
 *   U+FFFD, two names for one file.
 * A name must also be in Unicode normalization form C: `cafe` with its e acute spelt as U+00E9
 * and as e + U+0301 would be two files that look the same. It is refused with the NFC spelling to
 * use, never normalized silently.
 */
const REFUSED_CHAR =
  /[\p{Cc}\p{Cf}\p{Co}\p{Cs}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}\p{Noncharacter_Code_Point}\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000\ufffd]/u;
const REFUSED_CHARS = new RegExp(REFUSED_CHAR.source, 'gu');
/** Characters that would let a path escape, alias, or break out of prompt markup. */
const FORBIDDEN_CHARS = /[~\\<>"]/;
/** URL-encoded `.`, `/` and `\`, in any case. */
const ENCODED_TRAVERSAL = /%(2e|2f|5c)/i;
/** Text that needs no Unicode check: printable ASCII only. */
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

const utf8 = new TextEncoder();

const isHighSurrogate = (unit: number): boolean => unit >= 0xd800 && unit <= 0xdbff;

/** `U+00E9`: how an error names a code point. */
function codePoint(c: string): string {
  return `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
}

/** `\u00ad`, or `\u{e0041}` beyond the BMP: a refused character made visible, unambiguously. */
function escaped(c: string): string {
  const cp = c.codePointAt(0)!;
  return cp > 0xffff ? `\\u{${cp.toString(16)}}` : `\\u${cp.toString(16).padStart(4, '0')}`;
}

/**
 * A path (or name) shown back in an error or a listing: every character the rule refuses as
 * invisible or unstorable is shown escaped (`\u200b`, `\u{e0041}`), so what a model or a person
 * reads is what the path holds.
 */
export function displayPath(raw: string): string {
  let cut = 200;
  // Never cut a surrogate pair in half (that would show a lone surrogate that is not in the path).
  if (raw.length > cut && isHighSurrogate(raw.charCodeAt(cut - 1))) cut--;
  const shown = raw.length > 200 ? `${raw.slice(0, cut)}…` : raw;
  return shown.replace(REFUSED_CHARS, escaped);
}

/** Why one refused character is refused, for an error. */
function describeChar(c: string): string {
  const cp = c.codePointAt(0)!;
  if (/\p{Cs}/u.test(c)) return `an unpaired surrogate (${codePoint(c)}), which is not valid Unicode text and would be stored as U+FFFD`;
  if (cp === 0xfffd) return 'the replacement character (U+FFFD), which names that are not valid UTF-8 read as';
  if (/\p{Co}/u.test(c)) return `a private-use character (${codePoint(c)})`;
  if (/\p{Noncharacter_Code_Point}/u.test(c)) return `a noncharacter (${codePoint(c)})`;
  if (/[\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000]/.test(c)) return `a space other than the plain space (${codePoint(c)})`;
  return `a control or invisible character (${codePoint(c)})`;
}

/** The code points of `text`, for an error: `U+0065 U+0301`. */
function codePoints(text: string): string {
  const all = Array.from(text, codePoint);
  return all.length > 12 ? `${all.slice(0, 12).join(' ')} …` : all.join(' ');
}

/**
 * What is wrong with the characters of a path or a name, as the end of a sentence starting with
 * `Path <path> `; null when they are all allowed.
 */
function textProblem(text: string): string | null {
  if (!PRINTABLE_ASCII.test(text)) {
    const refused = REFUSED_CHAR.exec(text);
    if (refused) return `contains ${describeChar(refused[0])}, which memory paths may not contain.`;
  }
  const bad = FORBIDDEN_CHARS.exec(text);
  if (bad) return `contains the character \`${bad[0]}\`, which memory paths may not contain.`;
  const enc = ENCODED_TRAVERSAL.exec(text);
  if (enc) return `contains the URL-encoded sequence \`${enc[0]}\`, which memory paths may not contain.`;
  if (!PRINTABLE_ASCII.test(text)) {
    const nfc = text.normalize('NFC');
    if (nfc !== text) {
      // The part that differs: what is between the longest common prefix and suffix.
      let start = 0;
      while (start < text.length && start < nfc.length && text[start] === nfc[start]) start++;
      if (start > 0 && isHighSurrogate(text.charCodeAt(start - 1))) start--;
      let end = 0;
      while (end < text.length - start && end < nfc.length - start && text[text.length - 1 - end] === nfc[nfc.length - 1 - end]) end++;
      if (end > 0 && isHighSurrogate(text.charCodeAt(text.length - 1 - end))) end--;
      return (
        `is not in Unicode normalization form C (NFC): it has ${codePoints(text.slice(start, text.length - end))} where NFC has ` +
        `${codePoints(nfc.slice(start, nfc.length - end))}. Write it as ${displayPath(nfc)} (names are not normalized for you, ` +
        'so that two names that look the same are never two files).'
      );
    }
  }
  return null;
}

/**
 * Whether a segment names a git directory: `.git` in any case, with the trailing dots and spaces
 * some file systems drop. No memory path may lead into one, at any depth (the runtimes check
 * resolved paths with this too; the SSH helper's is_git is the same rule).
 */
export function isGitDir(segment: string): boolean {
  return /^\.git[. ]*$/i.test(segment);
}

/**
 * The rule for one name (a path segment, or a name found on disk), as the end of a sentence
 * starting with `Path <path> `; null when the name is allowed. Names `''`, `.` and `..` are the
 * caller's (a path reports them with their own texts).
 */
function nameProblem(name: string, textChecked = false): string | null {
  const text = textChecked ? null : textProblem(name);
  if (text) return text;
  // A name of printable ASCII has as many bytes as characters.
  if ((PRINTABLE_ASCII.test(name) ? name.length : utf8.encode(name).length) > MAX_SEGMENT_BYTES) return `has a name longer than ${MAX_SEGMENT_BYTES} bytes.`;
  if (name.startsWith(RESERVED_NAME_PREFIX)) return `uses a name starting with "${RESERVED_NAME_PREFIX}", which Cairn reserves for itself.`;
  if (isGitDir(name)) return `has the segment \`${name}\`: no memory path may lead into a .git directory (or name one), at any depth.`;
  return null;
}

/**
 * Parses a model-facing path. Throws MemoryToolError with actionable text when the path breaks a
 * rule. Accepts one trailing slash (`/memories/global/notes/`).
 */
export function parseMemoryPath(raw: string): VirtualPath {
  if (raw.length === 0) throw new MemoryToolError('The path is empty. Memory paths look like /memories/global/notes.md.');
  if (raw.length > MAX_PATH_CHARS) {
    throw new MemoryToolError(`The path is ${raw.length} characters long; the limit is ${MAX_PATH_CHARS}.`);
  }
  if (!raw.startsWith(MEMORY_ROOT) || (raw.length > MEMORY_ROOT.length && raw[MEMORY_ROOT.length] !== '/')) {
    throw new MemoryToolError(`Path must start with ${MEMORY_ROOT}, got: ${displayPath(raw)}`);
  }
  const text = textProblem(raw);
  if (text) throw new MemoryToolError(`Path ${displayPath(raw)} ${text}`);
  let rest = raw.slice(MEMORY_ROOT.length);
  if (rest === '' || rest === '/') return { kind: 'root' };
  rest = rest.slice(1);
  if (rest.endsWith('/')) rest = rest.slice(0, -1);
  const segments = rest.split('/');
  if (segments.includes('..')) throw new MemoryToolError(`Path ${displayPath(raw)} would escape ${MEMORY_ROOT} directory`);
  if (segments.some((s) => s === '' || s === '.')) {
    throw new MemoryToolError(`Path ${displayPath(raw)} has an empty or "." segment; write it as a plain path such as /memories/global/notes.md.`);
  }
  const [first, ...inside] = segments as [string, ...string[]];
  if (!(SCOPES as readonly string[]).includes(first)) {
    throw new MemoryToolError(
      `${MEMORY_ROOT}/${displayPath(first)} is not a memory scope. Memory lives in ${SCOPES.map((s) => `${MEMORY_ROOT}/${s}`).join(', ')}.`,
    );
  }
  for (const segment of inside) {
    // Its characters were checked with the whole path's.
    const problem = nameProblem(segment, true);
    if (problem) throw new MemoryToolError(`Path ${displayPath(raw)} ${problem}`);
  }
  return { kind: 'scope', scope: first as Scope, segments: inside };
}

/** The virtual path of a location inside a scope. */
export function formatMemoryPath(scope: Scope, segments: readonly string[] = []): string {
  return segments.length === 0 ? `${MEMORY_ROOT}/${scope}` : `${MEMORY_ROOT}/${scope}/${segments.join('/')}`;
}

/** Names of only these characters need no check but their length (none can be reserved or `.git`). */
const PLAIN_NAME = /^[A-Za-z0-9_][A-Za-z0-9._ -]{0,254}$/;

/**
 * Whether a name found on disk may be listed, indexed or rendered: exactly the names a model could
 * have written through parseMemoryPath (the same rule, nameProblem). Others (controls, invisible
 * characters, markup, traversal look-alikes, names not in NFC or not valid UTF-8, `.git`, Cairn's
 * reserved temp names) are skipped everywhere, never shown.
 */
export function isSafeName(name: string): boolean {
  if (PLAIN_NAME.test(name)) return true;
  return name.length > 0 && name !== '.' && name !== '..' && !name.includes('/') && nameProblem(name) === null;
}

/**
 * Hidden entries and node_modules are left out, as in the reference. Alone, this is what counts
 * toward the per-scope cap (a file with an unsafe name counts too, though it is never listed).
 */
function isVisibleName(name: string): boolean {
  return !name.startsWith('.') && name !== 'node_modules';
}

/** Entries shown in directory views: visible, and safe to render. */
export function isListedName(name: string): boolean {
  return isVisibleName(name) && isSafeName(name);
}
