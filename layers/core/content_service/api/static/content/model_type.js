// One content type's page (/content-types/{name}): every change sends the whole new definition
// with `PUT /api/v1/content-types/{name}` (add, change or remove a field, the settings), and
// Delete is `DELETE`. Refusals are the API's, shown next to what they are about.

import { busy, confirmWith, describe, installDialogs, ready, setMessage } from "../admin/common.js";
import { call, sentence } from "./request.js";

const data = JSON.parse(document.getElementById("model-data").textContent);
const type = data.type;
const path = `/api/v1/content-types/${encodeURIComponent(type.name)}`;
const $ = (id) => document.getElementById(id);
const alertBox = $("form-alert");
const dialog = $("field-dialog");
const fieldForm = $("field-form");
const fieldAlert = $("field-alert");
const inputs = {
  name: $("field-name"),
  type: $("field-type"),
  values: $("field-values"),
  target: $("field-target"),
  cardinality: $("field-cardinality"),
};
let editing = null;

function definition(changes = {}) {
  return {
    name: type.name,
    kind: type.kind,
    localized: type.localized,
    audienceGated: type.audienceGated,
    titleField: type.titleField,
    listShards: type.listShards,
    fields: type.fields.map((f) => ({ ...f })),
    ...changes,
  };
}

function reloadWith(done) {
  const params = new URLSearchParams(data.workspaceQuery);
  params.set("done", done);
  window.location.assign(`${window.location.pathname}?${params}`);
}

// -- the field dialog ---------------------------------------------------------------------------

function showKindBoxes() {
  const kind = inputs.type.value;
  $("enum-box").hidden = kind !== "enum";
  $("relation-box").hidden = kind !== "relation";
  $("field-cardinality-help").textContent = data.relationHelp[inputs.cardinality.value] || "";
}
inputs.type.addEventListener("change", showKindBoxes);
inputs.cardinality.addEventListener("change", showKindBoxes);

function clearFieldErrors() {
  setMessage(fieldAlert, "");
  for (const key of Object.keys(inputs)) {
    setMessage($(`field-${key}-error`), "");
    inputs[key].removeAttribute("aria-invalid");
  }
}

function openField(existing) {
  editing = existing || null;
  clearFieldErrors();
  $("field-dialog-title").textContent = existing ? `Change the field ${existing.name}` : "Add a field";
  $("field-save").textContent = existing ? "Save field" : "Add field";
  inputs.name.value = existing ? existing.name : "";
  inputs.type.value = existing ? existing.type : "string";
  inputs.values.value = existing && existing.values ? existing.values.join("\n") : "";
  if (existing && existing.target) inputs.target.value = existing.target;
  inputs.cardinality.value = existing && existing.cardinality ? existing.cardinality : "many-to-one";
  $("field-required").checked = Boolean(existing && existing.required);
  $("field-sortable").checked = Boolean(existing && existing.sortable);
  for (const fixed of [inputs.name, inputs.type, inputs.target, inputs.cardinality]) fixed.disabled = Boolean(existing);
  $("field-fixed").hidden = !existing;
  showKindBoxes();
  dialog.showModal();
  (existing ? $("field-required") : inputs.name).focus();
}

function fieldBody() {
  const kind = inputs.type.value;
  const body = { name: inputs.name.value.trim(), type: kind, required: $("field-required").checked };
  if (kind === "enum") body.values = inputs.values.value.split(/[\n,]/).map((v) => v.trim()).filter(Boolean);
  if (kind === "relation") {
    body.target = inputs.target.value;
    body.cardinality = inputs.cardinality.value;
  }
  if ($("field-sortable").checked) body.sortable = true;
  return body;
}

// A problem of the API about `fields[i].<part>` of the field being saved goes under its input.
function placeFieldProblems(error, index) {
  const placed = [];
  for (const detail of Array.isArray(error.details) ? error.details : []) {
    const location = String(detail.location || "").replace(/^body\./, "");
    const match = location.match(/^fields(?:\[(\d+)\]|\.(\d+))\.(\w+)/);
    const part = match && Number(match[1] ?? match[2]) === index ? match[3] : null;
    if (part && inputs[part] && !inputs[part].closest("[hidden]")) {
      setMessage($(`field-${part}-error`), sentence(`${detail.problem}.`));
      inputs[part].setAttribute("aria-invalid", "true");
      placed.push(inputs[part]);
    }
  }
  if (placed.length) placed[0].focus();
  else {
    setMessage(fieldAlert, describe(error));
    fieldAlert.scrollIntoView({ block: "nearest" });
  }
}

fieldForm.addEventListener("submit", (event) => {
  event.preventDefault();
  busy($("field-save"), "Saving…", async () => {
    clearFieldErrors();
    const body = fieldBody();
    if (!body.name) {
      setMessage($("field-name-error"), "Enter a name for the field.");
      inputs.name.setAttribute("aria-invalid", "true");
      inputs.name.focus();
      return;
    }
    const fields = definition().fields;
    const index = editing ? fields.findIndex((f) => f.name === editing.name) : fields.length;
    fields[index] = body;
    try {
      await call("PUT", path, { body: definition({ fields }), workspaceId: data.workspaceId });
    } catch (error) {
      placeFieldProblems(error, index);
      return;
    }
    dialog.close("saved");
    reloadWith("saved");
  });
});

$("add-field").addEventListener("click", () => openField(null));
for (const button of document.querySelectorAll(".edit-field")) {
  button.addEventListener("click", () => openField(type.fields.find((f) => f.name === button.dataset.name)));
}

// -- remove a field, save the settings, delete the type -------------------------------------------

async function put(body, button) {
  setMessage(alertBox, "");
  try {
    await call("PUT", path, { body, workspaceId: data.workspaceId });
    reloadWith("saved");
  } catch (error) {
    setMessage(alertBox, describe(error));
    alertBox.focus();
    if (button) button.focus();
  }
}

for (const button of document.querySelectorAll(".remove-field")) {
  button.addEventListener("click", async () => {
    const name = button.dataset.name;
    $("remove-text").textContent =
      `Entries keep no value of ${name}: each entry drops it at its next save, and no reader sees it again. ` +
      "A field added later under the same name starts empty.";
    if (!(await confirmWith($("remove-dialog")))) {
      button.focus();
      return;
    }
    const fields = type.fields.filter((f) => f.name !== name);
    const titleField = type.titleField === name ? null : type.titleField;
    await busy(button, "Removing…", () => put(definition({ fields, titleField }), button));
  });
}

$("settings-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const button = $("save-settings");
  busy(button, "Saving…", () =>
    put(
      definition({
        titleField: $("setting-title").value || null,
        kind: $("setting-kind").value,
        localized: $("setting-localized").checked,
        audienceGated: $("setting-gated").checked,
      }),
      button,
    ),
  );
});

$("delete-type").addEventListener("click", async () => {
  const button = $("delete-type");
  if (!(await confirmWith($("delete-dialog")))) {
    button.focus();
    return;
  }
  await busy(button, "Deleting…", async () => {
    try {
      await call("DELETE", path, { workspaceId: data.workspaceId });
    } catch (error) {
      setMessage(alertBox, describe(error));
      alertBox.focus();
      return;
    }
    const params = new URLSearchParams(data.workspaceQuery);
    params.set("done", "deleted");
    window.location.assign(`/content-types?${params}`);
  });
});

installDialogs();
ready();
