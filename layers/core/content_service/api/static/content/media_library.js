// The media library: files chosen or dropped are uploaded one by one, each with its own
// progress bar and outcome; the grid is reloaded once they are done.

import { describe, ready } from "../admin/common.js";
import { uploadFile } from "./asset_upload.js";

const data = JSON.parse(document.getElementById("media-data").textContent);
const input = document.getElementById("upload-input");
const zone = document.getElementById("drop-zone");
const list = document.getElementById("uploads");
const status = document.getElementById("upload-status");

function row(file) {
  const item = document.createElement("li");
  item.className = "upload";
  const name = document.createElement("span");
  name.className = "upload-name";
  name.textContent = file.name;
  const bar = document.createElement("progress");
  bar.max = 100;
  bar.value = 0;
  bar.setAttribute("aria-label", `Uploading ${file.name}`);
  const outcome = document.createElement("span");
  outcome.className = "upload-outcome small";
  item.append(name, bar, outcome);
  list.append(item);
  return { item, bar, outcome };
}

async function one(file) {
  const { item, bar, outcome } = row(file);
  try {
    const asset = await uploadFile(file, { workspaceId: data.workspaceId, onProgress: (p) => (bar.value = p) });
    if (asset.state === "failed") {
      item.classList.add("failed");
      outcome.textContent = `Failed: ${asset.reason}`;
      return false;
    }
    item.classList.add("done");
    outcome.textContent = "Uploaded";
    return true;
  } catch (error) {
    item.classList.add("failed");
    outcome.textContent = `Failed: ${describe(error)}`;
    return false;
  }
}

async function uploadAll(files) {
  if (!files.length) return;
  status.textContent = `Uploading ${files.length} file${files.length === 1 ? "" : "s"}…`;
  const results = [];
  for (const file of files) results.push(await one(file));
  const failed = results.filter((ok) => !ok).length;
  await refreshGrid();
  status.textContent = failed
    ? `${results.length - failed} uploaded, ${failed} failed.`
    : `${results.length} uploaded.`;
}

// The grid as the server renders it now (the page itself, fetched again), in place.
async function refreshGrid() {
  const response = await fetch(window.location.href, { credentials: "same-origin" });
  if (!response.ok) return;
  const fresh = new DOMParser().parseFromString(await response.text(), "text/html");
  for (const id of ["media-grid", "asset-count"]) {
    const now = document.getElementById(id);
    const next = fresh.getElementById(id);
    if (now && next) now.replaceWith(next);
  }
  const empty = document.getElementById("media-empty");
  if (empty && !fresh.getElementById("media-empty")) empty.remove();
}

// Without `manage assets` the page has no upload section (the service refuses uploads anyway).
function wireUploads() {
  input.addEventListener("change", () => {
    const files = [...input.files];
    input.value = "";
    uploadAll(files);
  });
  for (const name of ["dragenter", "dragover"]) {
    zone.addEventListener(name, (event) => {
      event.preventDefault();
      zone.classList.add("dragging");
    });
  }
  zone.addEventListener("dragleave", () => zone.classList.remove("dragging"));
  zone.addEventListener("drop", (event) => {
    event.preventDefault();
    zone.classList.remove("dragging");
    uploadAll([...event.dataTransfer.files]);
  });
}

if (input && zone) wireUploads();
ready();
