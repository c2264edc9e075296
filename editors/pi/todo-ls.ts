/**
 * todo-ls for pi (@mariozechner/pi-coding-agent 0.73.1): keeps the agent at its checklist.
 *
 * pi has no command hooks, so this extension is todo-ls's hook (docs/hosts-hooks.md, "pi").
 * pi loads it as is, through jiti, from <project>/.pi/extensions/ or ~/.pi/agent/extensions/
 * (`todo-ls install pi` writes it there, with COMMAND below naming the todo-ls that installed
 * it), or with `pi -e todo-ls.ts`.
 *
 * At the end of every agent run it runs `todo-ls hook --host pi` with one JSON object on stdin
 * (`agent_end`: session, cwd, session file, pi's stop reason, the last answer) and, when todo-ls
 * answers {"decision":"block","reason":…}, sends the reason as a user message: once pi is idle
 * (a new run; interactive and RPC mode), or, in print mode (`-p`, where pi exits after the run
 * and drops a follow-up queued at agent_end), as a follow-up from the run's last turn_end. Never
 * after an abort (Esc, RPC `abort`) or an error: todo-ls pauses the session then. User prompts
 * are reported too (`input`), so a real prompt starts a new episode; the nudge coming back as an
 * `input` from this extension is not one.
 *
 * Fail open: a failing todo-ls lets pi stop as if it were not here; a missing one, or one slower
 * than TIMEOUT_MS, is given up on for as long as pi runs (pi waits for it at most once).
 */
import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";
import { spawn, spawnSync } from "node:child_process";

// The command `todo-ls install pi` writes here (argv, no shell); this default finds todo-ls on PATH.
const COMMAND: string[] = ["todo-ls", "hook", "--host", "pi"];
const TIMEOUT_MS = 10_000; // then todo-ls is given up on and pi stops
const IDLE_WAIT_MS = 10_000; // how long a nudge waits for pi to become idle
const IDLE_POLL_MS = 25;
const NO_NUDGE = new Set(["aborted", "error"]); // pi's stopReason after Esc / abort, a failure

type Payload = Record<string, unknown>;
type Message = { role?: string; content?: unknown; stopReason?: string; errorMessage?: string };

/** The reason in todo-ls's answer, if it keeps pi working. */
function nudgeOf(stdout: string): string | undefined {
	try {
		const answer = JSON.parse(stdout);
		const reason = answer?.decision === "block" ? answer.reason : undefined;
		return typeof reason === "string" && reason.trim() ? reason : undefined;
	} catch {
		return undefined; // nothing (let it stop) or not todo-ls's answer
	}
}

// Set once todo-ls was not there or did not answer in time: pi runs on as if it were not
// installed, for as long as this pi runs, instead of waiting TIMEOUT_MS at every event.
let gaveUp = false;

/** Runs todo-ls with `payload` on stdin; its nudge, if any. Never rejects. */
function ask(payload: Payload): Promise<string | undefined> {
	if (gaveUp) return Promise.resolve(undefined);
	return new Promise((resolve) => {
		let out = "";
		let child: ReturnType<typeof spawn> | undefined;
		const done = (reason: string | undefined) => {
			clearTimeout(timer);
			resolve(reason);
		};
		// Our own timer, not spawn's `timeout` (which is left pending when the spawn fails and
		// holds print mode's exit for its length); unref'd for the same reason.
		const timer = setTimeout(() => {
			gaveUp = true;
			child?.kill("SIGKILL");
			done(undefined);
		}, TIMEOUT_MS);
		timer.unref();
		try {
			child = spawn(COMMAND[0], COMMAND.slice(1), {
				stdio: ["pipe", "pipe", "ignore"],
				windowsHide: true,
			});
			child.on("error", () => {
				gaveUp = true; // not installed, not executable
				done(undefined);
			});
			child.stdout?.setEncoding("utf8");
			child.stdout?.on("data", (chunk: string) => {
				out += chunk;
			});
			child.on("close", (code) => done(code === 0 ? nudgeOf(out) : undefined));
			child.stdin?.on("error", () => undefined); // it exited before reading: same answer
			child.stdin?.end(JSON.stringify(payload));
		} catch {
			gaveUp = true;
			done(undefined);
		}
	});
}

/** `ask`, waiting for the answer before pi goes on (print mode's turn_end, shutdown). */
function askNow(payload: Payload): string | undefined {
	if (gaveUp) return undefined;
	try {
		const run = spawnSync(COMMAND[0], COMMAND.slice(1), {
			input: JSON.stringify(payload),
			encoding: "utf8",
			stdio: ["pipe", "pipe", "ignore"],
			timeout: TIMEOUT_MS,
			killSignal: "SIGKILL",
			windowsHide: true,
		});
		if (run.error) gaveUp = true; // missing, or killed at TIMEOUT_MS
		return run.error || run.status !== 0 ? undefined : nudgeOf(run.stdout ?? "");
	} catch {
		gaveUp = true;
		return undefined;
	}
}

