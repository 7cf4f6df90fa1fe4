/** The change journal and the live change feed built on it (see each module's header). */
export { ChangeFeed, accountsFor, type ChangeFeedOptions, type ChangeListener, type ChangeOrigin } from './change-feed';
export { ExternalWatcher, type ExternalWatcherOptions } from './external-watcher';
export { Journal, journalLine, type JournalEvent, type JournalOptions } from './journal';
export { MetaWatcher, type MetaChange, type MetaWatcherOptions } from './meta-watcher';
export { JournalTail, type JournalTailOptions } from './tail';
export { concerns, subscribeSession, type ChangeSource } from './session-changes';
