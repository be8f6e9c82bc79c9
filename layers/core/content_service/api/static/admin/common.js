// Shared helpers of the webhook admin pages: calls to the webhooks API, error text, the
// show-once secret panel. Text from the service is always put into the page with
// textContent, never as HTML.

export class ApiError extends Error {
  constructor(status, code, message, details) {
    super(message);
    this.status = status;
    this.code = code;
    this.details = details;
  }
}

// One call to the JSON API: same-origin, with the session cookie; the browser adds Origin,
// which the service's origin guard checks on every write.
export async function api(method, path, body) {
  const init = {
    method,
    credentials: "same-origin",
    headers: { Accept: "application/json" },
  };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  return fetchJson(path, init);
}

// Sends one request and reads its JSON answer with `parse` (null for an empty or non-JSON
// body); an answer that is not 2xx, or no answer at all, is thrown as an ApiError carrying the
// service's error code, message and details. Every page's calls go through here.
export async function fetchJson(path, init, parse = JSON.parse) {
  let response;
  try {
    response = await fetch(path, init);
  } catch {
    throw new ApiError(0, "network_error", "The service could not be reached. Check the connection and try again.", null);
  }
  const text = await response.text();
  let data = null;
  if (text) {
    try {
      data = parse(text);
    } catch {
      data = null;
    }
  }
  if (!response.ok) {
    const error = data && typeof data === "object" && data.error ? data.error : {};
    throw new ApiError(
      response.status,
      error.code || "http_error",
      error.message || `The service answered HTTP ${response.status}.`,
      error.details ?? null,
    );
  }
  return data;
}

// The field an API error is about: `details.field` from the service's own checks, or the
// first `body.<field>` location of a request-validation error.
export function errorField(error) {
  const details = error && error.details;
  if (details && typeof details === "object" && !Array.isArray(details) && typeof details.field === "string") {
    return details.field;
  }
  if (Array.isArray(details)) {
    for (const item of details) {
      const parts = String(item && item.location ? item.location : "").split(".");
      if (parts[0] === "body" && parts[1]) return parts[1];
    }
  }
  return null;
}

// A sentence a person can act on, from the API's `{"error": {...}}`.
export function describe(error) {
  if (!(error instanceof ApiError)) return String(error && error.message ? error.message : error);
  if (error.status === 401) return "Your session has ended. Sign in again, then retry.";
  let text = error.message ? error.message[0].toUpperCase() + error.message.slice(1) : "";
  if (Array.isArray(error.details) && error.details.length) {
    const problems = error.details
      .map((d) => {
        const where = String(d.location || "").replace(/^body\.?/, "");
        return where ? `${where}: ${d.problem}` : d.problem;
      })
      .join("; ");
    text = `${text} (${problems})`;
  }
  return text;
}

export function setMessage(element, text) {
  if (!element) return;
  element.textContent = text || "";
  element.hidden = !text;
}

// Shows a secret once, in the page only: not in the URL, not in storage. Leaving the page
// (including into the back-forward cache) wipes it.
export function showSecret(secret, endpointHref) {
  const panel = document.getElementById("secret-panel");
  const input = document.getElementById("secret-value");
  const status = document.getElementById("copy-status");
  const link = document.getElementById("endpoint-link");
  input.value = secret;
  setMessage(status, "");
  status.hidden = false;
  if (link && endpointHref) link.href = endpointHref;
  panel.hidden = false;
  const heading = document.getElementById("secret-title");
  heading.tabIndex = -1;
  heading.focus();
  panel.scrollIntoView({ block: "nearest" });
}

function wipeSecret() {
  const input = document.getElementById("secret-value");
  const panel = document.getElementById("secret-panel");
  if (input) input.value = "";
  if (panel) panel.hidden = true;
}

export function installSecretPanel() {
  const button = document.getElementById("copy-secret");
  const input = document.getElementById("secret-value");
  const status = document.getElementById("copy-status");
  if (!button || !input) return;
  button.addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText(input.value);
      status.textContent = "Copied to the clipboard.";
    } catch {
      input.focus();
      input.select();
      status.textContent = "The browser blocked copying: the secret is selected, press Ctrl+C (or ⌘C) to copy it.";
    }
  });
  input.addEventListener("focus", () => input.select());
  window.addEventListener("pagehide", wipeSecret);
}

// A small button of a list row; `context`, read only by screen readers, says which row it acts on.
export function rowButton(label, context) {
  const button = document.createElement("button");
  button.type = "button";
  button.className = "button secondary small";
  button.textContent = label;
  const hidden = document.createElement("span");
  hidden.className = "visually-hidden";
  hidden.textContent = context;
  button.append(hidden);
  return button;
}

// A button that shows it is working and cannot be pressed twice. It stays focusable (a
// disabled button would drop the keyboard focus to the top of the page).
export async function busy(button, label, work) {
  if (button.getAttribute("aria-busy") === "true") return undefined;
  const before = button.textContent;
  button.setAttribute("aria-busy", "true");
  button.setAttribute("aria-disabled", "true");
  button.textContent = label;
  try {
    return await work();
  } finally {
    button.removeAttribute("aria-busy");
    button.removeAttribute("aria-disabled");
    button.textContent = before;
  }
}

// Opens a confirmation <dialog>; resolves true when its confirm button was chosen.
export function confirmWith(dialog) {
  return new Promise((resolve) => {
    dialog.returnValue = "";
    const onClose = () => {
      dialog.removeEventListener("close", onClose);
      resolve(dialog.returnValue === "confirm");
    };
    dialog.addEventListener("close", onClose);
    dialog.showModal();
    const cancel = dialog.querySelector('[data-close="cancel"]');
    if (cancel) cancel.focus();
  });
}

export function installDialogs() {
  for (const dialog of document.querySelectorAll("dialog")) {
    for (const button of dialog.querySelectorAll("[data-close]")) {
      button.addEventListener("click", () => dialog.close(button.dataset.close));
    }
  }
}

// A page's alert (a failure, focused) and status line (what was done): showing one clears the
// other.
export function messageBoxes(alertBox, statusBox) {
  return {
    fail(error) {
      setMessage(statusBox, "");
      setMessage(alertBox, describe(error));
      alertBox.focus();
    },
    done(text) {
      setMessage(alertBox, "");
      setMessage(statusBox, text);
    },
  };
}

// A create form: on submit (its button busy meanwhile) POSTs `body()` to `path`; a failure is
// shown, a success empties the form (`form.reset()`, then `clear()`), reloads the page's list
// (`refresh()`) and says what was created (`created(body)`).
export function installCreateForm(form, button, { path, body, created, clear, refresh }, { fail, done }) {
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    busy(button, "Creating…", async () => {
      const sent = body();
      try {
        await api("POST", path, sent);
      } catch (error) {
        fail(error);
        return;
      }
      form.reset();
      clear();
      await refresh();
      done(created(sent));
    });
  });
}

// A page's first load (`load`), then its controls enabled (`ready`); a failed load is shown
// with `fail` and leaves them disabled.
export async function startPage(load, fail) {
  try {
    await load();
  } catch (error) {
    fail(error);
    return;
  }
  ready();
}

// Controls that only work with this script start disabled; the page script enables them once
// its handlers are in place, so an early click cannot fall through to nothing.
export function ready() {
  for (const control of document.querySelectorAll("[data-needs-script]")) control.disabled = false;
}
