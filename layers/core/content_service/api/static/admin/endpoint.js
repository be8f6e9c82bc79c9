// The endpoint page: Send test, Rotate secret, Re-enable, Delete and per-row Redeliver, each
// one call to the webhooks API.

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
      try {
        result = await api("POST", `${base}/test`);
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
    await busy(rotate, "Rotating…", async () => {
      try {
        const result = await api("POST", `${base}/rotate-secret`);
        for (const hint of document.querySelectorAll(".secret-hint")) hint.textContent = result.secretHint;
        say("Secret rotated. Copy the new secret now; it is shown only once.");
        showSecret(result.secret, null);
      } catch (error) {
        fail("Could not rotate the secret", error);
      }
    });
  });
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

for (const button of document.querySelectorAll("button.redeliver")) {
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

ready();
