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
 *             new-instructions, conceal-from-user, exfiltration, invisible-unicode, bidi-control
 */
import { INJECTION_RULES, scanInjection } from './injection-rules';
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

/**
 * Scans text for secrets and prompt injection. Synchronous, pure and deterministic: findings are
 * ordered by line, then rule id, with at most one finding per rule and line.
 */
export function scanContent(text: string): ScanFinding[] {
  const raw: RawFinding[] = [];
  const ctx: ScanContext = { text, lower: lowerCased(text), lines: new LineBounds(text), out: raw, memo: {} };
  scanSecrets(ctx);
  scanInjection(ctx);
  if (raw.length === 0) return [];
  raw.sort((a, b) => a.start - b.start);
  const findings: ScanFinding[] = [];
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
    findings.push({ kind: f.kind, rule: f.rule, line, message: messageFor(f, line) });
  }
  findings.sort((a, b) => a.line - b.line || (a.rule < b.rule ? -1 : a.rule > b.rule ? 1 : 0));
  return findings;
}
