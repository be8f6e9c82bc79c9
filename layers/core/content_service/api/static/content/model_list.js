// The content model page (/content-types): creating a type is `POST /api/v1/content-types`;
// the new type's page opens next, to add its fields.

import { busy, describe, ready, setMessage } from "../admin/common.js";
import { call, sentence } from "./request.js";

const form = document.getElementById("type-form");
const alertBox = document.getElementById("form-alert");
const nameInput = document.getElementById("type-name");
const nameError = document.getElementById("type-name-error");
const workspaceId = form.dataset.workspaceId;
const workspaceQuery = form.dataset.workspaceQuery;

function showProblem(text) {
  setMessage(nameError, text);
  nameInput.setAttribute("aria-invalid", "true");
  nameInput.focus();
}

nameInput.addEventListener("input", () => {
  setMessage(nameError, "");
  nameInput.removeAttribute("aria-invalid");
  setMessage(alertBox, "");
});

form.addEventListener("submit", (event) => {
  event.preventDefault();
  const button = document.getElementById("create-type");
  busy(button, "Creating…", async () => {
    setMessage(alertBox, "");
    const name = nameInput.value.trim();
    if (!name) {
      showProblem("Enter a name for the new type.");
      return;
    }
    const body = {
      name,
      kind: document.getElementById("type-kind").value,
      localized: document.getElementById("type-localized").checked,
      audienceGated: document.getElementById("type-gated").checked,
      fields: [],
    };
    try {
      await call("POST", "/api/v1/content-types", { body, workspaceId });
    } catch (error) {
      const details = Array.isArray(error.details) ? error.details : [];
      const about = details.find((d) => String(d.location || "").replace(/^body\./, "") === "name");
      if (about) showProblem(sentence(`${about.problem}.`));
      else {
        setMessage(alertBox, describe(error));
        alertBox.focus();
      }
      return;
    }
    const params = new URLSearchParams(workspaceQuery);
    params.set("done", "created");
    window.location.assign(`/content-types/${encodeURIComponent(name)}?${params}`);
  });
});

ready();
