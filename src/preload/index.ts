/**
 * The preload: forwards the one MessagePort the main process sends to the page, and exposes
 * nothing else (no Node, no ipcRenderer).
 */
import { ipcRenderer } from 'electron';

ipcRenderer.on('cairn:port', (event) => {
  window.postMessage('cairn:port', '*', event.ports);
});
