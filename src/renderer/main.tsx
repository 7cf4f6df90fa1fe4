/**
 * The renderer's entry: connects to the main process (MessagePort in Electron, WebSocket in web
 * mode), then renders the app. Memory content is untrusted and is only ever rendered as text or
 * as HTML-free Markdown.
 */
import { notifyManager, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { ApiProvider, errorMessage, makeApi, makeQueryClient } from './api/api-context';
import { connect } from './api/client';
import { App, prefetchFirstView } from './app/App';
import './styles.css';

const root = createRoot(document.getElementById('root')!);

// An answer is drawn in the task that brought it: the query cache tells its components at the end
// of that task (a microtask), not in a timer task of its own, which any other task queued
// meanwhile (another answer, a render) would run before, with the frame after it.
notifyManager.setScheduler(queueMicrotask);

function Failure({ message }: { message: string }) {
  return (
    <div className="boot" role="alert">
      <h1>Cairn</h1>
      <p>{message}</p>
      <button type="button" className="btn" onClick={() => window.location.reload()}>
        Retry
      </button>
    </div>
  );
}

async function start(): Promise<void> {
  root.render(
    <div className="boot" role="status">
      Connecting to Cairn…
    </div>,
  );
  try {
    const api = makeApi(await connect());
    const queryClient = makeQueryClient();
    prefetchFirstView(api, queryClient);
    root.render(
      <StrictMode>
        <QueryClientProvider client={queryClient}>
          <ApiProvider api={api}>
            <App />
          </ApiProvider>
        </QueryClientProvider>
      </StrictMode>,
    );
  } catch (err) {
    root.render(<Failure message={errorMessage(err)} />);
  }
}

void start();
