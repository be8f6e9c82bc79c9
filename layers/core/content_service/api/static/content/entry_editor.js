// The entry editor (/content/{type}/new and /content/{type}/{id}). Every action is one call to
// the content API: Save (POST, or PATCH with the changed fields only), Publish, Unpublish,
// Discard changes, Schedule (schedules.js), Move to trash (DELETE), Restore, and a published
// version restored into the draft (history.js); the preview shows the live entry beside the
// draft (preview.js). A save never overwrites a version someone else saved meanwhile: it sends
// the `version` the page started from, the API refuses a stale one with 409
// `version_conflict`, and the person's version stays in the form while theirs stays saved.

import { ApiError, busy, confirmWith, describe, installDialogs, ready, setMessage } from "../admin/common.js";
import { AudiencesField, ValueField } from "./fields.js";
import { History } from "./history.js";
import { loadAllowed } from "./permissions.js";
import { Preview } from "./preview.js";
import { RelationField } from "./relation_picker.js";
import { call, problemField, sentence, when } from "./request.js";
import { RichText } from "./rich_text.js";
import { Schedules } from "./schedules.js";

const data = JSON.parse(document.getElementById("editor-data").textContent);
const typeName = data.type.name;
const apiBase = `/api/v1/content/${encodeURIComponent(typeName)}`;
const query = data.workspaceQuery ? `?${data.workspaceQuery}` : "";
const DONE = {
  created: "Saved as a new draft.",
  published: "Created and published.",
  discarded: "Changes discarded: the draft is the live version again.",
  restored: "Version restored into the draft. Readers keep the live version until you publish.",
};

const $ = (id) => document.getElementById(id);
const form = $("entry-form");
const fieldset = $("entry-fields");
const alertBox = $("form-alert");
const saveStatus = $("save-status");
const buttons = {
  save: $("action-save"),
  publish: $("action-publish"),
  unpublish: $("action-unpublish"),
  discard: $("action-discard"),
  schedule: $("action-schedule"),
  trash: $("action-trash"),
  restore: $("action-restore"),
};

const state = {
  entry: data.entry,
  trashed: false,
  conflict: false,
  leaving: false,
  baseline: new Map(),
  linkers: null,
  allowed: null,
};

function announce(text) {
  saveStatus.textContent = text;
}

// -- the fields -------------------------------------------------------------------------------

const rich = {};
const fields = [];
const onChange = () => updateDirty();
for (const wrap of form.querySelectorAll("[data-field]")) {
  const name = wrap.dataset.field;
  if (wrap.dataset.type === "relation") {
    fields.push(
      new RelationField(wrap, {
        target: data.targets[name],
        linked: data.relations[name] || [],
        workspaceId: data.workspaceId,
        workspaceQuery: data.workspaceQuery,
        locale: state.entry ? state.entry.locale : data.new.locale,
        onChange,
        announce,
      }),
    );
  } else if (wrap.dataset.type === "richtext") {
    rich[name] = new RichText(wrap, data.richText[name], onChange);
    fields.push(new ValueField(wrap, rich[name]));
  } else if (wrap.dataset.type === "audiences") {
    fields.push(new AudiencesField(wrap));
  } else {
    fields.push(new ValueField(wrap));
  }
}
const byName = new Map(fields.map((f) => [f.name, f]));

function snapshot() {
  return new Map(fields.map((f) => [f.name, f.raw()]));
}

function changedFields() {
  return fields.filter((f) => state.baseline.get(f.name) !== f.raw());
}

function isDirty() {
  return !state.trashed && changedFields().length > 0;
}

function updateDirty() {
  $("entry-dirty").hidden = !isDirty();
  setMessage(alertBox, "");
}

form.addEventListener("input", (event) => {
  const wrap = event.target.closest("[data-field]");
  if (wrap) clearFieldError(wrap.dataset.field);
  updateDirty();
});
form.addEventListener("change", () => updateDirty());
form.addEventListener("submit", (event) => event.preventDefault());
window.addEventListener("beforeunload", (event) => {
  if (isDirty() && !state.leaving) event.preventDefault();
});

