/**
 * Content scanners: decide whether text an agent writes into memory may be stored.
 *
 * scanContent finds each rule's anchors (short literals, found with indexOf) and long token-like
 * runs, confirms them with sticky patterns, and reports each rule at most once per line; no per-line
 * split, no whole-note regex alternation. Findings name the rule and the line and never quote
 * the matched text, so an error built from them cannot leak the secret it refuses.
 *
 * A note is read twice when it holds controls or hidden characters (common/memory/hidden-text.ts):
 * as written, and as a model reads it: those characters removed, a line separator as a new line,
 * and what a run of variation selectors or tag characters spells (smuggled text) decoded in its
 * place. Every rule runs on both; a finding in decoded text says what hid it ("Line 3 hides, in
 * variation selectors, ..."). The hidden characters are findings of their own (invisible-unicode,
 * bidi-control, smuggled-text), so text that carries any is refused from an agent and flagged to
 * a person whatever it spells. Ordinary emoji sequences are not hidden text.
 *
 * Rules (ids are stable; see secret-rules.ts and injection-rules.ts for the patterns):
 *  secrets:   private-key, github-token, gitlab-token, slack-token, slack-webhook,
 *             aws-access-key-id, aws-secret-access-key, google-api-key, google-oauth-secret,
 *             gcp-service-account-key, stripe-key, openai-key, anthropic-key, npm-token,
 *             huggingface-token, sendgrid-key, docker-token, vault-token, groq-key, shopify-token,
 *             pypi-token, digitalocean-token, linear-key, twilio-key, newrelic-key,
 *             azure-storage-key, jwt, connection-string, url-credentials, authorization-header,
 *             password-assignment, netrc-credentials, high-entropy
 *  injection: ignore-previous-instructions, role-hijack, addressed-order, fake-system-tag,
 *             system-prompt-marker, new-instructions, conceal-from-user, chat-transcript,
 *             pipe-to-shell, destructive-command, exfiltration, invisible-unicode, bidi-control,
 *             smuggled-text
 *
 * scanPath gives a path's names (file and directory names) the rules that fit a name: every secret
 * rule, and the injection rules that need no lines around the hit (not exfiltration, which reads
 * the command around a source, nor chat-transcript, which needs two turns on lines of their own).
 */
import { hiddenRuns, type HiddenKind } from '../../../common/memory/hidden-text';
import { INJECTION_RULES, mayHoldInjection, scanInjection } from './injection-rules';
import { LineBounds, type FindingKind, type RawFinding, type RuleInfo, type ScanContext } from './rule-types';
import { SECRET_RULES, scanSecrets } from './secret-rules';


export interface ScanFinding {
  readonly kind: FindingKind;
  /** Stable rule id, like 'github-token'. */
  readonly rule: string;
  /** 1-based line of the start of the match. */
  readonly line: number;
  /** What was found and on which line, without any part of the matched text. */
  readonly message: string;
}

const RULES: Readonly<Record<string, RuleInfo>> = { ...SECRET_RULES, ...INJECTION_RULES };

/** Every rule id the scanner can report, sorted. */
export const SCANNER_RULE_IDS: readonly string[] = Object.keys(RULES).sort();

const HIDDEN_RULES = new Set(['invisible-unicode', 'bidi-control', 'smuggled-text']);
const CARRIERS: Readonly<Record<HiddenKind, string>> = {
  'variation-selectors': 'variation selectors',
  'tag-characters': 'Unicode tag characters',
  bidi: 'bidirectional controls',
  invisible: 'invisible characters',
};

function messageFor(f: RawFinding, line: number): string {
  const info = RULES[f.rule]!;
  // Found in what hidden characters spell: said so, and still without any of it.
  const where = f.hidden === undefined ? null : `hides, in ${CARRIERS[f.hidden]},`;
  if (f.kind === 'secret') {
    return `Line ${line} ${where ?? 'looks like'}${where ? ' what looks like' : ''} ${info.what} (rule ${f.rule}); memory must not hold secrets. Remove it and store where to find it instead (for example, an environment variable name).`;
  }
  if (HIDDEN_RULES.has(f.rule)) {
    return `Line ${line} ${where ?? 'contains'} ${info.what} ${f.detail ?? ''} (rule ${f.rule}); memory holds visible plain text only, so remove it.`;
  }
  return `Line ${line} ${where ?? 'contains'} ${info.what} (rule ${f.rule}); memory holds notes, not instructions to follow.`;
}

