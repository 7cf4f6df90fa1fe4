/**
 * What the command palette offers, registered by the features that own it: commands (an action
 * with its title) and the quick-open source (the memory files of the view shown, and how to open
 * one). A feature registers a provider, a function read when the palette opens, so a registration
 * never goes stale and costs nothing while the palette is closed.
 *
 * Invariants: a provider is removed when its component unmounts (the hooks' effects do it); the
 * quick-open source is the one registered last, which is the view on screen (one memory pane at a
 * time); command ids are unique across providers, a later provider's command replacing an earlier one.
 */
import { useEffect, useRef } from 'react';

export interface PaletteCommand {
  /** Stable and unique (`inbox.open`, `workspace.switch:<id>`). */
  readonly id: string;
  /** What the palette shows and filters on: a verb first ("Open the Inbox"). */
  readonly title: string;
  /** A keyboard shortcut or a word on the side ("Ctrl+P"). */
  readonly hint?: string;
  readonly run: () => void;
}

export interface QuickOpenFile {
  readonly path: string;
  readonly description?: string | null;
}

export interface QuickOpenSource {
  /** The view's memory files, every scope. */
  readonly files: readonly QuickOpenFile[];
  /** Opens one of them (and moves the focus into its editor). */
  readonly open: (path: string) => void;
}

type CommandProvider = () => readonly PaletteCommand[];
type SourceProvider = () => QuickOpenSource;

const commandProviders = new Set<{ current: CommandProvider }>();
const sourceProviders: { current: SourceProvider }[] = [];

/** Every registered command, in registration order; a later id replaces an earlier one. */
export function paletteCommands(): PaletteCommand[] {
  const byId = new Map<string, PaletteCommand>();
  for (const provider of commandProviders) for (const c of provider.current()) byId.set(c.id, c);
  return [...byId.values()];
}

/** The quick-open source of the view on screen, or null when no view lists memory. */
export function quickOpenSource(): QuickOpenSource | null {
  const last = sourceProviders[sourceProviders.length - 1];
  return last ? last.current() : null;
}

/** Adds a provider of commands for as long as the calling component is mounted; it always reads the latest render's commands. */
export function useRegisterCommands(provider: CommandProvider): void {
  const latest = useRef(provider);
  latest.current = provider;
  useEffect(() => {
    const entry = { current: () => latest.current() };
    commandProviders.add(entry);
    return () => {
      commandProviders.delete(entry);
    };
  }, []);
}

/** Makes the calling component's memory files what quick open searches, for as long as it is mounted. */
export function useQuickOpenSource(provider: SourceProvider): void {
  const latest = useRef(provider);
  latest.current = provider;
  useEffect(() => {
    const entry = { current: () => latest.current() };
    sourceProviders.push(entry);
    return () => {
      const at = sourceProviders.indexOf(entry);
      if (at >= 0) sourceProviders.splice(at, 1);
    };
  }, []);
}
