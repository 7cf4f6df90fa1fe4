/**
 * Memory files' frontmatter as people and tools write it (LF and CRLF, a byte order mark, `...`,
 * trailing spaces, empty and unclosed blocks), for the tests of its one reader and of every view
 * that uses it.
 */
/** Each case: a file's text; its block (null: none); the first line of its body. */
export const FRONTMATTER_CASES: ReadonlyArray<{ name: string; text: string; block: string | null; body: string }> = [
  { name: 'LF', text: '---\ndescription: Deploy steps\n---\nRun the zebra deploy.\n', block: 'description: Deploy steps', body: 'Run the zebra deploy.' },
  { name: 'CRLF', text: '---\r\ndescription: Deploy steps\r\n---\r\nRun the zebra deploy.\r\n', block: 'description: Deploy steps', body: 'Run the zebra deploy.' },
  { name: 'BOM', text: '\ufeff---\ndescription: Deploy steps\n---\nRun the zebra deploy.\n', block: 'description: Deploy steps', body: 'Run the zebra deploy.' },
  { name: 'closed with ...', text: '---\ndescription: Deploy steps\n...\nRun the zebra deploy.\n', block: 'description: Deploy steps', body: 'Run the zebra deploy.' },
  { name: 'fences with trailing spaces', text: '---  \ndescription: Deploy steps\n--- \t\nRun the zebra deploy.\n', block: 'description: Deploy steps', body: 'Run the zebra deploy.' },
  { name: 'empty block', text: '---\n---\nRun the zebra deploy.\n', block: '', body: 'Run the zebra deploy.' },
  { name: 'CRLF, two keys', text: '---\r\ndescription: Deploy steps\r\ntags: ops\r\n---\r\nRun the zebra deploy.\r\n', block: 'description: Deploy steps\ntags: ops', body: 'Run the zebra deploy.' },
  { name: 'no block', text: 'Run the zebra deploy.\n', block: null, body: 'Run the zebra deploy.' },
  { name: 'broken: never closed', text: '---\ndescription: Deploy steps\nRun the zebra deploy.\n', block: null, body: '---' },
  { name: 'a rule later in the body is not a block', text: 'Run the zebra deploy.\n---\nmore\n', block: null, body: 'Run the zebra deploy.' },
];