/** text in lower case with every index unchanged (toLowerCase lengthens a few letters, like İ). */
function lowerCased(text: string): string {
  const lower = text.toLowerCase();
  if (lower.length === text.length) return lower;
  return text.replace(/[A-Z]+/g, (m) => m.toLowerCase());
}

/** Each raw finding with its 1-based line, at most one per rule and line, ordered by line then rule. */
function lined(text: string, raw: RawFinding[]): Array<{ f: RawFinding; line: number }> {
  raw.sort((a, b) => a.start - b.start);
  const out: Array<{ f: RawFinding; line: number }> = [];
  const seen = new Set<string>();
  let line = 1;
  let pos = 0;
  for (const f of raw) {
    for (let i = text.indexOf('\n', pos); i !== -1 && i < f.start; i = text.indexOf('\n', i + 1)) {
      line++;
      pos = i + 1;
    }
    if (pos < f.start) pos = f.start;
    const key = `${line}:${f.rule}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ f, line });
  }
  out.sort((a, b) => a.line - b.line || (a.f.rule < b.f.rule ? -1 : a.f.rule > b.f.rule ? 1 : 0));
  return out;
}

function contextOf(text: string, out: RawFinding[], names = false): ScanContext {
  return { text, lower: lowerCased(text), lines: new LineBounds(text), out, memo: {}, names };
}

// ---- the text as a model reads it ----

/** Controls but tab, newline and carriage return: removed from what agents are shown (render.ts shownText). */
const CONTROLS = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/g;
const SEPARATORS = /[\u2028\u2029]/;

/** A stretch of the model's reading: copied from the text, or standing for one place in it. */
interface Piece {
  /** Where it starts in the reading. */
  readonly at: number;
  /** Where it comes from in the text: the start of a copy, or the place a replacement stands for. */
  readonly from: number;
  readonly copy: boolean;
  /** What spelled it, for a decoded run. */
  readonly hidden?: HiddenKind;
}

interface Reading {
  readonly text: string;
  readonly pieces: Piece[];
}

/**
 * The text as a model reads it, or null when that is the text itself: controls (but tab and
 * newline) and hidden characters removed, a line or paragraph separator read as a new line, and
 * what a run of variation selectors or tag characters spells put in its place on a line of its
 * own (common/memory/hidden-text.ts).
 */
function modelReading(text: string): Reading | null {
  const edits: Array<{ start: number; end: number; put: string; hidden?: HiddenKind }> = [];
  for (const run of hiddenRuns(text)) {
    if (run.decoded !== undefined) edits.push({ start: run.start, end: run.end, put: `\n${run.decoded}\n`, hidden: run.kind });
    else edits.push({ start: run.start, end: run.end, put: SEPARATORS.test(text.slice(run.start, run.end)) ? '\n' : '' });
  }
  CONTROLS.lastIndex = 0;
  for (let m = CONTROLS.exec(text); m !== null; m = CONTROLS.exec(text)) edits.push({ start: m.index, end: m.index + 1, put: '' });
  if (edits.length === 0) return null;
  edits.sort((a, b) => a.start - b.start);
  const parts: string[] = [];
  const pieces: Piece[] = [];
  let length = 0;
  let from = 0;
  const add = (part: string, piece: Omit<Piece, 'at'>): void => {
    if (part === '') return;
    pieces.push({ at: length, ...piece });
    parts.push(part);
    length += part.length;
  };
  for (const e of edits) {
    add(text.slice(from, e.start), { from, copy: true });
    add(e.put, e.hidden === undefined ? { from: e.start, copy: false } : { from: e.start, copy: false, hidden: e.hidden });
    from = e.end;
  }
  add(text.slice(from), { from, copy: true });
  return { text: parts.join(''), pieces };
}

/** The piece of a reading holding offset at (the last one starting at or before it). */
function pieceAt(pieces: readonly Piece[], at: number): Piece {
  let lo = 0;
  let hi = pieces.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (pieces[mid]!.at <= at) lo = mid;
    else hi = mid - 1;
  }
  return pieces[lo]!;
}

/** A finding in a reading, placed in the text it was read from. */
function placed(f: RawFinding, pieces: readonly Piece[]): RawFinding {
  const p = pieceAt(pieces, f.start);
  const start = p.copy ? p.from + (f.start - p.at) : p.from;
  const q = pieceAt(pieces, Math.max(f.start, f.end - 1));
  const end = Math.max(start + 1, q.copy ? q.from + (f.end - q.at) : q.from + 1);
  const at = { ...f, start, end };
  return p.hidden === undefined ? at : { ...at, hidden: p.hidden };
}

/**
 * Scans text for secrets and prompt injection, as written and as a model reads it (see
 * modelReading: a phrase or a key cut by zero-width characters, or spelled by variation selectors
 * or tag characters, is found). Synchronous, pure and deterministic: findings are ordered by line,
 * then rule id, with at most one finding per rule and line.
 */
export function scanContent(text: string): ScanFinding[] {
  const raw: RawFinding[] = [];
  const ctx = contextOf(text, raw);
  scanSecrets(ctx);
  scanInjection(ctx);
  const reading = modelReading(text);
  if (reading !== null) {
    const read: RawFinding[] = [];
    const readCtx = contextOf(reading.text, read);
    scanSecrets(readCtx);
    scanInjection(readCtx);
    for (const f of read) raw.push(placed(f, reading.pieces));
  }
  if (raw.length === 0) return [];
  return lined(text, raw).map(({ f, line }) => ({ kind: f.kind, rule: f.rule, line, message: messageFor(f, line) }));
}

export interface NameFinding {
  readonly kind: FindingKind;
  readonly rule: string;
  /** 1-based position of the flagged name among the names scanned. */
  readonly name: number;
  /** What was found in which name, without any part of the name. */
  readonly message: string;
}

function nameMessageFor(f: RawFinding, name: number): string {
  const info = RULES[f.rule]!;
  if (f.kind === 'secret') {
    return `Name ${name} of the path looks like ${info.what} (rule ${f.rule}); memory must not hold secrets, in names either. Name the file for what it holds.`;
  }
  if (HIDDEN_RULES.has(f.rule)) {
    return `Name ${name} of the path contains ${info.what} ${f.detail ?? ''} (rule ${f.rule}); names are visible plain text only.`;
  }
  return `Name ${name} of the path contains ${info.what} (rule ${f.rule}); a name says what a file holds, not instructions to follow.`;
}

/** Hyphens and underscores as spaces, so that `ignore-previous-instructions.md` reads as words. */
const NAME_JOINERS = /[-_]/g;
/** A file extension at the end of the last name (`| bash.md` is a pipe into bash). */
const EXTENSION = /\.[A-Za-z0-9]{1,8}$/;

/** Each finding's name: the 1-based count of separators before it, plus one. */
function findingsByName(text: string, separator: string, raw: readonly RawFinding[], into: Map<string, { f: RawFinding; name: number }>): void {
  for (const f of raw) {
    let name = 1;
    for (let i = text.indexOf(separator); i !== -1 && i < f.start; i = text.indexOf(separator, i + 1)) name++;
    const key = `${name}:${f.rule}`;
    if (!into.has(key)) into.set(key, { f, name });
  }
}

/**
 * Scans a path's names (the file and directory names below a scope, in order) for secrets and for
 * the injection rules that fit a name (see the header). Each rule sees the names one per line; the
 * injection rules see them again with `-` and `_` read as spaces and the file extension dropped,
 * and once more joined by `/` (so a command or phrase cut across a `/` is still found). A quoted
 * phrase is no mention in a name. Findings are ordered by name, then rule id, at most one per rule
 * and name, and never quote the name.
 */
export function scanPath(names: readonly string[]): NameFinding[] {
  if (names.length === 0) return [];
  const found = new Map<string, { f: RawFinding; name: number }>();
  const lines = names.join('\n');
  const raw: RawFinding[] = [];
  const ctx = contextOf(lines, raw, true);
  scanSecrets(ctx);
  const injection = mayHoldInjection(ctx.lower);
  if (injection) scanInjection(ctx);
  findingsByName(lines, '\n', raw, found);
  if (!injection) return sortedNameFindings(found);
  const words = lines.replace(EXTENSION, (m) => ' '.repeat(m.length));
  for (const [text, separator] of [
    [words.replace(NAME_JOINERS, ' '), '\n'],
    [words.replace(/\n/g, '/'), '/'],
  ] as const) {
    const more: RawFinding[] = [];
    scanInjection(contextOf(text, more, true));
    findingsByName(text, separator, more, found);
  }
  return sortedNameFindings(found);
}

function sortedNameFindings(found: ReadonlyMap<string, { f: RawFinding; name: number }>): NameFinding[] {
  return [...found.values()]
    .sort((a, b) => a.name - b.name || (a.f.rule < b.f.rule ? -1 : a.f.rule > b.f.rule ? 1 : 0))
    .map(({ f, name }) => ({ kind: f.kind, rule: f.rule, name, message: nameMessageFor(f, name) }));
}
