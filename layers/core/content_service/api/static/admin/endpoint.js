// The endpoint page: Send test (of any catalogue kind), Rotate secret, Re-enable, Delete,
// Recover, and per-row Retry now and Redeliver, each one call to the webhooks API; the live log
// and its relative times (live_log.js); Copy buttons for the verification code.

import {
  api,
  busy,
  confirmWith,
  describe,
  installDialogs,
  installSecretPanel,
  ready,
  setMessage,
  showSecret,
} from "./common.js";
import { refreshRelativeTimes, startLiveLog } from "./live_log.js";

const root = document.getElementById("endpoint-page");
const id = root.dataset.endpointId;
const base = `/api/webhooks/${encodeURIComponent(id)}`;
const statusBox = document.getElementById("action-status");
const alertBox = document.getElementById("action-alert");

function say(text, tone = "ok") {
  setMessage(alertBox, "");
  statusBox.className = `notice notice-${tone}`;
  setMessage(statusBox, text);
}

function fail(prefix, error) {
  setMessage(statusBox, "");
  setMessage(alertBox, `${prefix}: ${describe(error)}`);
}

function go(path) {
  window.location.assign(path);
}

installDialogs();
installSecretPanel();

const sendTest = document.getElementById("send-test");
if (sendTest) {
  sendTest.addEventListener("click", () =>
    busy(sendTest, "Sending…", async () => {
      say("Sending a test ping…", "info");
      let result;
      const kind = document.getElementById("test-event").value;
      try {
        result = await api("POST", `${base}/test`, kind === "ping" ? undefined : { event: kind });
      } catch (error) {
        fail("Could not send the test", error);
        return;
      }
      const section = document.getElementById("test-result");
      const badge = document.getElementById("test-badge");
      badge.className = `badge badge-${result.ok ? "ok" : "danger"}`;
      badge.textContent = result.ok ? "Succeeded" : "Failed";
      const code = result.statusCode === null ? "No response" : `HTTP ${result.statusCode}`;
      document.getElementById("test-line").textContent = `${code} · ${result.durationMs} ms`;
      setMessage(document.getElementById("test-error"), result.error || "");
      const snippet = document.getElementById("test-snippet");
      snippet.textContent = result.responseSnippet || "(empty response body)";
      section.hidden = false;
      say(`Test ${result.ok ? "succeeded" : "failed"}: ${code}, ${result.durationMs} ms.`, result.ok ? "ok" : "warn");
    }),
  );
}

const rotate = document.getElementById("rotate-secret");
if (rotate) {
  rotate.addEventListener("click", async () => {
    if (!(await confirmWith(document.getElementById("confirm-rotate")))) {
      rotate.focus();
      return;
    }
    const graceSeconds = Number(document.getElementById("rotate-grace").value);
    await busy(rotate, "Rotating…", async () => {
      try {
        const result = await api("POST", `${base}/rotate-secret`, { graceSeconds });
        for (const hint of document.querySelectorAll(".secret-hint")) hint.textContent = result.secretHint;
        showOlderSecrets(result.olderSecrets);
        const kept = graceSeconds > 0 ? " The previous secret keeps signing until its grace period ends." : "";
        say(`Secret rotated. Copy the new secret now; it is shown only once.${kept}`);
        showSecret(result.secret, null);
      } catch (error) {
        fail("Could not rotate the secret", error);
      }
    });
  });
}

// The Settings' list of older secrets, redrawn from a rotation's answer (hints, never secrets).
function showOlderSecrets(older) {
  const box = document.getElementById("older-secrets");
  if (!box) return;
  if (!older.length) {
    box.textContent = "None: only the current secret signs";
    return;
  }
  const list = document.createElement("ul");
  list.className = "header-list";
  for (const item of older) {
    const entry = document.createElement("li");
    const code = document.createElement("code");
    code.textContent = `whsec_…${item.secretHint}`;
    const until = document.createElement("time");
    until.dateTime = item.expiresAt;
    until.textContent = item.expiresAt.replace("T", " ").replace(/\.\d+Z$/, " UTC");
    entry.append(code, " also signs until ", until);
    list.append(entry);
  }
  box.replaceChildren(list);
}

const reenable = document.getElementById("reenable");
if (reenable) {
  reenable.addEventListener("click", () =>
    busy(reenable, "Re-enabling…", async () => {
      try {
        await api("PATCH", base, { enabled: true });
        go(`/webhooks/${encodeURIComponent(id)}?done=reenabled`);
      } catch (error) {
        fail("Could not re-enable the endpoint", error);
      }
    }),
  );
}

