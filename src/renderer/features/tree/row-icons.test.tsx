// The tree's shared row icons draw what lucide-react draws for the same icons, classes included
// (the tree's styles and tests find the chevrons by lucide's class names).
import { ChevronDown, ChevronRight, FileText, Folder, FolderOpen } from 'lucide-react';
import type { ReactElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { CHEVRON_DOWN, CHEVRON_RIGHT, FILE_TEXT, FOLDER, FOLDER_OPEN } from './row-icons';

const cases: [string, ReactElement, ReactElement][] = [
  ['chevron right', CHEVRON_RIGHT, <ChevronRight size={14} aria-hidden />],
  ['chevron down', CHEVRON_DOWN, <ChevronDown size={14} aria-hidden />],
  ['folder', FOLDER, <Folder size={14} aria-hidden className="dir-icon" />],
  ['open folder', FOLDER_OPEN, <FolderOpen size={14} aria-hidden className="dir-icon" />],
  ['file', FILE_TEXT, <FileText size={14} aria-hidden className="file-icon" />],
];

describe('row icons', () => {
  it.each(cases)('the %s icon is the markup lucide draws', (_, ours, theirs) => {
    expect(renderToStaticMarkup(ours)).toBe(renderToStaticMarkup(theirs));
  });
});
