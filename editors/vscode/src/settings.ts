/** The settings the extension hands to the server (pure: no `vscode`). */

import { CLIENT_ONLY_SETTINGS } from "./constants";

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
