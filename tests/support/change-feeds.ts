/**
 * The change feeds a test follows on a sandbox: a feed on its home, watching its session and
 * recording everything delivered from its ready on, with the origin the feed gave it. close(),
 * called from the suite's afterEach before the sandbox goes, ends what the test started: the
 * subscriptions and other stops first (each is idempotent, so one the test ended itself is no
 * matter), then the feeds, so no watcher is left on a removed folder.
 */
import type { MemoryChangeEvent } from '../../src/common/memory/events';
import { ChangeFeed, type ChangeFeedOptions, type ChangeOrigin } from '../../src/main/journal/change-feed';
import type { Sandbox } from './sandbox';

export type Seen = { event: MemoryChangeEvent; origin: ChangeOrigin };

export interface FollowedFeed {
  readonly feed: ChangeFeed;
  /** What the feed delivered, in order. */
  readonly events: Seen[];
  /** Stops watching the session's roots, then ends the subscription. */
  stop(): void;
}

export class TestFeeds {
  #feeds: ChangeFeed[] = [];
  #stops: (() => void)[] = [];

  /** A feed on `sb`'s home, watching its session, recording what it delivers; resolves once it is ready. */
  async follow(sb: Sandbox, options: Omit<ChangeFeedOptions, 'home'> = {}): Promise<FollowedFeed> {
    const feed = this.add(new ChangeFeed({ home: sb.home, ...options }));
    const events: Seen[] = [];
    const unsubscribe = feed.subscribe((event, origin) => events.push({ event, origin }));
    const unwatch = feed.watch(sb.session);
    const stop = () => {
      unwatch();
      unsubscribe();
    };
    this.onClose(stop);
    await feed.ready();
    return { feed, events, stop };
  }

  /** A feed the test made itself, closed with the rest. */
  add(feed: ChangeFeed): ChangeFeed {
    this.#feeds.push(feed);
    return feed;
  }

  /** Something else to stop after the test (a journal's tail), before the feeds close. */
  onClose(stop: () => void): void {
    this.#stops.push(stop);
  }

  async close(): Promise<void> {
    const stops = this.#stops.splice(0);
    const feeds = this.#feeds.splice(0);
    for (const stop of stops) stop();
    await Promise.all(feeds.map((f) => f.close()));
  }
}
