// @vitest-environment happy-dom
// The notice of files Cairn set aside, against the real backend: a seen.json that does not parse
// is moved aside by the backend's own read (the badges), and the sidebar then says so; the
// dialog tells what the file was for and what it held, and removes the old copy only on the
// person's click.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import { makeBackend, renderWithBackend } from '../../../../tests/support/ui-backend';
import { App } from '../../app/App';
import { setAsideWhat } from './SetAsideNotice';

afterEach(cleanup);

const asides = async (dir: string) => (await fs.readdir(dir)).filter((n) => n.includes('.damaged-'));

describe('files Cairn set aside', () => {
  it('a torn seen.json: the sidebar says a file was set aside; the dialog shows what it was and held, and removes the old copy on request', async () => {
    const user = userEvent.setup();
    const b = await makeBackend();
    const torn = '{"version":1,"files":{"/memories/global/a.md":"2026-';
    await fs.writeFile(path.join(b.sb.home, 'seen.json'), torn);
    // The backend's own read finds it torn and moves it aside (what the badges of any view do).
    await b.client.memory.badges({ workspaceId: b.workspaceId });
    const [aside] = await asides(b.sb.home);
    expect(aside).toMatch(/^seen\.json\.damaged-\d{8}T\d{6}Z$/);

    await renderWithBackend(<App />, b);
    const notice = await screen.findByRole('button', { name: 'Cairn could not read a file of its own and set it aside' });
    await user.click(notice);
    const dialog = screen.getByRole('dialog', { name: 'Files Cairn set aside' });
    expect(within(dialog).getByText('seen.json')).toBeTruthy();
    expect(within(dialog).getByText(/which files you have opened/)).toBeTruthy();
    expect(within(dialog).getByText(path.join(b.sb.home, aside!))).toBeTruthy();
    expect(within(dialog).getByLabelText("What seen.json's old copy holds").textContent).toBe(torn);
    // Nothing is removed until the person says so.
    expect(await asides(b.sb.home)).toEqual([aside]);

    await user.click(within(dialog).getByRole('button', { name: 'Remove the old copy' }));
    await waitFor(() => expect(screen.queryByRole('button', { name: /set it aside/ })).toBeNull());
    expect(await asides(b.sb.home)).toEqual([]);
    // The file itself is Cairn's afresh, not the torn one.
    expect(await fs.readFile(path.join(b.sb.home, 'seen.json'), 'utf8').catch(() => null)).not.toBe(torn);
  });

  it('a file that is gone by the time of the click says so instead of failing silently', async () => {
    const b = await makeBackend();
    const result = await b.client.setAside.remove({ aside: path.join(b.sb.home, 'seen.json.damaged-20260101T000000Z') });
    expect(result).toEqual({ status: 'error', message: 'seen.json.damaged-20260101T000000Z is no longer there (removed already?).' });
  });

  it('never removes a file that is not one Cairn set aside', async () => {
    const b = await makeBackend();
    const other = path.join(b.sb.home, 'config.json');
    const before = await fs.readFile(other, 'utf8');
    expect((await b.client.setAside.remove({ aside: other })).status).toBe('error');
    expect((await b.client.setAside.remove({ aside: path.join(b.sb.checkout, 'x.damaged-20260101T000000Z') })).status).toBe('error');
    expect(await fs.readFile(other, 'utf8')).toBe(before);
  });

  it.each([
    ['seen.json', 'which files you have opened'],
    ['memory-meta.json', 'pins'],
    ['sweeps/0001-ab.json', 'consolidation proposal'],
    ['harvest/sessions/claude-abc.json', 'harvested'],
    ['harvest/jobs/abc.json', 'queued harvest'],
    ['harvest/status/abc.json', 'last harvest'],
  ])('%s is named for what it is for', (file, words) => {
    expect(setAsideWhat(file)).toContain(words);
  });
});
