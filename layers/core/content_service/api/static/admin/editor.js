// The endpoint editor (/webhooks/new and /webhooks/{id}/edit). Create is `POST /api/webhooks`
// and shows the secret from its answer, once; edit is `PATCH /api/webhooks/{id}` with the
// fields that changed. Header rules are checked here before submit, from the same data the
// service checks them with, and again by the service.

import { api, busy, describe, errorField, installSecretPanel, ready, setMessage, showSecret } from "./common.js";

const form = document.getElementById("endpoint-form");
const mode = form.dataset.mode;
const endpointId = form.dataset.endpointId || null;
const rules = JSON.parse(document.getElementById("header-rules").textContent);
const reservedNames = new Set(rules.reservedNames.map((n) => n.toLowerCase()));
const reservedPrefix = rules.reservedPrefix.toLowerCase();
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const VALUE = /^[\t\x20-\x7e]*$/;
const TYPE_NAME = /^[a-z][a-z0-9_]{0,63}$/;

const alertBox = document.getElementById("form-alert");
const statusBox = document.getElementById("form-status");
const noticeBox = document.getElementById("form-notice");
const rowsBox = document.getElementById("header-rows");
const template = document.getElementById("header-row-template");
const allWorkspaces = document.getElementById("allWorkspaces");
const picker = document.getElementById("workspace-picker");
const saveButton = document.getElementById("save");

const FIELDS = {
  url: { input: "url", error: "url-error" },
  eventBusArn: { input: "eventBusArn", error: "eventBusArn-error" },
  rateLimit: { input: "rateLimit", error: "rateLimit-error" },
  events: { input: "field-events", error: "events-error" },
  workspaces: { input: "field-workspaces", error: "workspaces-error" },
  allWorkspaces: { input: "allWorkspaces", error: "workspaces-error" },
  contentTypes: { input: "contentTypes", error: "contentTypes-error" },
  headers: { input: "field-headers", error: "headers-error" },
};

installSecretPanel();

// -- custom header rows -------------------------------------------------------------------

function headerRows() {
  return [...rowsBox.querySelectorAll(".header-row")];
}

function renumber() {
  headerRows().forEach((row, index) => {
    const n = index + 1;
    const [nameLabel, valueLabel] = row.querySelectorAll("label");
    const name = row.querySelector(".header-name");
    const value = row.querySelector(".header-value");
    const error = row.querySelector(".row-error");
    name.id = `header-name-${n}`;
    value.id = `header-value-${n}`;
    error.id = `header-error-${n}`;
    nameLabel.htmlFor = name.id;
    valueLabel.htmlFor = value.id;
    nameLabel.textContent = `Header ${n} name`;
    valueLabel.textContent = `Header ${n} value`;
    name.setAttribute("aria-describedby", error.id);
    value.setAttribute("aria-describedby", error.id);
    row.querySelector(".remove-header").setAttribute("aria-label", `Remove header ${n}`);
  });
}

function headerProblem(name, value, seen) {
  if (!name && !value) return null;
  if (!name) return "Enter a header name, or remove this row.";
  if (name.length > rules.maxNameLength || !TOKEN.test(name)) {
    return `"${name}" is not a valid header name: use letters, digits and - (no spaces or colons).`;
  }
  if (name.toLowerCase().startsWith(reservedPrefix)) {
    return `"${name}" is refused: names starting with ${rules.reservedPrefix} belong to the service.`;
  }
  if (reservedNames.has(name.toLowerCase())) {
    return `"${name}" is refused: the service sets this header itself.`;
  }
  if (seen.has(name.toLowerCase())) return `"${name}" is already set above (names ignore case).`;
  if (value.length > rules.maxValueLength) {
    return `The value is longer than ${rules.maxValueLength} characters.`;
  }
  if (!VALUE.test(value)) {
    return "The value may hold only printable ASCII characters, spaces and tabs.";
  }
  return null;
}

