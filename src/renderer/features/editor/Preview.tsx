/**
 * The rendered Markdown of a memory, GitHub-flavoured (remark-gfm: tables, task lists,
 * strikethrough, autolinks, footnotes), as the same file reads on GitHub. Memory content is
 * untrusted: raw HTML is dropped (never rendered), links get react-markdown's safe URL check and
 * open outside the app, task list boxes are read-only, and the YAML frontmatter is shown as a block
 * of data, not as Markdown.
 */
import Markdown from 'react-markdown';
import remarkGfm from 'remark-gfm';
import { frontmatterBlock } from '../../../common/memory/frontmatter-block';

// One array for every render: react-markdown re-parses when its plugins change identity.
const remarkPlugins = [remarkGfm];

export function Preview({ text }: { text: string }) {
  // Where the block ends, as every other view reads it (common/memory/frontmatter-block.ts).
  const { block: frontmatter, bodyStart } = frontmatterBlock(text);
  const body = text.slice(bodyStart);
  return (
    <div className="preview" aria-label="Rendered preview">
      {frontmatter !== null && <pre className="frontmatter">{frontmatter}</pre>}
      <Markdown skipHtml remarkPlugins={remarkPlugins} components={{ a: ({ href, children }) => <a href={href} target="_blank" rel="noreferrer noopener">{children}</a> }}>
        {body}
      </Markdown>
    </div>
  );
}
