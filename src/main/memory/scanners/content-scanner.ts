/**
 * Content scanners: decide whether text an agent writes into memory may be stored.
 *
 * scanContent finds each rule's anchors (short literals, found with indexOf) and long token-like
 * runs, confirms them with sticky patterns, and reports each rule at most once per line; no per-line
 * split, no whole-note regex alternation. Findings name the rule and the line and never quote
 * the matched text, so an error built from them cannot leak the secret it refuses.
 *
 * Rules (ids are stable; see secret-rules.ts and injection-rules.ts for the patterns):
 *  secrets:   private-key, github-token, gitlab-token, slack-token, slack-webhook,
 *             aws-access-key-id, aws-secret-access-key, google-api-key, google-oauth-secret,
 *             gcp-service-account-key, stripe-key, openai-key, anthropic-key, npm-token,
 *             huggingface-token, sendgrid-key, docker-token, vault-token, groq-key, shopify-token,
 *             pypi-token, digitalocean-token, linear-key, twilio-key, newrelic-key,
 *             azure-storage-key, jwt, connection-string, url-credentials, authorization-header,
 *             password-assignment, high-entropy
 *  injection: ignore-previous-instructions, role-hijack, fake-system-tag, system-prompt-marker,
 *             new-instructions, conceal-from-user, chat-transcript, pipe-to-shell,
 *             destructive-command, exfiltration, invisible-unicode, bidi-control
 *
 * scanPath gives a path's names (file and directory names) the rules that fit a name: every secret
 * rule, and the injection rules that need no lines around the hit (not exfiltration, which reads
 * the command around a source, nor chat-transcript, which needs two turns on lines of their own).
 */
import { INJECTION_RULES, mayHoldInjection, scanInjection } from './injection-rules';
import { LineBounds, type FindingKind, type RawFinding, type RuleInfo, type ScanContext } from './rule-types';
import { SECRET_RULES, scanSecrets } from './secret-rules';

export type { FindingKind } from './rule-types';

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

function messageFor(f: RawFinding, line: number): string {
  const info = RULES[f.rule]!;
  if (f.kind === 'secret') {
    return `Line ${line} looks like ${info.what} (rule ${f.rule}); memory must not hold secrets. Remove it and store where to find it instead (for example, an environment variable name).`;
  }
  if (f.rule === 'invisible-unicode' || f.rule === 'bidi-control') {
    return `Line ${line} contains ${info.what} ${f.detail ?? ''} (rule ${f.rule}); memory holds visible plain text only, so remove it.`;
  }
  return `Line ${line} contains ${info.what} (rule ${f.rule}); memory holds notes, not instructions to follow.`;
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

/**
 * Scans text for secrets and prompt injection. Synchronous, pure and deterministic: findings are
 * ordered by line, then rule id, with at most one finding per rule and line.
 */
export function scanContent(text: string): ScanFinding[] {
  const raw: RawFinding[] = [];
  const ctx = contextOf(text, raw);
  scanSecrets(ctx);
  scanInjection(ctx);
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
  if (f.rule === 'invisible-unicode' || f.rule === 'bidi-control') {
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