// Checks every row, marks the invalid ones, and returns the headers and whether all passed.
function checkHeaders() {
  const headers = {};
  const seen = new Set();
  let ok = true;
  let count = 0;
  for (const row of headerRows()) {
    const nameInput = row.querySelector(".header-name");
    const valueInput = row.querySelector(".header-value");
    const name = nameInput.value.trim();
    const value = valueInput.value;
    const problem = headerProblem(name, value, seen);
    setMessage(row.querySelector(".row-error"), problem || "");
    nameInput.setAttribute("aria-invalid", problem ? "true" : "false");
    if (problem) {
      ok = false;
      continue;
    }
    if (name) {
      seen.add(name.toLowerCase());
      headers[name] = value;
      count += 1;
    }
  }
  const tooMany = count > rules.maxHeaders ? `At most ${rules.maxHeaders} custom headers are allowed.` : "";
  setMessage(document.getElementById("headers-error"), tooMany);
  return { headers, ok: ok && !tooMany };
}

function addRow(focus) {
  const row = template.content.firstElementChild.cloneNode(true);
  rowsBox.append(row);
  renumber();
  if (focus) row.querySelector(".header-name").focus();
  return row;
}

rowsBox.addEventListener("click", (event) => {
  const button = event.target.closest(".remove-header");
  if (!button) return;
  const row = button.closest(".header-row");
  const next = row.nextElementSibling || row.previousElementSibling;
  row.remove();
  renumber();
  checkHeaders();
  (next ? next.querySelector(".header-name") : document.getElementById("add-header")).focus();
  setMessage(statusBox, "Header row removed.");
});
rowsBox.addEventListener("input", () => {
  if (checkHeaders().ok) setMessage(document.getElementById("headers-error"), "");
  clearSummaryWhenFixed();
});

// The summary above the form goes once no field is marked invalid any more.
function clearSummaryWhenFixed() {
  if (!form.querySelector('[aria-invalid="true"]')) setMessage(alertBox, "");
}
form.addEventListener("input", (event) => {
  if (event.target.getAttribute("aria-invalid") === "true" && !rowsBox.contains(event.target)) {
    event.target.removeAttribute("aria-invalid");
    const field = Object.values(FIELDS).find((f) => f.input === event.target.id);
    if (field) setMessage(document.getElementById(field.error), "");
  }
  setMessage(noticeBox, "");
  clearSummaryWhenFixed();
});
document.getElementById("add-header").addEventListener("click", () => addRow(true));
if (!headerRows().length) addRow(false);
renumber();

// -- workspaces -----------------------------------------------------------------------------

const workspaceBoxes = [...document.querySelectorAll('input[name="workspaces"]')];
const workspaceFilter = document.getElementById("workspace-filter");
const workspaceCount = document.getElementById("workspace-count");

function updateWorkspaceState() {
  const all = allWorkspaces.checked;
  picker.classList.toggle("is-off", all);
  for (const box of workspaceBoxes) box.disabled = all;
  const chosen = workspaceBoxes.filter((b) => b.checked).length;
  workspaceCount.textContent = all
    ? "All workspaces is on: the list is not used."
    : `${chosen} of ${workspaceBoxes.length} workspace${workspaceBoxes.length === 1 ? "" : "s"} chosen.`;
}

if (workspaceBoxes.length > 1) {
  document.getElementById("workspace-tools").hidden = false;
  workspaceFilter.addEventListener("input", () => {
    const wanted = workspaceFilter.value.trim().toLowerCase();
    for (const label of document.querySelectorAll("#workspace-list label[data-search]")) {
      const input = label.querySelector("input");
      label.hidden = Boolean(wanted) && !label.dataset.search.includes(wanted) && !input.checked;
    }
  });
}
allWorkspaces.addEventListener("change", () => {
  updateWorkspaceState();
  suggestTypes();
});
for (const box of workspaceBoxes) {
  box.addEventListener("change", () => {
    updateWorkspaceState();
    suggestTypes();
  });
}
updateWorkspaceState();

// -- content types ----------------------------------------------------------------------------

const typesInput = document.getElementById("contentTypes");

function typeNames() {
  return [...new Set(typesInput.value.split(/[\s,]+/).map((t) => t.trim()).filter(Boolean))];
}

