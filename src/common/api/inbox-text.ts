/**
 * What an agent's change held for review does, in words (issue 19, review mode): the Inbox card's
 * title, the CLI's lines and the API's answers say it the same way. Pure.
 */
export interface ChangeWords {
  readonly command: 'create' | 'str_replace' | 'insert' | 'delete' | 'rename';
  readonly path: string;
  /** A rename's destination. */
  readonly newPath: string | null;
}

/** "Create /memories/project/notes.md", "Rename /a.md to /b.md", "Edit /x.md" (with `detail`: "Edit /x.md (insert)"). */
export function changeTitle(change: ChangeWords, detail = false): string {
  switch (change.command) {
    case 'create':
      return `Create ${change.path}`;
    case 'delete':
      return `Delete ${change.path}`;
    case 'rename':
      return `Rename ${change.path} to ${change.newPath}`;
    default:
      return detail ? `Edit ${change.path} (${change.command})` : `Edit ${change.path}`;
  }
}