function lastAssistant(messages: readonly unknown[]): Message | undefined {
	for (let i = messages.length - 1; i >= 0; i--) {
		const message = messages[i] as Message;
		if (message?.role === "assistant") return message;
	}
	return undefined;
}

function textOf(message: Message | undefined): string {
	const content = message?.content;
	if (typeof content === "string") return content;
	if (!Array.isArray(content)) return "";
	return content
		.filter((part) => part?.type === "text" && typeof part.text === "string")
		.map((part) => part.text)
		.join("\n");
}

export default function todoLs(pi: ExtensionAPI): void {
	let promptId = ""; // todo-ls's key of the user prompt the current runs serve
	let prompts = 0; // user prompts seen: a nudge waiting for idle yields to a newer one
	let sent: string | undefined; // the nudge last sent
	let fromNudge = false; // the current run was started by that nudge
	// Reports run one after another, so todo-ls sees pi's events in pi's order.
	let queue: Promise<unknown> = Promise.resolve();
	const report = (payload: Payload): Promise<string | undefined> => {
		const answer = queue.then(() => ask(payload));
		queue = answer;
		return answer;
	};

	const about = (ctx: any): Payload => ({
		session_id: ctx.sessionManager.getSessionId(),
		cwd: ctx.cwd,
		transcript_path: ctx.sessionManager.getSessionFile() ?? null,
		prompt_id: promptId,
	});
	const end = (event: string, ctx: any, last: Message | undefined): Payload => {
		const stopReason = last?.stopReason ?? null;
		const failed = stopReason === "error";
		return {
			...about(ctx),
			hook_event_name: failed ? "agent_error" : event,
			stop_reason: stopReason,
			error: failed ? (last?.errorMessage ?? "") : undefined,
			last_assistant_message: textOf(last),
			stop_hook_active: fromNudge,
		};
	};
	const nudgeable = (last: Message | undefined) => !NO_NUDGE.has(last?.stopReason ?? "");

	pi.on("session_start", async (event, ctx) => {
		void report({ ...about(ctx), hook_event_name: "session_start", source: event.reason });
	});

	pi.on("input", async (event, ctx) => {
		if (event.source === "extension") {
			fromNudge = sent !== undefined && event.text === sent;
			return { action: "continue" };
		}
		prompts += 1;
		promptId = `${Date.now().toString(36)}-${prompts}`;
		sent = undefined;
		fromNudge = false;
		const prompt = { hook_event_name: "input", prompt: event.text, source: event.source };
		await report({ ...about(ctx), ...prompt });
		return { action: "continue" };
	});

	// Interactive and RPC mode: the end of a run; the nudge starts the next one once pi is idle.
	pi.on("agent_end", async (event, ctx) => {
		if (!ctx.hasUI) return; // print mode: turn_end asked already
		const last = lastAssistant(event.messages);
		const reason = await report(end("agent_end", ctx, last));
		if (!reason || !nudgeable(last)) return;
		const asked = prompts;
		const started = Date.now();
		const deliver = () => {
			if (prompts !== asked) return; // the user wrote meanwhile: that prompt comes first
			if (!ctx.isIdle()) {
				if (Date.now() - started < IDLE_WAIT_MS) setTimeout(deliver, IDLE_POLL_MS);
				return;
			}
			sent = reason;
			pi.sendUserMessage(reason);
		};
		setTimeout(deliver, 0);
	});

	// Print mode: a turn with no tool call is the run's last; a follow-up queued now continues the
	// run (pi polls for follow-ups right after it, so todo-ls is waited for here).
	pi.on("turn_end", async (event, ctx) => {
		if (ctx.hasUI) return;
		const last = event.message as Message;
		if (last?.role !== "assistant") return;
		if (event.toolResults.length > 0 && nudgeable(last)) return; // the run goes on
		const reason = askNow(end("turn_end", ctx, last));
		if (!reason || !nudgeable(last)) return;
		sent = reason;
		fromNudge = true; // a follow-up raises no input event before the next turn
		pi.sendUserMessage(reason, { deliverAs: "followUp" });
	});

	pi.on("session_shutdown", async (event, ctx) => {
		await queue;
		askNow({ ...about(ctx), hook_event_name: "session_shutdown", reason: event.reason });
	});
}