// -- errors, next to their field, in words ------------------------------------------------------

function fieldError(name, text) {
  const field = byName.get(name);
  const box = $(`error-${name}`);
  if (!field || !box) return false;
  setMessage(box, text);
  field.invalidElement().setAttribute("aria-invalid", "true");
  return true;
}

function clearFieldError(name) {
  const field = byName.get(name);
  const box = $(`error-${name}`);
  if (box) setMessage(box, "");
  if (field) field.invalidElement().removeAttribute("aria-invalid");
}

function clearErrors() {
  for (const field of fields) clearFieldError(field.name);
  setMessage(alertBox, "");
}

function firstInvalid(names) {
  const field = fields.find((f) => names.includes(f.name));
  if (field) field.focus();
}

// Shows a refusal of the API: each problem under its field, the rest above the form.
function showRefusal(error) {
  const placed = [];
  const loose = [];
  if (Array.isArray(error.details)) {
    for (const detail of error.details) {
      const name = problemField(detail.location);
      const label = name && byName.get(name) ? byName.get(name).label : null;
      const text = label ? `${label}: ${detail.problem}.` : null;
      if (text && fieldError(name, sentence(text.replace(/\.\.$/, ".")))) placed.push(name);
      else loose.push(detail.location ? `${detail.location}: ${detail.problem}` : detail.problem);
    }
  }
  const summary = placed.length
    ? `Not saved: ${placed.length === 1 ? "one field needs" : `${placed.length} fields need`} attention (marked below).`
    : `${sentence(error.message)}${loose.length ? ` (${loose.join("; ")})` : ""}`;
  setMessage(alertBox, error.status === 401 ? describe(error) : summary);
  if (placed.length) firstInvalid(placed);
  else alertBox.focus();
}

// -- the state: badge, who changed it and when, which actions apply -------------------------

const LABELS = { draft: "Draft", published: "Published", changed: "Changed", trashed: "In the trash" };

// Who wrote a version: a signed-in user's address, or a token, which names no person.
function author(updatedBy) {
  return updatedBy && updatedBy.email ? updatedBy.email : "an API token";
}
const TONES = { draft: "neutral", published: "ok", changed: "warn", trashed: "danger" };

function render() {
  const entry = state.entry;
  const status = state.trashed ? "trashed" : entry ? entry.status : "new";
  const badge = $("entry-state");
  badge.textContent = LABELS[status] || "New";
  badge.className = `badge badge-${TONES[status] || "neutral"}`;
  if (entry) $("entry-changed").textContent = `Updated ${when(entry.updatedAt)} by ${author(entry.updatedBy)}`;
  const localeStatus = $("locale-current-status");
  if (localeStatus) localeStatus.textContent = LABELS[status] || "";
  buttons.save.hidden = state.trashed;
  buttons.publish.hidden = state.trashed || (entry && entry.status === "published");
  buttons.unpublish.hidden = state.trashed || !entry || entry.status === "draft";
  buttons.discard.hidden = state.trashed || !entry || entry.status !== "changed";
  buttons.schedule.hidden = state.trashed || !entry;
  buttons.trash.hidden = state.trashed || !entry;
  buttons.restore.hidden = !state.trashed;
  fieldset.disabled = state.trashed;
  for (const editor of Object.values(rich)) editor.enable(!state.trashed);
  for (const field of fields) if (field.enable) field.enable(!state.trashed);
  if (entry) for (const panel of panels) panel.update(entry, state.trashed);
  if (state.allowed) applyPermissions(state.allowed);
  const focused = document.activeElement;
  if (focused && focused.closest("#entry-actions") && focused.hidden) {
    const next = Object.values(buttons).find((b) => !b.hidden);
    if (next) next.focus();
  }
  updateDirty();
}

// -- what the user's roles allow (permissions.js): the rest is hidden or locked ------------------

const ACTION_OF = { publish: "publish", unpublish: "unpublish", discard: "update", schedule: "schedule", trash: "trash", restore: "restore" };

