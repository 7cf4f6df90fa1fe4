/** The renderer's entry. The curation UI (React) replaces this placeholder. */
const root = document.getElementById('root');
if (root) {
  const heading = document.createElement('h1');
  heading.textContent = 'Cairn';
  const note = document.createElement('p');
  note.textContent = 'The curation UI is on its way. Agents can already read and write memory with `cairn tool`.';
  root.append(heading, note);
}
