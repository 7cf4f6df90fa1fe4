// The Electron host as built: it cannot be launched on machines where no Electron binary can be
// installed (these), so this checks what was built: a CommonJS preload that only forwards the
// MessagePort, and a main process whose window keeps the security settings. Where a binary is
// installed, it also launches the app and checks that it starts.
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, requireBuiltCli } from '../support/sandbox';

const out = (rel: string) => fs.readFileSync(path.join(REPO_ROOT, 'out', rel), 'utf8');

beforeAll(requireBuiltCli);

describe('the Electron host build', () => {
  it('has a CommonJS preload that forwards one MessagePort and exposes nothing', () => {
    const preload = out('preload/index.cjs');
    expect(preload).toContain('require("electron")');
    expect(preload).not.toMatch(/^\s*(import|export)\s/m);
    expect(preload).not.toContain('contextBridge');
    expect(preload).toMatch(/ipcRenderer\.on\("cairn:port"/);
  });

  it('builds the main process with a sandboxed, isolated window that cannot navigate away', () => {
    const main = out('main/index.js');
    expect(main).toMatch(/contextIsolation: true/);
    expect(main).toMatch(/sandbox: true/);
    expect(main).toMatch(/nodeIntegration: false/);
    expect(main).toContain('setWindowOpenHandler');
    expect(main).toContain('"will-navigate"');
    expect(main).toContain('requestSingleInstanceLock');
    expect(main).toContain('setPermissionRequestHandler');
    expect(main).toContain('index.cjs');
  });

  it('has a renderer whose page allows only its own scripts', () => {
    const html = out('renderer/index.html');
    expect(html).toMatch(/Content-Security-Policy" content="default-src 'self'; script-src 'self'/);
  });

  it('launches where an Electron binary is installed', async () => {
    const pathTxt = path.join(REPO_ROOT, 'node_modules/electron/path.txt');
    const binary = fs.existsSync(pathTxt) ? path.join(REPO_ROOT, 'node_modules/electron/dist', fs.readFileSync(pathTxt, 'utf8').trim()) : '';
    if (!binary || !fs.existsSync(binary) || !process.env.DISPLAY) {
      // Not a skip of this suite: the checks above ran. Only the launch needs the binary.
      console.log(`electron launch not run: ${!binary || !fs.existsSync(binary) ? 'no Electron binary can be installed on this machine' : 'no display'}`);
      return;
    }
    // Started means: its loopback server is up and written to server.json in its home (what the app
    // does once Electron is ready), and it is still running then. Not "still alive after 3 s",
    // which a slow start passes without starting and a slow crash passes too.
    const home = fs.mkdtempSync('/tmp/cairn-electron-');
    const app = spawn(binary, ['--no-sandbox', REPO_ROOT], { env: { ...process.env, CAIRN_HOME: home } });
    let exited: number | string | null = null;
    app.once('exit', (code, signal) => (exited = code ?? signal));
    try {
      const deadline = Date.now() + 20_000;
      while (!fs.existsSync(path.join(home, 'server.json')) && exited === null && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      expect(exited, 'the app exited while starting').toBeNull();
      expect(fs.existsSync(path.join(home, 'server.json')), 'no server.json after 20 s').toBe(true);
    } finally {
      if (exited === null) {
        const gone = new Promise((r) => app.once('exit', r));
        app.kill();
        await gone; // it writes its window state as it quits: the home is removed after
      }
      fs.rmSync(home, { recursive: true, force: true });
    }
  });
});