function lockField(name) {
  const wrap = form.querySelector(`[data-field="${name}"]`);
  if (rich[name]) rich[name].enable(false);
  for (const control of wrap.querySelectorAll("input, select, textarea, button")) control.disabled = true;
  wrap.dataset.locked = "true";
  if (!wrap.querySelector(".locked-note")) {
    const note = document.createElement("p");
    note.className = "help locked-note";
    note.textContent = "Read only: your role does not let you change this field.";
    wrap.append(note);
  }
}

function applyPermissions(allowed) {
  const entry = state.entry;
  const locale = entry ? entry.locale : data.new.locale;
  // A new entry is the user's own once saved; an existing one says so in the page's data.
  const where = { locale, own: !data.entry || Boolean(data.entry.own) };
  const writing = entry ? "update" : "create";
  for (const [name, action] of Object.entries(ACTION_OF)) {
    if (!allowed.allows(action, typeName, where)) buttons[name].hidden = true;
  }
  const versionRestore = $("version-restore");
  if (versionRestore) versionRestore.hidden = !allowed.allows("manage versions", typeName, where);
  const canWrite = allowed.allows(writing, typeName, where);
  const locked = fields.filter((f) => !canWrite || !allowed.letsChange(writing, typeName, f.name, where));
  for (const field of locked) lockField(field.name);
  if (!canWrite) buttons.save.hidden = true;
  const note = $("entry-readonly");
  if (!canWrite) note.textContent = `Read only: your role does not allow ${writing === "create" ? "creating" : "changing"} ${typeName} entries${locale ? ` in ${locale}` : ""}${!where.own && allowed.allows(writing, typeName, { locale }) ? " that someone else created" : ""}.`;
  else if (locked.length) note.textContent = `Your role lets you change only some fields here; ${locked.map((f) => f.name).join(", ")} ${locked.length === 1 ? "is" : "are"} read-only.`;
  note.hidden = canWrite && !locked.length;
}

// The heading, the breadcrumb and the window title follow the saved title.
function retitle(entry) {
  const field = data.type.titleField;
  if (!field || !entry.values) return;
  const title = entry.values[field] || "";
  $("entry-heading").textContent = title || `Untitled ${typeName}`;
  $("crumb-current").textContent = title || "Untitled";
  document.title = `${title || `Untitled ${typeName}`} · Content · Content Service`;
}

function saved(entry) {
  retitle(entry);
  state.entry = meta(entry);
  state.baseline = snapshot();
  for (const field of fields) if (field.saved) field.saved();
  render();
}

function meta(entry) {
  const { values: _values, relations: _relations, ...rest } = entry;
  return rest;
}

// -- conflicts -----------------------------------------------------------------------------------

async function latest() {
  return call("GET", `${apiBase}/${state.entry.id}?fields=`, { workspaceId: data.workspaceId });
}

async function showConflict() {
  state.conflict = true;
  let current;
  try {
    current = await latest();
  } catch {
    current = null;
  }
  $("conflict-text").textContent = current
    ? `It was saved at ${when(current.updatedAt)} by ${author(current.updatedBy)}, after you opened it at ${when(state.entry.updatedAt)}: you edited version ${state.entry.version}, the saved one is version ${current.version}.`
    : "It was saved by someone else after you opened it.";
  $("conflict-open").href = window.location.pathname + window.location.search;
  const panel = $("conflict");
  panel.hidden = false;
  panel.focus();
  announce("Not saved: someone else changed this entry.");
}

$("conflict-reload").addEventListener("click", async () => {
  if (await confirmWith($("reload-dialog"))) {
    state.leaving = true;
    window.location.reload();
  }
});

// -- saving -----------------------------------------------------------------------------------------

function readAll(chosen) {
  const values = {};
  const relations = {};
  let audiences;
  const problems = [];
  for (const field of chosen) {
    const found = field.read();
    if (found.problem) {
      fieldError(field.name, found.problem);
      problems.push(field.name);
    } else if (field.type === "relation") {
      const change = field.changes();
      if (change) relations[field.name] = change;
    } else if (field.name === "audiences") {
      audiences = found.value;
    } else {
      values[field.name] = found.value;
    }
  }
  return { values, relations, audiences, problems };
}

