/**
 * The page side of the Chromium suites (tests/e2e): a new tab of the app at a size, the locators
 * every suite uses (a tree row, the Inbox), the colour scheme, and screenshots under test-results/
 * for a person to look at: one of the page as it is, or a set at 1400 and 800 px, light and dark.
 */
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import type { BrowserContext, Locator, Page } from 'playwright-core';

/** Where screenshots go. */
export const SHOTS = path.resolve('test-results');

/** A row of the tree, by its virtual path. */
export const row = (page: Page, p: string): Locator => page.getByRole('treeitem', { name: p, exact: true });
/** The tree's live indicator, once the change stream is live (agents' and outside edits show from then on). */
export const live = (page: Page): Locator => page.getByTitle("Agents' edits show up here as they happen");
/** The editor of a file (its virtual path), and the text in it. */
export const editorOf = (page: Page, p: string): Locator => page.getByRole('region', { name: `Editor: ${p}` });
export const contentOf = (page: Page, p: string): Locator => editorOf(page, p).getByRole('textbox', { name: `Content of ${p}` });
/** The Inbox in the memory pane. */
export const inbox = (page: Page): Locator => page.getByRole('region', { name: 'Inbox' });

export interface OpenOptions {
  /** The window's size; 1400 × 800 unless given. */
  readonly width?: number;
  readonly height?: number;
  /** Run on the new tab before anything else (an emulated zone, storage). */
  readonly before?: (page: Page) => Promise<void>;
  /** Wait for this row of the tree (its path). */
  readonly row?: string;
  /** Wait for the change stream to be live (default true). */
  readonly live?: boolean;
}

/** A new tab of `context` at `address` (the app `cairn serve` serves), once it shows what `options` asks. */
export async function openPage(context: BrowserContext, address: string, options: OpenOptions = {}): Promise<Page> {
  const page = await context.newPage();
  await options.before?.(page);
  await page.setViewportSize({ width: options.width ?? 1400, height: options.height ?? 800 });
  await page.goto(address);
  if (options.row !== undefined) await row(page, options.row).waitFor();
  if (options.live ?? true) await live(page).waitFor();
  return page;
}

/** Opens `file` from its row and types `text` at its end, as a person would; the editor, with unsaved edits. */
export async function typeAtEnd(page: Page, file: string, text: string): Promise<Locator> {
  await row(page, file).click();
  await contentOf(page, file).click();
  await page.keyboard.press('Control+End');
  await page.keyboard.type(text);
  const editor = editorOf(page, file);
  await editor.getByLabel('Unsaved changes').waitFor();
  return editor;
}

/** Opens the Inbox from its button beside the tree. */
export async function showInbox(page: Page): Promise<void> {
  await page.getByRole('button', { name: /^Inbox/ }).click();
  await inbox(page).waitFor();
}

/**
 * Sets the page's colour scheme (the app follows the system's by default) and waits for the app to
 * apply it; a page the app is not drawn on (a boot error) has no theme of its own to wait for.
 */
export async function theme(page: Page, scheme: 'light' | 'dark'): Promise<void> {
  await page.emulateMedia({ colorScheme: scheme });
  await page.locator(`html:not([data-theme]), html[data-theme="${scheme}"]`).waitFor({ state: 'attached' });
}

/** Saves the page as it is to test-results/<name>.png. */
export async function shot(page: Page, name: string): Promise<void> {
  await fs.mkdir(SHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SHOTS, `${name}.png`) });
}

export interface ShotsOptions {
  /** Waits for what must be on screen at each size (a resize can close a menu). */
  readonly ready?: () => Promise<unknown>;
  /** What to save: the whole page unless given. */
  readonly of?: Locator;
}

/**
 * Saves the page at 1400 and 800 px wide (its height as it is), light and dark, to
 * test-results/<name>-<width>-<scheme>.png; then it is light again, at the size it had.
 */
export async function shots(page: Page, name: string, options: ShotsOptions = {}): Promise<void> {
  const size = page.viewportSize() ?? { width: 1400, height: 800 };
  await fs.mkdir(SHOTS, { recursive: true });
  for (const scheme of ['light', 'dark'] as const) {
    await theme(page, scheme);
    for (const width of [1400, 800]) {
      await page.setViewportSize({ width, height: size.height });
      await options.ready?.();
      await (options.of ?? page).screenshot({ path: path.join(SHOTS, `${name}-${width}-${scheme}.png`) });
    }
  }
  await theme(page, 'light');
  await page.setViewportSize(size);
}

/** Saves the page as it is, light to test-results/<name>.png and dark to <name>-dark.png; then it is light again. */
export async function shotLightAndDark(page: Page, name: string): Promise<void> {
  await shot(page, name);
  await theme(page, 'dark');
  await shot(page, `${name}-dark`);
  await theme(page, 'light');
}
