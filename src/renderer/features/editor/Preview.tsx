/**
 * The rendered Markdown of a memory. Memory content is untrusted: raw HTML is dropped (never
 * rendered), links get react-markdown's safe URL check and open outside the app, and the YAML
 * frontmatter is shown as a block of data, not as Markdown.
 */
import Markdown from 'react-markdown';

function splitFrontmatter(text: string): { frontmatter: string | null; body: string } {
  const m = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?/.exec(text);
  return m ? { frontmatter: m[1]!, body: text.slice(m[0].length) } : { frontmatter: null, body: text };
}

export function Preview({ text }: { text: string }) {
  const { frontmatter, body } = splitFrontmatter(text);
  return (
    <div className="preview" aria-label="Rendered preview">
      {frontmatter !== null && <pre className="frontmatter">{frontmatter}</pre>}
      <Markdown skipHtml components={{ a: ({ href, children }) => <a href={href} target="_blank" rel="noreferrer noopener">{children}</a> }}>
        {body}
      </Markdown>
    </div>
  );
}
