// What the editor's panels over the saved entry share (the preview, the schedules, the
// published versions): the page's data, the entry as last saved, its URL in the content API, and
// a call to that API in the page's workspace.

import { call } from "./request.js";

export class EntryPanel {
  constructor({ data, apiBase, entry }) {
    this.data = data;
    this.apiBase = apiBase;
    this.entry = entry;
  }

  // The entry's URL, `tail` (`/schedules`, `/versions/3`, `?version=published`) after it.
  entryUrl(tail = "") {
    return `${this.apiBase}/${encodeURIComponent(this.entry.id)}${tail}`;
  }

  call(method, path, options = {}) {
    return call(method, path, { ...options, workspaceId: this.data.workspaceId });
  }
}
