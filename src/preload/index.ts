/**
 * The preload (CommonJS, sandboxed): forwards the one MessagePort the main process sends to the
 * page, and exposes nothing else: no Node, no ipcRenderer.
 */
import { ipcRenderer } from 'electron';

ipcRenderer.on('cairn:port', (event) => {
  // To this window itself (a file:// page has no origin to name); the renderer checks the source.
  window.postMessage('cairn:port', '*', event.ports);
});
