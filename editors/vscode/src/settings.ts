/** The settings the extension hands to the server (pure: no `vscode`). */

import { CLIENT_ONLY_SETTINGS } from "./constants";

/** What `WorkspaceConfiguration.inspect` tells of one key (the parts used here). */
export interface SettingInspection {
  globalValue?: unknown;
  workspaceValue?: unknown;
  workspaceFolderValue?: unknown;
  globalLanguageValue?: unknown;
  workspaceLanguageValue?: unknown;
  workspaceFolderLanguageValue?: unknown;
}

/**
 * The `todoLs` settings the user really set, as one nested object: `keys` are the contributed
 * keys below the section (`supervisor.url`), `inspect` reads one. VS Code fills every key it
 * does not find with the contributed default; sent as they are, those defaults would hide the
 * project's `todo-ls.toml`, which editor settings override key by key (docs/settings.md). Keys
 * left out get the same defaults from the server.
 */
export function explicitSettings(
  keys: readonly string[],
  inspect: (key: string) => SettingInspection | undefined,
): Record<string, unknown> {
  const settings: Record<string, unknown> = {};
  for (const key of keys) {
    const found = inspect(key);
    const value =
      found?.workspaceFolderLanguageValue ??
      found?.workspaceFolderValue ??
      found?.workspaceLanguageValue ??
      found?.workspaceValue ??
      found?.globalLanguageValue ??
      found?.globalValue;
    if (value === undefined) {
      continue;
    }
    const path = key.split(".");
    let node = settings;
    for (const part of path.slice(0, -1)) {
      const below = node[part];
      node = (node[part] = typeof below === "object" && below !== null ? below : {}) as Record<string, unknown>;
    }
    node[path[path.length - 1]] = value;
  }
  return settings;
}

/**
 * The `todoLs` settings as the server expects them (without the extension's own keys). In a
 * workspace the user has not trusted, the supervisor is off whatever the settings or the
 * project's `todo-ls.toml` say: it would send prompts to agents and a password to the URL the
 * workspace names. The editor features stay on (docs/status-and-commands.md, "Restricted Mode").
 */
export function serverSettings(value: unknown, trusted = true): Record<string, unknown> {
  const settings = { ...((value ?? {}) as Record<string, unknown>) };
  for (const key of CLIENT_ONLY_SETTINGS) {
    delete settings[key];
  }
  if (!trusted) {
    const supervisor = settings.supervisor;
    settings.supervisor = { ...(typeof supervisor === "object" && supervisor !== null ? supervisor : {}), enabled: false };
  }
  return settings;
}