const remove = document.getElementById("delete-endpoint");
if (remove) {
  remove.addEventListener("click", async () => {
    if (!(await confirmWith(document.getElementById("confirm-delete")))) {
      remove.focus();
      return;
    }
    await busy(remove, "Deleting…", async () => {
      try {
        await api("DELETE", base);
        go("/webhooks?done=deleted");
      } catch (error) {
        fail("Could not delete the endpoint", error);
      }
    });
  });
}

const logSection = document.getElementById("delivery-log");
let pollNow = async () => {};

// The per-row actions; called for the rows the server drew and for every row drawn live.
function wireRow(row) {
  for (const button of row.querySelectorAll("button.redeliver")) {
    button.disabled = false;
    button.addEventListener("click", () =>
      busy(button, "Queuing…", async () => {
        try {
          await api("POST", `${base}/deliveries/${encodeURIComponent(button.dataset.deliveryId)}/redeliver`);
          go(`/webhooks/${encodeURIComponent(id)}?done=redelivered#delivery-log`);
        } catch (error) {
          fail("Could not redeliver", error);
        }
      }),
    );
  }
  for (const button of row.querySelectorAll("button.retry-now")) {
    button.disabled = false;
    button.addEventListener("click", () =>
      busy(button, "Retrying…", async () => {
        try {
          const due = await api("POST", `${base}/deliveries/${encodeURIComponent(button.dataset.deliveryId)}/retry`);
          say(`Retry queued: attempt ${due.attempts + 1} of delivery ${due.id} is due now.`);
          await pollNow();
        } catch (error) {
          fail("Could not retry now", error);
        }
      }),
    );
  }
}

for (const row of document.querySelectorAll("#log-rows > .log-row")) wireRow(row);
if (logSection) pollNow = startLiveLog(logSection, base, wireRow);
refreshRelativeTimes();

// Recover: a dialog for the window and statuses, then the job's progress until it ends.
const recoverDialog = document.getElementById("recover-dialog");
const recoveryBox = document.getElementById("recovery-status");

function showRecovery(job) {
  const line = document.getElementById("recovery-line");
  const states = {
    queued: "Recovery queued: it starts in a moment.",
    running: `Recovery running: ${job.matched} matched so far, ${job.queued} redeliveries queued.`,
    completed: `Recovery completed: ${job.matched} matched, ${job.queued} redeliveries queued.`,
    cancelled: `Recovery cancelled (${job.reason}): ${job.queued} redeliveries queued.`,
  };
  line.textContent = states[job.status] || job.status;
  recoveryBox.hidden = false;
}

async function followRecovery(job) {
  showRecovery(job);
  while (job.status === "queued" || job.status === "running") {
    await new Promise((resolve) => window.setTimeout(resolve, 1000));
    try {
      job = await api("GET", `${base}/recoveries/${encodeURIComponent(job.id)}`);
    } catch {
      continue;
    }
    showRecovery(job);
  }
  await pollNow();
}

if (recoverDialog) {
  const form = document.getElementById("recover-form");
  const errorBox = document.getElementById("recover-error");
  for (const opener of document.querySelectorAll("button.recover-open")) {
    opener.addEventListener("click", () => {
      setMessage(errorBox, "");
      recoverDialog.showModal();
      document.getElementById("recover-since").focus();
    });
  }
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const since = document.getElementById("recover-since").value;
    const statuses = [...form.querySelectorAll('input[name="statuses"]:checked')].map((input) => input.value);
    if (!since) {
      setMessage(errorBox, "Choose when the outage began.");
      return;
    }
    if (!statuses.length) {
      setMessage(errorBox, "Choose at least one status to recover.");
      return;
    }
    const submit = document.getElementById("recover-submit");
    await busy(submit, "Starting…", async () => {
      let job;
      try {
        // The field is UTC to the minute (or the second): make it an ISO time with its zone.
        const iso = since.length === 16 ? `${since}:00Z` : `${since}Z`;
        job = await api("POST", `${base}/recover`, { since: iso, statuses });
      } catch (error) {
        setMessage(errorBox, describe(error));
        return;
      }
      recoverDialog.close("confirm");
      recoveryBox.focus();
      await followRecovery(job);
    });
  });
}

for (const button of document.querySelectorAll("button.copy-snippet")) {
  button.addEventListener("click", async () => {
    const code = document.getElementById(button.dataset.target);
    const status = button.parentElement.querySelector(".copy-snippet-status");
    try {
      await navigator.clipboard.writeText(code.textContent);
      status.textContent = "Copied.";
    } catch {
      window.getSelection().selectAllChildren(code);
      status.textContent = "Selected: press Ctrl+C (or ⌘C) to copy.";
    }
  });
}

ready();
