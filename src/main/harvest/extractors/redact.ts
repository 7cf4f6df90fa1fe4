/**
 * Redaction of secrets in transcript text before any of it leaves the process: the
 * model backends (command, http) send a model only what redactSecrets returns. The secrets are the
 * content scanners' own (memory/scanners, the same rules that refuse a secret in memory), each
 * replaced by a marker naming its rule, `[redacted secret: github-token]`, never a part of it.
 *
 * Invariant: scanContent finds no secret in redactSecrets' result. The scanners' character ranges
 * cover each secret (a private key's whole block, not just its first line); should a range ever
 * miss (a rule that sees more once its neighbour is gone), the lines still flagged are replaced
 * whole.
 */
import { scanContent } from '../../memory/scanners/content-scanner';
import { LineBounds, type RawFinding, type ScanContext } from '../../memory/scanners/rule-types';
import { scanSecrets } from '../../memory/scanners/secret-rules';
import type { TranscriptMessage } from '../transcript';

const MARKER_START = '[redacted secret:';

/** What stands in for a secret: its rule, so the model (and a person) knows something was there. */
export function redactionMarker(rule: string): string {
  return `${MARKER_START} ${rule}]`;
}

/** Whether `text` holds a marker: text a model was shown redacted, given back. */
export function holdsRedactionMarker(text: string): boolean {
  return text.includes(MARKER_START);
}

export interface Redacted {
  readonly text: string;
  /** How many secrets were replaced. */
  readonly count: number;
}

/**
 * text lower-cased with every index unchanged, as the scanners' anchors are looked up (a few
 * letters, like İ, lengthen under toLowerCase: then only A-Z are lowered). The scanner keeps the
 * same rule private (content-scanner.ts, lowerCased); its ranges are only right with it.
 */
function sameLengthLower(text: string): string {
  const lower = text.toLowerCase();
  return lower.length === text.length ? lower : text.replace(/[A-Z]+/g, (m) => m.toLowerCase());
}

/** The scanners' secret ranges in text, overlapping ones merged (the first one's rule named). */
function secretRanges(text: string): RawFinding[] {
  const out: RawFinding[] = [];
  const ctx: ScanContext = { text, lower: sameLengthLower(text), lines: new LineBounds(text), out, memo: {} };
  scanSecrets(ctx);
  out.sort((a, b) => a.start - b.start || b.end - a.end);
  const merged: RawFinding[] = [];
  for (const f of out) {
    const last = merged[merged.length - 1];
    if (last && f.start < last.end) merged[merged.length - 1] = { ...last, end: Math.max(last.end, f.end) };
    else merged.push(f);
  }
  return merged;
}

/** Lines the scanners still flag for a secret, replaced whole by a marker. */
function redactFlaggedLines(text: string): Redacted {
  const flagged = new Map<number, string>();
  for (const f of scanContent(text)) if (f.kind === 'secret' && !flagged.has(f.line)) flagged.set(f.line, f.rule);
  if (flagged.size === 0) return { text, count: 0 };
  const lines = text.split('\n').map((line, i) => (flagged.has(i + 1) ? redactionMarker(flagged.get(i + 1)!) : line));
  return { text: lines.join('\n'), count: flagged.size };
}

/** text with every secret the scanners find replaced by a marker naming its rule. */
export function redactSecrets(text: string): Redacted {
  const ranges = secretRanges(text);
  let out = text;
  for (let i = ranges.length - 1; i >= 0; i--) {
    const r = ranges[i]!;
    out = out.slice(0, r.start) + redactionMarker(r.rule) + out.slice(r.end);
  }
  const rest = redactFlaggedLines(out);
  return { text: rest.text, count: ranges.length + rest.count };
}

/** The messages with their text redacted (the same objects where nothing was found). */
export function redactMessages(messages: readonly TranscriptMessage[]): TranscriptMessage[] {
  return messages.map((m) => {
    const redacted = redactSecrets(m.text);
    return redacted.count === 0 ? m : { ...m, text: redacted.text };
  });
}
