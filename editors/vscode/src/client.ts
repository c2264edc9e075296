/** The language client: start / stop / restart, settings, and calls to the server's commands. */

import * as vscode from "vscode";
import {
  LanguageClient,
  LanguageClientOptions,
  RevealOutputChannelOn,
  ServerOptions,
  State,
} from "vscode-languageclient/node";
import { CommandAnswers, ServerCommandId } from "./answers";
import { CLIENT_ID, CLIENT_NAME, CONFIG_SECTION, EXTENSION_ID, STATUS_NOTIFICATION } from "./constants";
import { ServerLauncher } from "./launcher";
import { PendingStart } from "./pendingStart";
import { explicitSettings, serverSettings } from "./settings";
import { CommandLine } from "./serverCommand";
import { StatusPayload } from "./status";
import { StatusBar } from "./statusBar";

/** The contributed `todoLs.*` keys, below the section (`supervisor.url`). */
function settingKeys(): string[] {
  const manifest = vscode.extensions.getExtension(EXTENSION_ID)?.packageJSON as
    | { contributes?: { configuration?: { properties?: Record<string, unknown> } } }
    | undefined;
  return Object.keys(manifest?.contributes?.configuration?.properties ?? {})
    .filter((key) => key.startsWith(`${CONFIG_SECTION}.`))
    .map((key) => key.slice(CONFIG_SECTION.length + 1));
}

/**
 * How long a command waits for a server start in progress: longer than finding Python and a
 * cold server start take, short enough that a start that hangs gets an answer.
 */
const START_WAIT_MS = 30_000;

const NOT_RUNNING = 'the server is not running (run "todo-ls: Restart server")';

/** What the user set for the server, for `scope` (a workspace folder) or the whole window. */
function currentServerSettings(scope?: vscode.Uri): Record<string, unknown> {
  const config = vscode.workspace.getConfiguration(CONFIG_SECTION, scope);
  const set = explicitSettings(settingKeys(), (key) => config.inspect(key));
  return serverSettings(set, vscode.workspace.isTrusted);
}

export class TodoLsClient {
  private client: LanguageClient | undefined;
  private readonly subscriptions: vscode.Disposable[] = [];
  /** Bumped by stop(): a start() still setting up the server then knows it was cancelled. */
  private generation = 0;
  private readonly pending = new PendingStart();
  private line: CommandLine | undefined;
  private readonly statusEmitter = new vscode.EventEmitter<StatusPayload>();
  private readonly stateEmitter = new vscode.EventEmitter<boolean>();
  /** Every `todoLs/status` the server sends (the tree view follows them). */
  readonly onStatus = this.statusEmitter.event;
  /** Fires true when the server runs, false when it stops or cannot start. */
  readonly onDidChangeRunning = this.stateEmitter.event;

  constructor(
    private readonly output: vscode.OutputChannel,
    private readonly statusBar: StatusBar,
    private readonly launcher: ServerLauncher,
  ) {}

  get isRunning(): boolean {
    return this.client?.state === State.Running;
  }

  /**
   * The command line the server was started with (`todo-ls install` runs the same), once the
   * start in progress (if any) is over.
   */
  async serverLine(): Promise<CommandLine | undefined> {
    await this.pending.settled(START_WAIT_MS);
    return this.line;
  }

  /**
   * Starts the server (or joins the start in progress). Never fails: a server that cannot start
   * is reported in the output channel and the status bar, and commands then say it is not running.
   */
  start(): Promise<void> {
    return this.pending.run(async () => {
      const generation = this.generation;
      try {
        await this.startServer(generation);
      } catch (error) {
        if (generation === this.generation) {
          this.output.appendLine(`[todo-ls] The server did not start: ${String(error)}`);
          this.statusBar.showStopped();
          this.stateEmitter.fire(false);
        } // else stopped meanwhile: stop() has said so, and a newer start may be showing its own state
      }
    });
  }

