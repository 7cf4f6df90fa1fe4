// Badges new since the view's "Mark all seen", in the page's store: from the server's answer, from
// live changes, and a server answer never undoing a mark made here after it was asked for.
import { describe, expect, it } from 'vitest';
import { badgeKey, BadgeStore } from './badge-store';

const W = 'ws-1';
const key = (p: string) => badgeKey(W, 'project', `/memories/project/${p}`);
const badge = (p: string, at: string) => ({ scope: 'project' as const, path: `/memories/project/${p}`, badge: 'agent' as const, at });

describe('new badges', () => {
  it('are every badge of a view never marked, and those newer than its mark once marked', async () => {
    const store = new BadgeStore();
    store.fromServer(W, [badge('a.md', '2025-01-01T10:00:00.000Z'), badge('b.md', '2025-01-01T12:00:00.000Z')], store.mark());
    expect(store.newCount(W)).toBe(2);
    store.fromServer(W, [badge('a.md', '2025-01-01T10:00:00.000Z'), badge('b.md', '2025-01-01T12:00:00.000Z')], store.mark(), '2025-01-01T11:00:00.000Z');
    expect([store.isNew(key('a.md'), W), store.isNew(key('b.md'), W)]).toEqual([false, true]);
    expect(store.get(key('a.md'))).toBe('agent');

    // A live change after the mark is new; marking all seen makes it ordinary, the badge stays.
    store.changed(key('a.md'), 'agent', '2025-01-01T13:00:00.000Z');
    expect(store.newCount(W)).toBe(2);
    let heard = 0;
    const off = store.subscribeAll(() => heard++);
    store.markLooked(W, '2025-01-01T14:00:00.000Z');
    expect(store.newCount(W)).toBe(0);
    expect(store.get(key('b.md'))).toBe('agent');
    await Promise.resolve();
    expect(heard).toBe(1);
    off();
  });

  it('an answer asked for before a mark made here does not bring the old mark back', () => {
    const store = new BadgeStore();
    const since = store.mark();
    store.markLooked(W, '2025-01-01T14:00:00.000Z');
    store.fromServer(W, [badge('a.md', '2025-01-01T12:00:00.000Z')], since, '2025-01-01T11:00:00.000Z');
    expect(store.isNew(key('a.md'), W)).toBe(false);
  });

  it('opening a file clears its badge, new or not', () => {
    const store = new BadgeStore();
    store.changed(key('a.md'), 'agent', '2025-01-01T13:00:00.000Z');
    expect(store.isNew(key('a.md'), W)).toBe(true);
    store.clear(key('a.md'));
    expect([store.get(key('a.md')), store.isNew(key('a.md'), W), store.newCount(W)]).toEqual([null, false, 0]);
  });
});