function createBody() {
  const { values, relations, audiences, problems } = readAll(fields);
  const body = {
    values: Object.fromEntries(Object.entries(values).filter(([, v]) => v !== null)),
    relations,
    locale: data.new.locale,
  };
  if (data.new.localeGroupId) body.localeGroupId = data.new.localeGroupId;
  if (audiences !== undefined) body.audiences = audiences;
  return { body, problems };
}

function updateBody() {
  // Required fields are checked on every write (the API does too), changed or not.
  const checked = readAll(fields.filter((f) => f.required && !changedFields().includes(f)));
  const { values, relations, audiences, problems } = readAll(changedFields());
  // The version this form was made from: the API refuses the save if someone saved since.
  const body = { values, relations, version: state.entry.version };
  if (audiences !== undefined) body.audiences = audiences;
  return { body, problems: [...checked.problems, ...problems] };
}

// Saves the form; resolves to the saved entry, or null when nothing was saved.
async function save() {
  clearErrors();
  if (state.conflict) {
    $("conflict").focus();
    return null;
  }
  const creating = !state.entry;
  const { body, problems } = creating ? createBody() : updateBody();
  if (problems.length) {
    setMessage(alertBox, `Not saved: ${problems.length === 1 ? "one field needs" : `${problems.length} fields need`} attention (marked below).`);
    firstInvalid(problems);
    return null;
  }
  if (!creating && !Object.keys(body.values).length && !Object.keys(body.relations).length && body.audiences === undefined) {
    announce("Nothing to save: no field changed.");
    return state.entry;
  }
  try {
    const entry = creating
      ? await call("POST", apiBase, { body, workspaceId: data.workspaceId })
      : await call("PATCH", `${apiBase}/${state.entry.id}`, { body, workspaceId: data.workspaceId });
    saved(entry);
    announce(`Saved at ${when(entry.updatedAt)}.`);
    return entry;
  } catch (error) {
    if (error instanceof ApiError && error.code === "version_conflict") {
      await showConflict();
    } else if (error instanceof ApiError && error.status === 404 && !creating) {
      setMessage(alertBox, "Not saved: this entry was moved to the trash or deleted meanwhile. Your changes are still in the form.");
      alertBox.focus();
    } else {
      showRefusal(error);
    }
    return null;
  }
}

function goToSaved(entry, done) {
  state.leaving = true;
  const params = new URLSearchParams(data.workspaceQuery);
  params.set("done", done);
  window.location.assign(`/content/${encodeURIComponent(typeName)}/${encodeURIComponent(entry.id)}?${params}`);
}

// Opens a confirmation that says, when the form has unsaved changes, that they are lost too.
function confirmLosing(dialog) {
  const warning = dialog.querySelector(".dirty-warning");
  if (warning) warning.hidden = !isDirty();
  return confirmWith(dialog);
}

async function act(button, label, method, suffix) {
  return busy(button, label, async () => {
    try {
      const entry = await call(method, `${apiBase}/${state.entry.id}${suffix}`, { workspaceId: data.workspaceId });
      return entry;
    } catch (error) {
      showRefusal(error);
      return null;
    }
  });
}

buttons.save.addEventListener("click", () =>
  busy(buttons.save, "Saving…", async () => {
    const creating = !state.entry;
    const entry = await save();
    if (entry && creating) goToSaved(entry, "created");
  }),
);

buttons.publish.addEventListener("click", async () => {
  const creating = !state.entry;
  if (creating || isDirty()) {
    const entry = await busy(buttons.publish, "Saving…", save);
    if (!entry) return;
  }
  const published = await act(buttons.publish, "Publishing…", "POST", "/publish");
  if (!published) return;
  if (creating) {
    goToSaved(published, "published");
    return;
  }
  saved(published);
  announce(`Published at ${when(published.publishedAt)}.`);
});

buttons.unpublish.addEventListener("click", async () => {
  const entry = await act(buttons.unpublish, "Unpublishing…", "POST", "/unpublish");
  if (!entry) return;
  const dirty = changedFields();
  state.entry = meta(entry);
  if (!dirty.length) state.baseline = snapshot();
  render();
  announce("Unpublished: readers no longer get this entry.");
});

