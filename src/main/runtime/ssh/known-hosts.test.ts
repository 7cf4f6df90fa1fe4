// known_hosts as OpenSSH reads it: plain, [host]:port, wildcards and negations, hashed entries,
// @revoked and @cert-authority markers, changed keys, fingerprints, and recording a key.
import { execFileSync } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkHostKey, fingerprintOf, hostFieldMatches, keyTypeOf, knownHostName, recordHostKey } from './known-hosts';
import { SshError } from './ssh-error';

/** An ssh-ed25519 public key blob as it travels in SSH (type string, then the key). */
function blob(seed: number): Buffer {
  const type = Buffer.from('ssh-ed25519');
  const key = Buffer.alloc(32, seed);
  const out = Buffer.alloc(4 + type.length + 4 + key.length);
  out.writeUInt32BE(type.length, 0);
  type.copy(out, 4);
  out.writeUInt32BE(key.length, 4 + type.length);
  key.copy(out, 8 + type.length);
  return out;
}
const line = (hosts: string, b: Buffer) => `${hosts} ${keyTypeOf(b)} ${b.toString('base64')}`;
const hashed = (name: string) => {
  const salt = randomBytes(20);
  return `|1|${salt.toString('base64')}|${createHmac('sha1', salt).update(name).digest('base64')}`;
};

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-kh-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));
const file = (name: string, lines: string[]) => {
  const p = path.join(dir, name);
  fs.writeFileSync(p, `# comment\n\n${lines.join('\n')}\n`);
  return p;
};

describe('host patterns', () => {
  it.each([
    ['devbox', 'devbox', true],
    ['DevBox', 'devbox', true],
    ['a,devbox,b', 'devbox', true],
    ['*.example.com', 'dev.example.com', true],
    ['dev?.example.com', 'dev1.example.com', true],
    ['*.example.com,!bad.example.com', 'bad.example.com', false],
    ['[devbox]:2222', '[devbox]:2222', true],
    ['devbox', '[devbox]:2222', false],
    ['[10.0.0.1]:22', '[10.0.0.1]:22', true],
  ])('%s matches %s: %s', (field, name, expected) => {
    expect(hostFieldMatches(field, name)).toBe(expected);
  });

  it('names a host off port 22 as [host]:port', () => {
    expect(knownHostName('devbox', 22)).toBe('devbox');
    expect(knownHostName('devbox', 2222)).toBe('[devbox]:2222');
  });
});

describe('checkHostKey', () => {
  const key = blob(1);
  const other = blob(2);

  it('trusts an exact key, in any of the files, plain or hashed', () => {
    expect(checkHostKey([file('a', [line('devbox', key)])], 'devbox', 22, key).state).toBe('trusted');
    expect(checkHostKey([path.join(dir, 'missing'), file('b', [line(hashed('[devbox]:2222'), key)])], 'devbox', 2222, key).state).toBe('trusted');
  });

  it('calls a host with no entry unknown, and one listed with another key of the type changed', () => {
    expect(checkHostKey([file('a', [line('elsewhere', key)])], 'devbox', 22, key).state).toBe('unknown');
    expect(checkHostKey([file('b', [line('devbox', other)])], 'devbox', 22, key).state).toBe('changed');
  });

  it('refuses a revoked key and ignores certificate authorities', () => {
    expect(checkHostKey([file('a', [line('devbox', key), `@revoked ${line('*', key)}`])], 'devbox', 22, key).state).toBe('changed');
    expect(checkHostKey([file('b', [`@cert-authority ${line('*', key)}`])], 'devbox', 22, key).state).toBe('unknown');
  });

  it('gives no answer when a known_hosts file is there but cannot be read', () => {
    // It may hold a revocation or another key of the host: "unknown" would invite trusting it.
    const unreadable = path.join(dir, 'unreadable');
    fs.mkdirSync(unreadable);
    const check = () => checkHostKey([file('a', [line('devbox', key)]), unreadable], 'devbox', 22, key);
    expect(check).toThrow(SshError);
    expect(check).toThrow(/Cannot read a known_hosts file \(EISDIR\).*devbox/);
  });

  it('prints fingerprints as ssh-keygen does', () => {
    const keyFile = path.join(dir, 'k');
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', keyFile]);
    const pub = fs.readFileSync(`${keyFile}.pub`, 'utf8').split(' ');
    const printed = execFileSync('ssh-keygen', ['-l', '-E', 'sha256', '-f', `${keyFile}.pub`], { encoding: 'utf8' }).split(' ')[1];
    expect(fingerprintOf(Buffer.from(pub[1]!, 'base64'))).toBe(printed);
  });
});

describe('recordHostKey', () => {
  it('adds a key, replaces an older key of the same type for the same name, keeps the rest', () => {
    const p = path.join(dir, 'home', 'known_hosts');
    recordHostKey(p, 'devbox', 2222, blob(1));
    recordHostKey(p, 'other', 22, blob(3));
    recordHostKey(p, 'devbox', 2222, blob(2));
    expect(fs.readFileSync(p, 'utf8')).toBe(`${line('other', blob(3))}\n${line('[devbox]:2222', blob(2))}\n`);
    expect(fs.statSync(p).mode & 0o777).toBe(0o600);
    expect(checkHostKey([p], 'devbox', 2222, blob(2)).state).toBe('trusted');
  });
});
