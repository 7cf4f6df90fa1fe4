// Host resolution as OpenSSH users expect: [user@]host[:port], --ssh locations, ~/.ssh/config
// aliases (HostName, User, Port, IdentityFile, IdentitiesOnly, UserKnownHostsFile), defaults.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SshError } from './ssh-error';
import { formatHostSpec, parseHostSpec, parseSshLocation, resolveSshTarget } from './ssh-target';

describe('parsing', () => {
  it.each([
    ['devbox', { host: 'devbox' }],
    ['me@devbox', { host: 'devbox', user: 'me' }],
    ['me@devbox:2222', { host: 'devbox', user: 'me', port: 2222 }],
    ['[::1]:2222', { host: '::1', port: 2222 }],
  ])('%s', (spec, parsed) => {
    expect(parseHostSpec(spec)).toEqual(parsed);
    expect(formatHostSpec(parseHostSpec(spec))).toBe(spec);
  });

  it('refuses what is not a host', () => {
    for (const bad of ['', 'a b', 'me@', 'host:99999', 'host:/path']) expect(() => parseHostSpec(bad)).toThrow();
  });

  it('splits --ssh locations', () => {
    expect(parseSshLocation('me@devbox:2222:/srv/app/')).toEqual({ host: 'devbox', user: 'me', port: 2222, path: '/srv/app' });
    expect(parseSshLocation('devbox:/home/me/src')).toEqual({ host: 'devbox', path: '/home/me/src' });
    expect(() => parseSshLocation('devbox:relative')).toThrow(/ABSOLUTE/);
  });
});

describe('resolveSshTarget', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-target-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('applies a ~/.ssh/config alias, and explicit values win', () => {
    fs.writeFileSync(
      path.join(dir, 'config'),
      ['Host devbox', '  HostName 10.1.2.3', '  User alice', '  Port 2200', '  IdentityFile ~/.ssh/devbox_key', '  UserKnownHostsFile /etc/cairn-test-known', '', 'Host *', '  User nobody', ''].join('\n'),
    );
    const home = path.join(dir, 'cairn');
    const t = resolveSshTarget({ host: 'devbox' }, { home, sshDir: dir, env: { SSH_AUTH_SOCK: '/tmp/agent.sock' } });
    expect(t).toMatchObject({ alias: 'devbox', hostname: '10.1.2.3', user: 'alice', port: 2200, agent: '/tmp/agent.sock' });
    expect(t.identities[0]).toBe(path.join(os.homedir(), '.ssh', 'devbox_key'));
    expect(t.identities.slice(1)).toEqual(['id_ed25519', 'id_ecdsa', 'id_rsa'].map((n) => path.join(dir, n)));
    expect(t.knownHostsFiles).toEqual(['/etc/cairn-test-known', path.join(home, 'known_hosts')]);
    const explicit = resolveSshTarget({ host: 'devbox', user: 'bob', port: 22, identity: '/keys/k' }, { home, sshDir: dir, env: {} });
    expect(explicit).toMatchObject({ user: 'bob', port: 22, agent: null });
    expect(explicit.identities[0]).toBe('/keys/k');
    expect(resolveSshTarget({ host: 'other' }, { home, sshDir: dir, env: {} })).toMatchObject({ hostname: 'other', user: 'nobody', port: 22 });
  });

  it('with IdentitiesOnly, offers only the configured keys and no agent', () => {
    fs.writeFileSync(path.join(dir, 'config'), 'Host box\n  IdentityFile /keys/only\n  IdentitiesOnly yes\n');
    const t = resolveSshTarget({ host: 'box' }, { home: dir, sshDir: dir, env: { SSH_AUTH_SOCK: '/tmp/a' } });
    expect(t.identities).toEqual(['/keys/only']);
    expect(t.agent).toBeNull();
  });

  it('refuses to guess when the config is there but cannot be read', () => {
    fs.mkdirSync(path.join(dir, 'config'));
    const resolve = () => resolveSshTarget({ host: 'devbox' }, { home: dir, sshDir: dir, env: {} });
    expect(resolve).toThrow(SshError);
    expect(resolve).toThrow(/Cannot read the SSH config file \(~\/\.ssh\/config: EISDIR\).*devbox/);
    fs.rmdirSync(path.join(dir, 'config'));
    fs.writeFileSync(path.join(dir, 'config'), 'Host devbox\n  HostName "unterminated\n');
    expect(resolve).toThrow(/SSH config file .* does not parse/);
  });

  it('falls back to OpenSSH defaults without a config', () => {
    const t = resolveSshTarget({ host: 'plain' }, { home: dir, sshDir: path.join(dir, 'none'), env: { USER: 'carol' } });
    expect(t).toMatchObject({ hostname: 'plain', port: 22, user: 'carol', agent: null });
    expect(t.knownHostsFiles).toEqual([path.join(dir, 'none', 'known_hosts'), path.join(dir, 'known_hosts')]);
  });
});
