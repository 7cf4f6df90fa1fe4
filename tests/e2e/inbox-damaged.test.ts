// A damaged inbox item file in the Inbox, in real Chromium against `cairn serve` with a temp home:
// a file of <home>/inbox/items that is not JSON is shown first, as damaged, with what is wrong and
// where the file is, beside the good proposal (which still works), and counted beside the tree;
// Cairn leaves the file as it is; once the person removes it, Refresh takes it off the list.
// Screenshots: test-results/inbox-damaged.png and inbox-damaged-dark.png.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Browser, endSuite } from '../support/browser';
import { runCairn } from '../support/cli';
import { inbox, openPage, shotLightAndDark, showInbox } from '../support/page';
import type { Sandbox } from '../support/sandbox';
import type { Served } from '../support/serve';
import { openWorkspaceSuite } from '../support/workspace-suite';

const DAMAGED_ID = '0mx13hxjc-00011c9f';
const TORN = '{"id": "0mx13hxjc-00011c9f", "kind": "memory", "status": "pen';

let sb: Sandbox;
let served: Served;
let browser: Browser;
let damagedFile: string;

beforeAll(async () => {
  ({ sb, served, browser } = await openWorkspaceSuite());
  const notes = path.join(sb.dir, 'notes.md');
  await fs.writeFile(notes, '- Deploys go out on Tuesdays.\n');
  const imported = await runCairn(['import', '--from', 'markdown', notes, '--scope', 'global', '--home', sb.home], { cwd: sb.checkout });
  expect(imported.status, imported.stderr).toBe(0);
  damagedFile = path.join(sb.home, 'inbox', 'items', `${DAMAGED_ID}.json`);
  await fs.writeFile(damagedFile, TORN);
});
afterAll(() => endSuite({ browsers: [browser], served, sb }));

describe('a damaged inbox item file in the Inbox (Chromium)', () => {
  it('is listed as damaged with its problem and file, beside the good proposal, and leaves the list once removed', async () => {
    const page = await openPage(browser.context, served.address, { width: 1280 });
    // Counted beside the tree: the person has two things to look at.
    await page.getByRole('button', { name: 'Inbox, 2 to review' }).waitFor();
    await showInbox(page);
    await inbox(page).getByText('1 proposal to review. Nothing is added to memory until you approve it. One inbox file is damaged.').waitFor();
    const damaged = inbox(page).getByRole('listitem', { name: `Damaged inbox file ${DAMAGED_ID}` });
    await damaged.getByText('This inbox item cannot be read: it is not valid JSON. It can be neither approved nor rejected, and Cairn does not change or remove the file.').waitFor();
    await damaged.getByText(damagedFile, { exact: true }).waitFor();
    await damaged.getByRole('button', { name: "Copy the file's path" }).waitFor();
    await inbox(page).getByRole('listitem', { name: 'Fact: Deploys go out on Tuesdays.' }).waitFor();
    // The damaged section comes before the proposals.
    const order = await inbox(page)
      .getByRole('region')
      .evaluateAll((els) => els.map((e) => e.getAttribute('aria-label')));
    expect(order[0]).toBe('Damaged item files');
    await shotLightAndDark(page, 'inbox-damaged');
    expect(await fs.readFile(damagedFile, 'utf8')).toBe(TORN);

    // The person removes it; Refresh shows the inbox without it.
    await fs.rm(damagedFile);
    await inbox(page).getByRole('button', { name: 'Refresh' }).click();
    await damaged.waitFor({ state: 'detached' });
    await page.getByRole('button', { name: 'Inbox, 1 to review' }).waitFor();
    await page.close();
  });
});