// Offers the content types defined in the chosen workspaces (from the content API), as
// buttons that add a name to the list. Without them the comma list still works.
let suggestRun = 0;
async function suggestTypes() {
  const run = ++suggestRun;
  const box = document.getElementById("type-suggestions");
  const chips = box.querySelector(".chips");
  const chosen = allWorkspaces.checked ? [] : workspaceBoxes.filter((b) => b.checked).slice(0, 10);
  const names = new Set();
  for (const workspace of chosen) {
    try {
      const response = await fetch("/api/v1/content-types", {
        credentials: "same-origin",
        headers: { Accept: "application/json", "X-Workspace-Id": workspace.value },
      });
      if (!response.ok) continue;
      const body = await response.json();
      for (const item of body.items || []) if (typeof item.name === "string") names.add(item.name);
    } catch {
      // Suggestions are a convenience; the comma list works without them.
    }
  }
  if (run !== suggestRun) return;
  chips.replaceChildren();
  for (const name of [...names].sort()) {
    const chip = document.createElement("button");
    chip.type = "button";
    chip.className = "chip";
    chip.textContent = `+ ${name}`;
    chip.setAttribute("aria-label", `Add content type ${name}`);
    chip.addEventListener("click", () => {
      const current = typeNames();
      if (!current.includes(name)) current.push(name);
      typesInput.value = current.join(", ");
      setMessage(statusBox, `Added ${name}.`);
    });
    chips.append(chip);
  }
  box.hidden = names.size === 0;
}
suggestTypes();

// -- destination: an HTTPS URL, or an EventBridge bus -------------------------------------------

function destination() {
  const chosen = form.querySelector('input[name="type"]:checked');
  return chosen ? chosen.value : "http";
}

// An EventBridge endpoint has a bus instead of a URL, and nothing an HTTP request carries.
function showDestination() {
  const bus = destination() === "eventbridge";
  document.getElementById("field-eventBusArn").hidden = !bus;
  for (const id of ["field-url", "field-signatureScheme", "field-headers"]) {
    document.getElementById(id).hidden = bus;
  }
}
for (const radio of form.querySelectorAll('input[name="type"]')) {
  radio.addEventListener("change", showDestination);
}

// -- collecting, checking, saving ----------------------------------------------------------

function rateLimit() {
  const text = document.getElementById("rateLimit").value.trim();
  return text === "" ? null : Number(text);
}

function collect() {
  const bus = destination() === "eventbridge";
  const body = {
    events: [...form.querySelectorAll('input[name="events"]:checked')].map((b) => b.value),
    workspaces: workspaceBoxes.filter((b) => b.checked).map((b) => b.value),
    allWorkspaces: allWorkspaces.checked,
    contentTypes: typeNames(),
    enabled: document.getElementById("enabled").checked,
    rateLimit: rateLimit(),
  };
  if (bus) {
    body.eventBusArn = document.getElementById("eventBusArn").value;
  } else {
    body.url = document.getElementById("url").value.trim();
    body.headers = checkHeaders().headers;
  }
  if (mode === "create") {
    body.type = destination();
    if (!bus) body.signatureScheme = document.getElementById("signatureScheme").value;
  }
  return body;
}

function clearErrors() {
  setMessage(alertBox, "");
  setMessage(noticeBox, "");
  for (const field of Object.values(FIELDS)) {
    setMessage(document.getElementById(field.error), "");
    const input = document.getElementById(field.input);
    if (input) input.removeAttribute("aria-invalid");
  }
}

function fieldError(field, message) {
  const target = FIELDS[field];
  if (!target) return null;
  setMessage(document.getElementById(target.error), message);
  const input = document.getElementById(target.input);
  if (input && (input.tagName === "INPUT" || input.tagName === "SELECT")) {
    input.setAttribute("aria-invalid", "true");
  }
  return input;
}

function focusTarget(element) {
  if (!element) return;
  const focusable = element.matches("input, select, textarea, button")
    ? element
    : element.querySelector("input:not([disabled]), button");
  (focusable || element).focus();
}

