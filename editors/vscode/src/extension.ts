/**
 * Entry point: activated on markdown, a project file or the view; registers the palette commands
 * and the todo-ls view, and starts the server in the background.
 */

import * as vscode from "vscode";
import { CLIENT_NAME, CONFIG_SECTION } from "./constants";
import { Commands } from "./commands";
import { TodoLsClient } from "./client";
import { ServerLauncher } from "./launcher";
import { PanelView } from "./panelView";
import { StatusBar } from "./statusBar";

let client: TodoLsClient | undefined;

export function activate(context: vscode.ExtensionContext): void {
  const output = vscode.window.createOutputChannel(CLIENT_NAME);
  const statusBar = new StatusBar();
  client = new TodoLsClient(output, statusBar, new ServerLauncher(context, output));
  const running = client;
  const panel = new PanelView(running, output);
  context.subscriptions.push(
    output,
    statusBar,
    running,
    panel,
    ...panel.register(),
    ...new Commands(running, statusBar, output).register(),
    // Other todoLs settings reach the server through synchronize; a new command line needs a new process.
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (event.affectsConfiguration(`${CONFIG_SECTION}.server`)) {
        void running.restart();
      }
    }),
    // Trusting the workspace lifts the Restricted Mode limits (the supervisor, the workspace's
    // own server command): a new server picks them up.
    vscode.workspace.onDidGrantWorkspaceTrust(() => void running.restart()),
  );
  // Activation returns at once: finding Python and the server's own start-up take seconds, and
  // VS Code waits for activate() before it runs anything else of the extension. The status bar
  // shows the start; a command called meanwhile waits for it (client.ts); a failure is reported
  // in the output channel and the status bar.
  void running.start();
}

export async function deactivate(): Promise<void> {
  await client?.stop();
  client = undefined;
}
