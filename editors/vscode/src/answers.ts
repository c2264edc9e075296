/**
 * What each server command answers (pure: no `vscode`). The server declares the same objects
 * in todo_ls/payloads.py (the interface names are its class names, `CommandAnswers` its
 * `ANSWERS`); tests/unit/test_status_payload_contract.py fails when the two differ.
 */

import { ServerCommand } from "./constants";
import { ListResult } from "./status";

/** `todoLs.toggle`, `todoLs.setState`. */
export interface EditResult {
  applied: boolean;
  /** The item's state after the command; null when no item was found. */
  state: string | null;
  /** The item's line when it was found on another one. */
  line?: number;
  /** Why it was not applied. */
  reason?: string;
}

/** `todoLs.subscribe`, `todoLs.unsubscribe`: the subscribed files afterwards. */
export interface FilesResult {
  files: string[];
}

/** A session `todoLs.nudge` did not nudge (null: no session to name) and why. */
export interface NudgeSkip {
  sessionID: string | null;
  reason: string;
}

export interface NudgeResult {
  sent: string[];
  skipped: NudgeSkip[];
}

/** A session `todoLs.pause` / `todoLs.resume` changed, and its state afterwards (null: not known yet). */
export interface SessionChange {
  id: string;
  state: string | null;
}

export interface SessionsResult {
  sessions: SessionChange[];
  /** Why nothing was done (the supervisor does not run, the store refused). */
  reason?: string;
}

/** `todoLs.refresh`: how many subscribed files were read again. */
export interface RefreshResult {
  files: number;
}

/** 0-based lines, both inclusive. */
export interface LineRange {
  startLine: number;
  endLine: number;
}

/** `todoLs.foldDone`: the runs of two or more consecutive finished items. */
export interface FoldDoneResult {
  ranges: LineRange[];
}

/** The answer of each server command. */
export interface CommandAnswers {
  [ServerCommand.toggle]: EditResult;
  [ServerCommand.setState]: EditResult;
  [ServerCommand.subscribe]: FilesResult;
  [ServerCommand.unsubscribe]: FilesResult;
  [ServerCommand.nudge]: NudgeResult;
  [ServerCommand.pause]: SessionsResult;
  [ServerCommand.resume]: SessionsResult;
  [ServerCommand.list]: ListResult;
  [ServerCommand.refresh]: RefreshResult;
  [ServerCommand.foldDone]: FoldDoneResult;
}

/** A command id the server implements. */
export type ServerCommandId = keyof CommandAnswers;