// Moves the entry to the trash: true when it went, "linked" when published entries link it
// (the service's 409 names them; `?force=true` overrides), false on any other refusal.
async function moveToTrash(suffix) {
  return busy(buttons.trash, "Moving…", async () => {
    try {
      await call("DELETE", `${apiBase}/${state.entry.id}${suffix}`, { workspaceId: data.workspaceId });
      return true;
    } catch (error) {
      if (error instanceof ApiError && error.status === 409 && error.details && Array.isArray(error.details.linkedFrom)) {
        state.linkers = error;
        return "linked";
      }
      showRefusal(error);
      return false;
    }
  });
}

// Lists the published entries that link this one and asks again.
async function confirmLinked() {
  const error = state.linkers;
  const count = Number(error.details.count) || error.details.linkedFrom.length;
  const named = error.details.linkedFrom.length;
  $("trash-linked-message").textContent =
    `${count} published ${count === 1 ? "entry links" : "entries link"} this one` +
    (named < count ? ` (${named} of them you can see are listed):` : ":");
  const list = $("trash-linked-list");
  list.replaceChildren();
  for (const linker of error.details.linkedFrom) {
    const item = document.createElement("li");
    const link = document.createElement("a");
    link.href = `/content/${encodeURIComponent(linker.contentType)}/${encodeURIComponent(linker.id)}${query}`;
    link.textContent = linker.title || "Untitled";
    const what = document.createElement("span");
    what.className = "muted small";
    what.textContent = ` ${linker.contentType} · ${linker.field}`;
    item.append(link, what);
    list.append(item);
  }
  return confirmWith($("trash-linked-dialog"));
}

buttons.trash.addEventListener("click", async () => {
  if (!(await confirmWith($("trash-dialog")))) {
    buttons.trash.focus();
    return;
  }
  let gone = await moveToTrash("");
  if (gone === "linked") gone = (await confirmLinked()) && (await moveToTrash("?force=true")) === true;
  if (gone !== true) {
    buttons.trash.focus();
    return;
  }
  state.trashed = true;
  render();
  buttons.restore.focus();
  announce("Moved to the trash. Restore brings it back as it was.");
});

buttons.restore.addEventListener("click", async () => {
  const entry = await act(buttons.restore, "Restoring…", "POST", "/restore");
  if (!entry) return;
  state.trashed = false;
  saved(entry);
  buttons.save.focus();
  announce(`Restored as ${LABELS[entry.status].toLowerCase()}.`);
});

buttons.discard.addEventListener("click", async () => {
  if (!(await confirmLosing($("discard-dialog")))) {
    buttons.discard.focus();
    return;
  }
  const entry = await act(buttons.discard, "Discarding…", "POST", "/discard");
  if (entry) goToSaved(entry, "discarded");
});

// -- the side panels: preview, schedules, versions -------------------------------------------------

const panels = [];
if (state.entry) {
  const context = { data, apiBase, entry: state.entry };
  const schedules = new Schedules({ ...context, announce });
  const versions = new History({
    ...context,
    isDirty,
    restored: (entry) => goToSaved(entry, "restored"),
    refused: showRefusal,
  });
  panels.push(new Preview(context), schedules, versions);
  buttons.schedule.addEventListener("click", () => schedules.open());
  schedules.load();
  versions.load();
}

// -- start --------------------------------------------------------------------------------------

installDialogs();
// The saved state is what the page was served with: anything typed before this script ran is
// a change, and so is what the browser restores into the form on a reload.
state.baseline = new Map(fields.map((f) => [f.name, f.initial()]));
const done = new URLSearchParams(window.location.search).get("done");
if (done && DONE[done]) {
  announce(DONE[done]);
  const params = new URLSearchParams(window.location.search);
  params.delete("done");
  const rest = params.toString();
  history.replaceState(null, "", window.location.pathname + (rest ? `?${rest}` : ""));
}
render();
loadAllowed(data.workspaceId).then((allowed) => {
  state.allowed = allowed;
  ready();
  render();
});
