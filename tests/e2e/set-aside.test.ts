// Files Cairn set aside, in real Chromium against `cairn serve` with a temp home: an agent's
// `cairn pin` (another process) finds memory-meta.json torn, moves it aside and starts it afresh;
// the app then says so in the sidebar, and its dialog tells what the file was for, where the old
// copy is and what it held; the person removes the old copy and the notice goes. Screenshots:
// test-results/set-aside.png and set-aside-dark.png.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Browser, endSuite } from '../support/browser';
import { runCairn } from '../support/cli';
import { openPage, shotLightAndDark } from '../support/page';
import type { Sandbox } from '../support/sandbox';
import type { Served } from '../support/serve';
import { openWorkspaceSuite } from '../support/workspace-suite';

let sb: Sandbox;
let served: Served;
let browser: Browser;

const cairn = (...args: string[]) => runCairn([...args, '--home', sb.home], { cwd: sb.checkout });
const asides = async () => (await fs.readdir(sb.home)).filter((n) => n.includes('.damaged-'));

beforeAll(async () => {
  ({ sb, served, browser } = await openWorkspaceSuite());
});
afterAll(() => endSuite({ browsers: [browser], served, sb }));

describe('files Cairn set aside (Chromium)', () => {
  it('a torn memory-meta.json set aside by an agent\u2019s command is shown in the app, with what it held, until the person removes it', async () => {
    for (const name of ['a', 'b']) expect((await cairn('tool', JSON.stringify({ command: 'create', path: `/memories/global/${name}.md`, file_text: `${name}\n` }))).status).toBe(0);
    expect((await cairn('pin', '/memories/global/a.md')).status).toBe(0);
    const whole = await fs.readFile(path.join(sb.home, 'memory-meta.json'), 'utf8');
    const torn = whole.slice(0, Math.max(20, whole.length - 15));
    await fs.writeFile(path.join(sb.home, 'memory-meta.json'), torn);
    const pin = await cairn('pin', '/memories/global/b.md');
    expect(pin.status, pin.stderr).toBe(0);
    const [aside] = await asides();
    expect(aside).toMatch(/^memory-meta\.json\.damaged-/);

    const page = await openPage(browser.context, served.address, { width: 1280 });
    const notice = page.getByRole('button', { name: 'Cairn could not read a file of its own and set it aside' });
    await notice.click();
    const dialog = page.getByRole('dialog', { name: 'Files Cairn set aside' });
    await dialog.getByText('pins and how often each memory was used').waitFor();
    await dialog.getByText(path.join(sb.home, aside!), { exact: true }).waitFor();
    expect(await dialog.getByLabel("What memory-meta.json's old copy holds").textContent()).toBe(torn);
    await shotLightAndDark(page, 'set-aside');

    await dialog.getByRole('button', { name: 'Remove the old copy' }).click();
    await notice.waitFor({ state: 'detached' });
    expect(await asides()).toEqual([]);
    // The pins Cairn could salvage, and the new one, are all there.
    const stats = await cairn('stats');
    expect(stats.stdout).toMatch(/yes .*\/memories\/global\/b\.md/);
  }, 90_000);
});
