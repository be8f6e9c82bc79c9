// One file uploaded the way the assets API asks: a presigned POST from the API, the file sent
// by the browser straight to the bucket (XMLHttpRequest, for its progress events), then the
// upload completed into an asset (or, with `replace`, into the asset's new file).

import { call } from "./request.js";

function sendForm(upload, file, onProgress) {
  return new Promise((resolve, reject) => {
    const form = new FormData();
    for (const [name, value] of Object.entries(upload.fields)) form.append(name, value);
    form.append("file", file);
    const request = new XMLHttpRequest();
    request.open("POST", upload.url);
    request.upload.addEventListener("progress", (event) => {
      if (event.lengthComputable) onProgress(Math.round((100 * event.loaded) / event.total));
    });
    request.addEventListener("load", () => {
      if (request.status >= 200 && request.status < 300) resolve();
      else reject(new Error(`storage refused the file (HTTP ${request.status})`));
    });
    request.addEventListener("error", () => reject(new Error("the upload to storage failed")));
    request.send(form);
  });
}

export async function uploadFile(file, { workspaceId, onProgress = () => {}, replace = null }) {
  const upload = await call("POST", "/api/v1/assets/uploads", {
    workspaceId,
    body: { fileName: file.name, contentType: file.type || "application/octet-stream", size: file.size },
  });
  await sendForm(upload, file, onProgress);
  onProgress(100);
  if (replace) {
    return call("POST", `/api/v1/assets/${encodeURIComponent(replace)}/file`, {
      workspaceId,
      body: { uploadId: upload.uploadId },
    });
  }
  return call("POST", "/api/v1/assets", { workspaceId, body: { uploadId: upload.uploadId } });
}