  private async startServer(generation: number): Promise<void> {
    if (this.client !== undefined) {
      return;
    }
    this.statusBar.showStarting();
    const launch = await this.launcher.launch();
    if (this.client !== undefined || generation !== this.generation) {
      return; // stopped, or started by another call, while the server was being set up
    }
    if ("unavailable" in launch) {
      // Nothing to start: no client, so no restarts either, until the user changes something.
      this.statusBar.showUnavailable(launch.unavailable.text, launch.unavailable.tooltip);
      this.stateEmitter.fire(false);
      return;
    }
    this.line = launch.line;
    const { command, args } = launch.line;
    this.output.appendLine(`[todo-ls] Starting the server: ${[command, ...args].join(" ")}`);
    // No `transport`: with TransportKind.stdio the client would append `--stdio` to the command line.
    const serverOptions: ServerOptions = { command, args };
    const clientOptions: LanguageClientOptions = {
      documentSelector: [{ scheme: "file", language: "markdown" }],
      outputChannel: this.output,
      revealOutputChannelOn: RevealOutputChannelOn.Never,
      initializationOptions: () => currentServerSettings(),
      synchronize: { configurationSection: CONFIG_SECTION },
      middleware: {
        workspace: {
          // The server pulls its section per folder: send what the user set there (not VS
          // Code's filled-in defaults) and leave out the keys only the extension reads.
          configuration: async (params, token, next) => {
            const result = await next(params, token);
            if (!Array.isArray(result)) {
              return result;
            }
            return result.map((value: unknown, i) => {
              const item = params.items[i];
              if (item?.section !== CONFIG_SECTION) {
                return value;
              }
              return currentServerSettings(item.scopeUri ? vscode.Uri.parse(item.scopeUri) : undefined);
            });
          },
        },
      },
    };
    const client = new LanguageClient(CLIENT_ID, CLIENT_NAME, serverOptions, clientOptions);
    this.client = client;
    this.subscriptions.push(
      client.onNotification(STATUS_NOTIFICATION, (payload: StatusPayload) => {
        this.statusBar.update(payload);
        this.statusEmitter.fire(payload);
      }),
      client.onDidChangeState((event) => {
        if (event.newState === State.Running) {
          this.statusBar.showRunning();
        } else if (event.newState === State.Starting) {
          this.statusBar.showStarting();
        } else {
          this.statusBar.showStopped();
        }
        this.stateEmitter.fire(event.newState === State.Running);
      }),
    );
    await client.start();
  }

  async stop(): Promise<void> {
    this.generation += 1;
    this.pending.forget();
    const client = this.client;
    this.client = undefined;
    for (const s of this.subscriptions.splice(0)) {
      s.dispose();
    }
    if (client !== undefined) {
      try {
        await client.dispose(2000);
      } catch (error) {
        this.output.appendLine(`[todo-ls] Stopping the server: ${String(error)}`);
      }
    }
    this.statusBar.showStopped();
    this.stateEmitter.fire(false);
  }

  async restart(): Promise<void> {
    await this.stop();
    await this.start();
  }

  /**
   * Runs one of the server's commands with its single argument object. vscode-languageclient
   * registers every command the server announces under the same id while the server runs, so
   * this goes through that registration (and its middleware) like a code lens click does.
   */
  async execute<C extends ServerCommandId>(command: C, argument: Record<string, unknown>): Promise<CommandAnswers[C]> {
    await this.running();
    return await vscode.commands.executeCommand<CommandAnswers[C]>(command, argument);
  }

  /** An LSP request to the running server (the tree view asks for each file's symbols). */
  async request<T>(method: string, params: unknown): Promise<T> {
    const client = await this.running();
    return await client.sendRequest<T>(method, params);
  }

  /** The running client, once the start in progress (if any) is over; else why there is none. */
  private async running(): Promise<LanguageClient> {
    if (!(await this.pending.settled(START_WAIT_MS))) {
      throw new Error('the server is still starting (see "todo-ls: Show output")');
    }
    const client = this.client;
    if (client === undefined || client.state !== State.Running) {
      throw new Error(NOT_RUNNING);
    }
    return client;
  }

  /** Whether the running server answers `method` (a server older than the view may not). */
  supports(method: "documentSymbol"): boolean {
    const capabilities = this.client?.initializeResult?.capabilities;
    return method === "documentSymbol" && capabilities?.documentSymbolProvider !== undefined && capabilities.documentSymbolProvider !== false;
  }

  dispose(): void {
    this.statusEmitter.dispose();
    this.stateEmitter.dispose();
  }
}