// [field, message next to the field, message in the summary above the form]
function checkLocally(body) {
  const problems = [];
  if ("url" in body && !body.url) {
    problems.push(["url", "Enter the URL the service should POST to.", "the endpoint URL is missing."]);
  }
  if ("eventBusArn" in body && !body.eventBusArn) {
    problems.push(["eventBusArn", "Choose the event bus to put the events on.", "no event bus is chosen."]);
  }
  const limit = body.rateLimit;
  if (limit !== null && !(Number.isInteger(limit) && limit >= 1 && limit <= 1000)) {
    problems.push([
      "rateLimit",
      "Enter a whole number of deliveries per second from 1 to 1000, or leave it empty for none.",
      "the rate limit is not a number from 1 to 1000.",
    ]);
  }
  const badTypes = body.contentTypes.filter((t) => !TYPE_NAME.test(t));
  if (badTypes.length) {
    problems.push([
      "contentTypes",
      `Not a content type name (snake_case, starting with a letter): ${badTypes.join(", ")}`,
      "a content type name is not valid.",
    ]);
  }
  if ("headers" in body && !checkHeaders().ok) {
    problems.push(["headers", "Fix the custom headers marked above.", "a custom header breaks one of the rules listed with the headers."]);
  }
  return problems;
}

// An endpoint with no workspace and "All workspaces" off receives nothing (an empty list is
// not "all"). Saving one takes a second press, after this warning says so.
let warnedEmpty = false;
function receivesNothing(body) {
  if (body.allWorkspaces || body.workspaces.length || warnedEmpty) return false;
  warnedEmpty = true;
  setMessage(
    noticeBox,
    `This endpoint would receive nothing: no workspace is chosen and All workspaces is off. ` +
      `Choose a workspace or switch All workspaces on, or press ${saveButton.textContent.trim()} again to save it as it is.`,
  );
  noticeBox.classList.replace("notice-info", "notice-warn");
  document.getElementById("field-workspaces").scrollIntoView({ block: "center" });
  focusTarget(workspaceBoxes.find((b) => !b.disabled) || allWorkspaces);
  return true;
}
function rearmWarning() {
  warnedEmpty = false;
  noticeBox.classList.replace("notice-warn", "notice-info");
}
form.addEventListener("input", rearmWarning);

const initial = mode === "edit" ? collect() : null;

function changes(body) {
  if (!initial) return body;
  const changed = {};
  for (const [key, value] of Object.entries(body)) {
    if (JSON.stringify(value) !== JSON.stringify(initial[key])) changed[key] = value;
  }
  return changed;
}

form.addEventListener("submit", async (event) => {
  event.preventDefault();
  if (saveButton.getAttribute("aria-busy") === "true") return;
  clearErrors();
  const body = collect();
  const problems = checkLocally(body);
  if (problems.length) {
    let first = null;
    for (const [field, message] of problems) first = first || fieldError(field, message);
    setMessage(alertBox, `Not saved: ${problems.length === 1 ? problems[0][2] : "fix the fields marked below."}`);
    const firstBadHeader = rowsBox.querySelector('[aria-invalid="true"]');
    focusTarget(problems[0][0] === "headers" && firstBadHeader ? firstBadHeader : first);
    return;
  }
  if (receivesNothing(body)) return;
  const payload = changes(body);
  if (mode === "edit" && Object.keys(payload).length === 0) {
    setMessage(noticeBox, "Nothing changed, so there is nothing to save.");
    return;
  }
  await busy(saveButton, "Saving…", async () => {
    try {
      if (mode === "create") {
        const created = await api("POST", "/api/webhooks", payload);
        if (created.type === "eventbridge") {
          // Nothing is signed on a bus: there is no secret to copy.
          window.location.assign(`/webhooks/${encodeURIComponent(created.id)}?done=created`);
          return;
        }
        form.hidden = true;
        setMessage(noticeBox, "Endpoint created. Copy its signing secret now; it is shown only once.");
        showSecret(created.secret, `/webhooks/${encodeURIComponent(created.id)}`);
      } else {
        await api("PATCH", `/api/webhooks/${encodeURIComponent(endpointId)}`, payload);
        window.location.assign(`/webhooks/${encodeURIComponent(endpointId)}?done=saved`);
      }
    } catch (error) {
      const field = errorField(error);
      const input = field ? fieldError(field, describe(error)) : null;
      setMessage(alertBox, `Not saved: ${describe(error)}`);
      focusTarget(input || alertBox);
    }
  });
});

ready();
