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
 * C0 and C1 controls, DEL, and the invisible format characters that can hide or reorder text
 * (zero-width, bidi overrides and isolates, line/paragraph separators, BOM).
 */
const INVISIBLE_OR_CONTROL = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/u;
/** Characters that would let a path escape, alias, or break out of prompt markup. */
const FORBIDDEN_CHARS = /[~\\<>"]/;
/** URL-encoded `.`, `/` and `\`, in any case. */
const ENCODED_TRAVERSAL = /%(2e|2f|5c)/i;

const utf8 = new TextEncoder();

/** A path shown back in an error, with invisible and control characters made visible. */
export function displayPath(raw: string): string {
  const shown = raw.length > 200 ? `${raw.slice(0, 200)}…` : raw;
  return shown.replace(
    new RegExp(INVISIBLE_OR_CONTROL.source, 'gu'),
    (c) => `\\u${c.codePointAt(0)!.toString(16).padStart(4, '0')}`,
  );
}

function describeForbidden(segment: string): string | null {
  const ctl = INVISIBLE_OR_CONTROL.exec(segment);
  if (ctl) return `a control or invisible character (U+${ctl[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')})`;
  const bad = FORBIDDEN_CHARS.exec(segment);
  if (bad) return `the character \`${bad[0]}\``;
  const enc = ENCODED_TRAVERSAL.exec(segment);
  if (enc) return `the URL-encoded sequence \`${enc[0]}\``;
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
  const shown = displayPath(raw);
  if (!raw.startsWith(MEMORY_ROOT) || (raw.length > MEMORY_ROOT.length && raw[MEMORY_ROOT.length] !== '/')) {
    throw new MemoryToolError(`Path must start with ${MEMORY_ROOT}, got: ${shown}`);
  }
  const forbidden = describeForbidden(raw);
  if (forbidden) {
    throw new MemoryToolError(`Path ${shown} contains ${forbidden}, which memory paths may not contain.`);
  }
  let rest = raw.slice(MEMORY_ROOT.length);
  if (rest === '' || rest === '/') return { kind: 'root' };
  rest = rest.slice(1);
  if (rest.endsWith('/')) rest = rest.slice(0, -1);
  const segments = rest.split('/');
  if (segments.includes('..')) throw new MemoryToolError(`Path ${shown} would escape ${MEMORY_ROOT} directory`);
  if (segments.some((s) => s === '' || s === '.')) {
    throw new MemoryToolError(`Path ${shown} has an empty or "." segment; write it as a plain path such as /memories/global/notes.md.`);
  }
  const [first, ...inside] = segments as [string, ...string[]];
  if (!(SCOPES as readonly string[]).includes(first)) {
    throw new MemoryToolError(
      `${MEMORY_ROOT}/${displayPath(first)} is not a memory scope. Memory lives in ${SCOPES.map((s) => `${MEMORY_ROOT}/${s}`).join(', ')}.`,
    );
  }
  for (const segment of inside) {
    if (utf8.encode(segment).length > MAX_SEGMENT_BYTES) {
      throw new MemoryToolError(`Path ${shown} has a name longer than ${MAX_SEGMENT_BYTES} bytes.`);
    }
    if (segment.startsWith(RESERVED_NAME_PREFIX)) {
      throw new MemoryToolError(`Path ${shown} uses a name starting with "${RESERVED_NAME_PREFIX}", which Cairn reserves for itself.`);
    }
  }
  return { kind: 'scope', scope: first as Scope, segments: inside };
}

/** The virtual path of a location inside a scope. */
export function formatMemoryPath(scope: Scope, segments: readonly string[] = []): string {
  return segments.length === 0 ? `${MEMORY_ROOT}/${scope}` : `${MEMORY_ROOT}/${scope}/${segments.join('/')}`;
}

/**
 * Whether a name found on disk may be listed, indexed or rendered. Names that a model could not
 * have written through the path rules (control characters, markup, traversal look-alikes, Cairn's
 * reserved temp names) are skipped everywhere, never shown.
 */
/** Names of only these characters need no further checks but the reserved prefix and length. */
const PLAIN_NAME = /^[A-Za-z0-9_][A-Za-z0-9._ -]{0,254}$/;

export function isSafeName(name: string): boolean {
  if (PLAIN_NAME.test(name)) return !name.startsWith(RESERVED_NAME_PREFIX);
  return (
    name.length > 0 &&
    name !== '.' &&
    name !== '..' &&
    !name.includes('/') &&
    describeForbidden(name) === null &&
    !name.startsWith(RESERVED_NAME_PREFIX) &&
    utf8.encode(name).length <= MAX_SEGMENT_BYTES
  );
}

/**
 * Hidden entries and node_modules are left out, as in the reference. Alone, this is what counts
 * toward the per-scope cap (a file with an unsafe name counts too, though it is never listed).
 */
export function isVisibleName(name: string): boolean {
  return !name.startsWith('.') && name !== 'node_modules';
}

/** Entries shown in directory views: visible, and safe to render. */
export function isListedName(name: string): boolean {
  return isVisibleName(name) && isSafeName(name);
}
