// The persistent tokens under a home, on the real filesystem: private (0600) files in a home made
// private, created once and then reused (what lets a page or an agent reconnect after a restart),
// racing processes agreeing on one token, a truncated file replaced, and a rotation that gives a new
// web token without touching the MCP one.
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadOrCreateMcpToken, loadOrCreateWebToken, mcpTokenFile, rotateWebToken, webTokenFile } from './mcp-token';

let dir: string;
let home: string;
beforeEach(() => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-token-')));
  home = path.join(dir, 'home');
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const mode = (file: string) => fs.statSync(file).mode & 0o777;
const leftovers = () => fs.readdirSync(home).filter((n) => n.endsWith('.tmp'));

describe('the web token', () => {
  it('is created on first use in <home>/web-token, readable by its owner only, in a private home', () => {
    const token = loadOrCreateWebToken(home);
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(fs.readFileSync(webTokenFile(home), 'utf8')).toBe(`${token}\n`);
    expect(mode(webTokenFile(home))).toBe(0o600);
    expect(mode(home)).toBe(0o700);
    expect(leftovers()).toEqual([]);
  });

  it('is the same token at every later launch', () => {
    const first = loadOrCreateWebToken(home);
    expect(loadOrCreateWebToken(home)).toBe(first);
    expect(loadOrCreateWebToken(home)).toBe(first);
  });

  it('is neither the MCP token nor made from it', () => {
    const web = loadOrCreateWebToken(home);
    const mcp = loadOrCreateMcpToken(home);
    expect(web).not.toBe(mcp);
    expect(fs.readFileSync(mcpTokenFile(home), 'utf8').trim()).toBe(mcp);
  });

  it('is rotated into a new one that is kept from then on, 0600, and the MCP token stays', () => {
    const old = loadOrCreateWebToken(home);
    const mcp = loadOrCreateMcpToken(home);
    const rotated = rotateWebToken(home);
    expect(rotated).not.toBe(old);
    expect(rotated).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(loadOrCreateWebToken(home)).toBe(rotated);
    expect(mode(webTokenFile(home))).toBe(0o600);
    expect(loadOrCreateMcpToken(home)).toBe(mcp);
    expect(leftovers()).toEqual([]);
  });

  it('can be rotated before it ever existed (a new home)', () => {
    const token = rotateWebToken(home);
    expect(loadOrCreateWebToken(home)).toBe(token);
  });

  it('replaces a file too short to be a token (truncated, or typed by hand)', () => {
    fs.mkdirSync(home, { recursive: true });
    fs.writeFileSync(webTokenFile(home), 'secret\n', { mode: 0o644 });
    const token = loadOrCreateWebToken(home);
    expect(token).not.toBe('secret');
    expect(token.length).toBeGreaterThanOrEqual(32);
    expect(mode(webTokenFile(home))).toBe(0o600);
  });

  it('is one token when several processes start at once on a new home', async () => {
    const moduleUrl = new URL('./mcp-token.ts', import.meta.url).href;
    const script = `import(${JSON.stringify(moduleUrl)}).then((m) => process.stdout.write(m.loadOrCreateWebToken(${JSON.stringify(home)})))`;
    const run = () =>
      new Promise<string>((resolve, reject) => {
        // Node 20 runs the TypeScript module through the tsx loader the repository's tests use.
        const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: process.cwd() });
        let out = '';
        let err = '';
        child.stdout.on('data', (d: Buffer) => (out += d.toString()));
        child.stderr.on('data', (d: Buffer) => (err += d.toString()));
        child.on('error', reject);
        child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`exit ${code}: ${err}`))));
      });
    const tokens = await Promise.all([run(), run(), run(), run()]);
    expect(new Set(tokens).size).toBe(1);
    expect(tokens[0]).toBe(loadOrCreateWebToken(home));
  });
});
