// stopgate's opencode plugin, as the package plugins/opencode. Generated from
// harness/opencode/plugin.js (go test ./harness/opencode -run TestPackage -update); do not edit.
//
// On session.idle it hands the session (its messages and todo list, as opencode's SDK client
// reports them) to `stopgate hook opencode` on stdin. When stopgate answers
// {"decision":"block","reason":R} it prompts the session with R, so the agent goes on. Any
// failure (stopgate missing, a crash, no answer in time, output that is not JSON, an SDK call
// that fails) lets the session stop: the plugin never throws into opencode.
import { spawn } from "node:child_process";

// COMMAND is the shell command that runs the hook; TIMEOUT_MS how long the plugin waits for it.
const COMMAND = "'" + decodeURIComponent(new URL("./bin/stopgate-hook", import.meta.url).pathname).replaceAll("'", "'\\''") + "' opencode";
const TIMEOUT_MS = 60000;

// The continuations this plugin sent, by session: how stopgate tells them from the user's
// prompts, and how the plugin knows a stop follows one of them (stop_hook_active).
const sent = new Map();

function runHook(payload) {
  return new Promise((resolve) => {
    let out = "";
    let done = false;
    const finish = (v) => {
      if (!done) {
        done = true;
        resolve(v);
      }
    };
    let child;
    try {
      child = spawn("/bin/sh", ["-c", COMMAND], { stdio: ["pipe", "pipe", "ignore"] });
    } catch {
      finish("");
      return;
    }
    const timer = setTimeout(() => {
      try {
        child.kill("SIGKILL");
      } catch {}
      finish("");
    }, TIMEOUT_MS);
    child.on("error", () => {
      clearTimeout(timer);
      finish("");
    });
    child.stdout.on("data", (d) => {
      out += d;
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      finish(code === 0 ? out : "");
    });
    child.stdin.on("error", () => {});
    child.stdin.end(JSON.stringify(payload));
  });
}

function userText(m) {
  return (m.parts || [])
    .filter((p) => p && p.type === "text" && typeof p.text === "string")
    .map((p) => p.text)
    .join("\n");
}

export const StopgatePlugin = async ({ client, directory }) => ({
  event: async ({ event }) => {
    try {
      if (!event || event.type !== "session.idle") return;
      const id = event.properties && event.properties.sessionID;
      if (!id) return;
      const res = await client.session.messages({ path: { id } });
      const messages = res && res.data;
      if (!Array.isArray(messages)) return;
      let todos = null;
      try {
        const t = await client.session.todo({ path: { id } });
        if (t && Array.isArray(t.data)) todos = t.data;
      } catch {}
      const ours = sent.get(id) || [];
      const users = messages.filter((m) => m && m.info && m.info.role === "user");
      const last = users.length ? userText(users[users.length - 1]) : "";
      const out = await runHook({
        hook_event_name: "session.idle",
        session_id: id,
        cwd: directory,
        timestamp: Date.now(),
        stop_hook_active: ours.includes(last),
        nudges: ours,
        messages,
        todos,
      });
      let answer;
      try {
        answer = JSON.parse(out);
      } catch {
        return;
      }
      if (!answer || answer.decision !== "block" || typeof answer.reason !== "string" || !answer.reason.trim()) return;
      ours.push(answer.reason);
      sent.set(id, ours.slice(-50));
      await client.session.promptAsync({ path: { id }, body: { parts: [{ type: "text", text: answer.reason }] } });
    } catch {
      // Let the session stop.
    }
  },
});
