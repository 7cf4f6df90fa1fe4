/**
 * The Electron host: one sandboxed, context-isolated window on the renderer, which reaches the
 * oRPC router through a MessagePort the preload forwards; the loopback HTTP/WebSocket server for
 * agents and browsers (with MCP at /mcp, on `cairn serve`'s port 4873 when it is free, so agents
 * configured by URL find it again after a restart); a single-instance lock; an application menu with the usual shortcuts; the
 * window's state remembered. Navigation, new windows and permission requests are denied.
 */
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { RPCHandler } from '@orpc/server/message-port';
import { app, BrowserWindow, dialog, Menu, MessageChannelMain, session, shell, type MenuItemConstructorOptions } from 'electron';
import { router } from '../api/router';
import { apiJsonSerializers } from '../../common/api/wire';
import type { WebServer } from '../api/web-server';
import { openAppHost, startWebHost } from '../host/app-host';
import { announceServer, withdrawServer } from '../host/server-info';
import { loadOrCreateWebToken } from '../mcp/mcp-token';
import { homeOwnershipProblem } from '../runtime/local/ownership';
import { resolveHome } from '../workspaces/home-dir';
import { loadWindowState, saveWindowState } from './window-state';

const here = path.dirname(fileURLToPath(import.meta.url));
const home = resolveHome();
// Another user's home, or one others may write to, is never opened: say what to run, and quit.
const homeProblem = homeOwnershipProblem(home);
if (homeProblem) {
  dialog.showErrorBox('Cairn cannot open its home', homeProblem);
  process.exit(1);
}
// The home's services, as `cairn serve` opens them (src/main/host).
const context = openAppHost(home);
/** How long quitting may take before the app just exits. */
const SHUTDOWN_DEADLINE_MS = 3_000;
const rpc = new RPCHandler(router, { customJsonSerializers: apiJsonSerializers });
let web: WebServer | null = null;

function menu(): Menu {
  const template: MenuItemConstructorOptions[] = [
    ...(process.platform === 'darwin' ? [{ role: 'appMenu' as const }] : []),
    { role: 'fileMenu' },
    { role: 'editMenu' },
    { role: 'viewMenu' },
    { role: 'windowMenu' },
    {
      role: 'help',
      submenu: [{ label: 'Where Cairn keeps memory', click: () => void shell.openPath(home) }],
    },
  ];
  return Menu.buildFromTemplate(template);
}

function createWindow(): BrowserWindow {
  const state = loadWindowState(home);
  const win = new BrowserWindow({
    ...(state.x !== undefined && state.y !== undefined ? { x: state.x, y: state.y } : {}),
    width: state.width,
    height: state.height,
    title: 'Cairn',
    show: false,
    webPreferences: {
      preload: path.join(here, '../preload/index.cjs'),
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
      spellcheck: false,
    },
  });
  if (state.maximized) win.maximize();
  win.once('ready-to-show', () => win.show());
  win.on('close', () => saveWindowState(home, { ...win.getNormalBounds(), maximized: win.isMaximized() }));

  // Only https links leave the app, in the system browser; nothing navigates this window away.
  win.webContents.setWindowOpenHandler(({ url }) => {
    if (url.startsWith('https://')) void shell.openExternal(url);
    return { action: 'deny' };
  });
  win.webContents.on('will-navigate', (event) => event.preventDefault());

  // The renderer's only way in: one MessagePort, handed over once the page has loaded.
  win.webContents.on('did-finish-load', () => {
    const { port1, port2 } = new MessageChannelMain();
    rpc.upgrade(port1, { context });
    port1.start();
    win.webContents.postMessage('cairn:port', null, [port2]);
  });
  void win.loadFile(path.join(here, '../renderer/index.html'));
  return win;
}

if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  app.on('second-instance', () => {
    const [win] = BrowserWindow.getAllWindows();
    if (win) {
      if (win.isMinimized()) win.restore();
      win.focus();
    }
  });
  app.on('web-contents-created', (_event, contents) => {
    contents.on('will-attach-webview', (event) => event.preventDefault());
  });
  void app.whenReady().then(async () => {
    session.defaultSession.setPermissionRequestHandler((_contents, _permission, callback) => callback(false));
    Menu.setApplicationMenu(menu());
    try {
      // The persistent web token, as `cairn serve` uses: a browser page on this server survives a restart of the app.
      const web0 = { host: '127.0.0.1', staticDir: path.join(here, '../renderer'), token: loadOrCreateWebToken(home) };
      web = await startWebHost(context, { ...web0, port: 4873 }).catch(() => startWebHost(context, { ...web0, port: 0 }));
      announceServer(home, { url: web.url, port: web.port, token: web.token, mcpUrl: web.mcp?.url });
    } catch (err) {
      process.stderr.write(`cairn: the loopback server did not start: ${String(err)}\n`);
    }
    createWindow();
    app.on('activate', () => {
      if (BrowserWindow.getAllWindows().length === 0) createWindow();
    });
  });
  app.on('window-all-closed', () => {
    if (process.platform !== 'darwin') app.quit();
  });
  // Quitting waits for the server and the services to close, in order (MCP sessions and the
  // server, then the feed, pending usage and the journal), within a deadline like `cairn serve`'s.
  let closed = false;
  app.on('will-quit', (event) => {
    if (closed) return;
    event.preventDefault();
    closed = true;
    withdrawServer(home);
    setTimeout(() => app.exit(0), SHUTDOWN_DEADLINE_MS).unref();
    void (async () => {
      try {
        await web?.close();
        await context.close();
      } catch (err) {
        process.stderr.write(`cairn: closing failed: ${String(err)}\n`);
      }
      app.exit(0);
    })();
  });
}
