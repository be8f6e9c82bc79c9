// An asset's page: save its details, publish (asking first when an image has no alt text),
// unpublish, trash (asking again, with the entries that use it, when published entries link
// it), restore, and replace its file through a new upload.

import { ApiError, busy, confirmWith, describe, installDialogs, ready, setMessage } from "../admin/common.js";
import { uploadFile } from "./asset_upload.js";
import { call } from "./request.js";

const data = JSON.parse(document.getElementById("asset-data").textContent);
const path = `/api/v1/assets/${encodeURIComponent(data.asset.id)}`;
const options = { workspaceId: data.workspaceId };
const message = document.getElementById("asset-message");
const form = document.getElementById("asset-form");
const buttons = Object.fromEntries(
  ["save", "publish", "unpublish", "trash", "restore"].map((id) => [id, document.getElementById(id)]),
);
let asset = data.asset;

function say(text) {
  message.hidden = false;
  setMessage(message, text);
}

function show(next) {
  asset = next;
  const word = asset.status === "published" ? "Published" : asset.status.replace(/^./, (c) => c.toUpperCase());
  document.getElementById("asset-status").textContent = word;
  buttons.unpublish.hidden = asset.status === "draft";
}

function details() {
  const value = (name) => form.elements[name].value.trim() || null;
  return { title: value("title"), altText: value("altText"), description: value("description") };
}

async function act(button, label, work, done) {
  try {
    await busy(button, label, work);
    say(done);
  } catch (error) {
    say(describe(error));
  }
}

form.addEventListener("submit", (event) => {
  event.preventDefault();
  act(buttons.save, "Saving…", async () => show(await call("PATCH", path, { ...options, body: details() })), "Saved.");
});

buttons.publish.addEventListener("click", async () => {
  const image = String(asset.contentType || "").startsWith("image/");
  if (image && !details().altText && !(await confirmWith(document.getElementById("alt-dialog")))) return;
  act(
    buttons.publish,
    "Publishing…",
    async () => {
      await call("PATCH", path, { ...options, body: details() });
      show(await call("POST", `${path}/publish`, options));
    },
    "Published.",
  );
});

buttons.unpublish.addEventListener("click", () =>
  act(buttons.unpublish, "Unpublishing…", async () => show(await call("POST", `${path}/unpublish`, options)), "Unpublished."),
);

async function trash(force) {
  await call("DELETE", `${path}${force ? "?force=true" : ""}`, options);
  buttons.trash.hidden = true;
  buttons.restore.hidden = false;
  buttons.restore.focus();
}

async function askAgain(error) {
  const dialog = document.getElementById("trash-linked-dialog");
  const linkers = (error.details && error.details.linkedFrom) || [];
  document.getElementById("trash-linked-message").textContent = error.message;
  document.getElementById("trash-linked-list").replaceChildren(
    ...linkers.map((linker) => {
      const item = document.createElement("li");
      item.textContent = `${linker.title || "Untitled"} (${linker.contentType} · ${linker.field})`;
      return item;
    }),
  );
  return confirmWith(dialog);
}

buttons.trash.addEventListener("click", async () => {
  if (!(await confirmWith(document.getElementById("trash-dialog")))) return;
  try {
    await busy(buttons.trash, "Moving…", () => trash(false));
    say("Moved to the trash.");
  } catch (error) {
    if (!(error instanceof ApiError) || error.status !== 409) return say(describe(error));
    if (!(await askAgain(error))) return;
    act(buttons.trash, "Moving…", () => trash(true), "Moved to the trash.");
  }
});

buttons.restore.addEventListener("click", () =>
  act(
    buttons.restore,
    "Restoring…",
    async () => {
      show(await call("POST", `${path}/restore`, options));
      buttons.restore.hidden = true;
      buttons.trash.hidden = false;
    },
    "Restored.",
  ),
);

const replace = document.getElementById("replace-input");
const progress = document.getElementById("replace-progress");
replace.addEventListener("change", async () => {
  const [file] = replace.files;
  replace.value = "";
  if (!file) return;
  progress.hidden = false;
  try {
    const next = await uploadFile(file, { ...options, replace: asset.id, onProgress: (p) => (progress.value = p) });
    show(next);
    say(next.state === "failed" ? `The new file was refused: ${next.reason}` : "File replaced; publish to make it live.");
  } catch (error) {
    say(describe(error));
  } finally {
    progress.hidden = true;
  }
});

installDialogs();
ready();
