// `cairn serve` (what `make run` starts here): loopback only, token required, foreign Host refused.
import { spawn } from 'node:child_process';
import * as fs from 'node:fs/promises';
import * as http from 'node:http';
import * as path from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CAIRN_BIN, makeSandbox, requireBuiltCli, type Sandbox } from '../support/sandbox';

let sb: Sandbox;
beforeAll(requireBuiltCli);
beforeEach(async () => {
  sb = await makeSandbox();
});
afterEach(async () => {
  await sb.cleanup();
});

function get(url: string, host?: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { headers: host ? { host } : {} }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
  });
}

describe('cairn serve', () => {
  it('serves the memory view to the holder of the token only', async () => {
    await sb.run({ command: 'create', path: '/memories/project/conventions.md', file_text: 'Use tabs.' });
    const server = spawn(CAIRN_BIN, ['serve', '--port', '0', '--home', sb.home, '--cwd', sb.checkout]);
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = '';
        server.stdout.on('data', (d: Buffer) => {
          out += d.toString();
          const m = /serving at (http:\/\/127\.0\.0\.1:\d+\/\?token=\S+)/.exec(out);
          if (m) resolve(m[1]!);
        });
        server.on('exit', (code) => reject(new Error(`serve exited ${code}`)));
      });
      const page = await get(url);
      expect(page.status).toBe(200);
      expect(page.body).toContain('/memories/project/conventions.md');
      const bare = new URL(url);
      bare.search = '';
      expect((await get(bare.toString())).status).toBe(401);
      expect((await get(url, 'attacker.example:80')).status).toBe(421);
      const info = path.join(sb.home, 'server.json');
      expect((await fs.stat(info)).mode & 0o777).toBe(0o600);
      expect(JSON.parse(await fs.readFile(info, 'utf8'))).toMatchObject({ url: `http://127.0.0.1:${bare.port}`, token: new URL(url).searchParams.get('token') });
    } finally {
      server.kill('SIGTERM');
      await new Promise((r) => server.on('close', r));
    }
    await expect(fs.access(path.join(sb.home, 'server.json'))).rejects.toThrow();
  });
});
