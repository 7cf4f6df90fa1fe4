/**
 * Host keys as OpenSSH keeps them: reading known_hosts files (plain, comma lists, `[host]:port`,
 * wildcards and negations, hashed `|1|salt|hash` entries, `@revoked`), deciding whether a presented
 * key is trusted, unknown or changed, fingerprints as `ssh-keygen -l` prints them (SHA256:base64,
 * unpadded), and recording a trusted key in Cairn's own `<home>/known_hosts`.
 *
 * Invariant: a key is trusted only by an exact match of its type and blob under a pattern naming
 * the host; everything else is refused by the caller (never accepted silently).
 */
import { createHash, createHmac } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { writeOwnFileSync } from '../local/atomic-write';
import { errnoOf } from '../local/containment';
import { SshError } from './ssh-error';

export type HostKeyState = 'trusted' | 'unknown' | 'changed';

export interface HostKeyInfo {
  /** How the host is named in known_hosts: `name`, or `[name]:port` off port 22. */
  readonly host: string;
  readonly keyType: string;
  readonly fingerprint: string;
  readonly state: HostKeyState;
}

/** `SHA256:...` of an SSH public key blob, as OpenSSH prints it. */
export function fingerprintOf(blob: Buffer): string {
  return `SHA256:${createHash('sha256').update(blob).digest('base64').replace(/=+$/, '')}`;
}

/** The key type named inside an SSH wire-format public key blob (`ssh-ed25519`, ...). */
export function keyTypeOf(blob: Buffer): string {
  if (blob.length < 4) return 'unknown';
  const len = blob.readUInt32BE(0);
  return blob.subarray(4, 4 + len).toString('latin1');
}

/** The name known_hosts uses for a host and port. */
export function knownHostName(host: string, port: number): string {
  return port === 22 ? host : `[${host}]:${port}`;
}

function globMatch(pattern: string, name: string): boolean {
  const re = new RegExp(`^${pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.')}$`, 'i');
  return re.test(name);
}

function hashedMatch(entry: string, name: string): boolean {
  const parts = entry.split('|');
  if (parts.length !== 4 || parts[1] !== '1') return false;
  const salt = Buffer.from(parts[2]!, 'base64');
  const hash = createHmac('sha1', salt).update(name).digest('base64');
  return hash === parts[3];
}

/** Whether a known_hosts host field names `name` (negations veto). */
export function hostFieldMatches(field: string, name: string): boolean {
  if (field.startsWith('|')) return hashedMatch(field, name);
  let matched = false;
  for (const raw of field.split(',')) {
    const negated = raw.startsWith('!');
    const pattern = negated ? raw.slice(1) : raw;
    if (globMatch(pattern, name)) {
      if (negated) return false;
      matched = true;
    }
  }
  return matched;
}

interface Entry {
  readonly marker: string | null;
  readonly hosts: string;
  readonly keyType: string;
  readonly key: string;
}

function parseFile(file: string, name: string): Entry[] {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    // A missing file lists no keys, as in OpenSSH. One that is there but cannot be read may hold
    // the key that is trusted, another one (a changed key) or a revocation: no answer is safe.
    const code = errnoOf(err);
    if (code === 'ENOENT' || code === 'ENOTDIR') return [];
    throw new SshError('hostkey', `Cannot read a known_hosts file (${code}), so whether the host key of ${name} is trusted is unknown.`);
  }
  const out: Entry[] = [];
  for (const line of text.split('\n')) {
    const trimmed = line.trim();
    if (trimmed === '' || trimmed.startsWith('#')) continue;
    const fields = trimmed.split(/\s+/);
    const marker = fields[0]!.startsWith('@') ? fields.shift()! : null;
    if (fields.length < 3) continue;
    out.push({ marker, hosts: fields[0]!, keyType: fields[1]!, key: fields[2]! });
  }
  return out;
}

/**
 * Decides what a presented key is for `name` given the known_hosts files (missing files are
 * empty); throws SshError `hostkey` when one of them is there but cannot be read.
 */
export function checkHostKey(files: readonly string[], host: string, port: number, blob: Buffer): HostKeyInfo {
  const name = knownHostName(host, port);
  const keyType = keyTypeOf(blob);
  const presented = blob.toString('base64');
  const info = (state: HostKeyState): HostKeyInfo => ({ host: name, keyType, fingerprint: fingerprintOf(blob), state });
  let sameTypeOther = false;
  let trusted = false;
  for (const file of files) {
    for (const e of parseFile(file, name)) {
      if (e.marker === '@cert-authority') continue;
      if (!hostFieldMatches(e.hosts, name)) continue;
      if (e.marker === '@revoked') {
        if (e.key === presented) return info('changed');
        continue;
      }
      if (e.key === presented) trusted = true;
      else if (e.keyType === keyType) sameTypeOther = true;
    }
  }
  if (sameTypeOther) return info('changed');
  return info(trusted ? 'trusted' : 'unknown');
}

/**
 * Records `name keytype base64` in a known_hosts file Cairn owns (created 0600, its directory
 * 0700), replacing that file's earlier keys of the same type for the same name; atomic.
 */
export function recordHostKey(file: string, host: string, port: number, blob: Buffer): void {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const name = knownHostName(host, port);
  const keyType = keyTypeOf(blob);
  let lines: string[] = [];
  try {
    lines = fs.readFileSync(file, 'utf8').split('\n').filter((l) => l.trim() !== '');
  } catch (err) {
    // Only a missing file starts empty: one that cannot be read is never written over.
    if (errnoOf(err) !== 'ENOENT') throw err;
  }
  const kept = lines.filter((l) => {
    const fields = l.trim().split(/\s+/);
    const offset = fields[0]?.startsWith('@') ? 1 : 0;
    return !(fields[offset + 1] === keyType && hostFieldMatches(fields[offset] ?? '', name) && offset === 0);
  });
  kept.push(`${name} ${keyType} ${blob.toString('base64')}`);
  writeOwnFileSync(file, `${kept.join('\n')}\n`);
}
