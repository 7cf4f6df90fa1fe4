/**
 * The rendered Markdown of a memory, GitHub-flavoured (remark-gfm: tables, task lists,
 * strikethrough, autolinks, footnotes), as the same file reads on GitHub. Memory content is
 * untrusted: raw HTML is dropped (never rendered), links get react-markdown's safe URL check and
 * open outside the app, task list boxes are read-only, and the YAML frontmatter is shown as a block
 * of data, not as Markdown.
 */
import Markdown from 'react-markdown';
import remarkGfm from 'remark-gfm';

// One array for every render: react-markdown re-parses when its plugins change identity.
const remarkPlugins = [remarkGfm];

function splitFrontmatter(text: string): { frontmatter: string | null; body: string } {
  const m = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?/.exec(text);
  return m ? { frontmatter: m[1]!, body: text.slice(m[0].length) } : { frontmatter: null, body: text };
}

export function Preview({ text }: { text: string }) {
  const { frontmatter, body } = splitFrontmatter(text);
  return (
    <div className="preview" aria-label="Rendered preview">
      {frontmatter !== null && <pre className="frontmatter">{frontmatter}</pre>}
      <Markdown skipHtml remarkPlugins={remarkPlugins} components={{ a: ({ href, children }) => <a href={href} target="_blank" rel="noreferrer noopener">{children}</a> }}>
        {body}
      </Markdown>
    </div>
  );
}
