// The remote helper's program as a file of its own: perl -c accepts it as written and as sent, the
// client's values are filled in, and the program sent through the bootstrap starts and greets with
// the client's version (locally, no sshd: the same perl command an SSH host runs).
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { HELPER_BOOTSTRAP, HELPER_SOURCE, HELPER_VERSION, fillInProgram } from './remote-helper';

const PROGRAM_FILE = fileURLToPath(new URL('./remote-helper.pl', import.meta.url));

/** perl -c on a file: its exit status and what it said. */
function perlCheck(file: string): { status: number | null; output: string } {
  const result = spawnSync('perl', ['-c', file], { encoding: 'utf8' });
  if (result.error) throw result.error;
  return { status: result.status, output: result.stderr + result.stdout };
}

describe('the remote helper program', () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });
  const tempFile = (name: string, text: string): string => {
    dir ??= fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-helper-'));
    const file = path.join(dir, name);
    fs.writeFileSync(file, text);
    return file;
  };

  it('compiles under perl -c as written in remote-helper.pl', () => {
    const { status, output } = perlCheck(PROGRAM_FILE);
    expect(output).toMatch(/syntax OK/);
    expect(status).toBe(0);
  });

  it('compiles under perl -c as sent, with the client’s values and no placeholder left', () => {
    expect(HELPER_SOURCE).not.toMatch(/'@[A-Z_]+@'/);
    expect(HELPER_SOURCE).toContain(`my $HELPER_VERSION = '${HELPER_VERSION}';`);
    expect(HELPER_SOURCE).toContain('my $VERSION_SETTLE_S = 3;');
    const { status, output } = perlCheck(tempFile('sent.pl', HELPER_SOURCE));
    expect(output).toMatch(/syntax OK/);
    expect(status).toBe(0);
  });

  it('the check catches a syntax error (an unclosed block)', () => {
    const broken = fs.readFileSync(PROGRAM_FILE, 'utf8').replace('sub send_fields {', 'sub send_fields { {');
    const { status, output } = perlCheck(tempFile('broken.pl', broken));
    expect(status).not.toBe(0);
    expect(output).toMatch(/compilation errors|syntax error|Missing right curly/);
  });

  it('fills in every placeholder and refuses one missing or left over', () => {
    expect(fillInProgram(`my $v = '@V@'; my $n = '@N@';`, { V: "it's", N: 1.5 })).toBe(`my $v = 'it\\'s'; my $n = 1.5;`);
    expect(() => fillInProgram(`my $v = 1;`, { V: 'x' })).toThrow(/no placeholder/);
    expect(() => fillInProgram(`my $v = '@V@'; my $w = '@W@';`, { V: 'x' })).toThrow(/'@W@' has no value/);
  });

  it('starts through the bootstrap and greets with the client’s version', async () => {
    const source = Buffer.from(HELPER_SOURCE, 'utf8');
    const child = spawn('/bin/sh', ['-c', HELPER_BOOTSTRAP], { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = Buffer.alloc(0);
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out = Buffer.concat([out, d])));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    child.stdin.write(`${source.length}\n`);
    child.stdin.write(source);
    // End of input is the helper's end: it answers what it was sent and exits 0.
    child.stdin.end();
    expect(await exited).toBe(0);
    expect(err).toBe('');
    const payload = out.subarray(4, 4 + out.readUInt32BE(0));
    const fields: string[] = [];
    for (let off = 0; off < payload.length; ) {
      const len = payload.readUInt32BE(off);
      fields.push(payload.subarray(off + 4, off + 4 + len).toString());
      off += 4 + len;
    }
    expect(fields).toEqual(['ready', HELPER_VERSION]);
  });
});
