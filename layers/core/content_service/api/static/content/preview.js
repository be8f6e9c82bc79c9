// The preview: the entry as readers get it (`?version=published`, the delivery view) beside its
// saved draft, field by field, with the fields that differ marked in words. The side card says
// which version is live; the comparison opens above the form and follows every save.

import { ApiError } from "../admin/common.js";
import { audiencesNode, sameAudiences, sameField, valueNode } from "./read_only.js";
import { EntryPanel } from "./entry_panel.js";
import { when } from "./request.js";

const $ = (id) => document.getElementById(id);

function summary(entry) {
  if (entry.status === "draft") return "Not published: readers get nothing from this entry.";
  const live = `Readers get version ${entry.publishedVersion}, published ${when(entry.publishedAt)}`;
  return entry.status === "changed" ? `${live}. The draft differs from it.` : `${live}: the draft is the same.`;
}

function cell(label, node, className) {
  const td = document.createElement("td");
  td.dataset.label = label;
  if (className) td.className = className;
  td.append(node);
  return td;
}

function muted(content) {
  const span = document.createElement("span");
  span.className = "muted";
  span.textContent = content;
  return span;
}

export class Preview extends EntryPanel {
  constructor(context) {
    super(context);
    this.panel = $("preview");
    this.toggle = $("preview-toggle");
    this.note = $("preview-note");
    this.rows = $("preview-rows");
    this.loading = 0;
    this.toggle.addEventListener("click", () => (this.isOpen() ? this.close() : this.open()));
    $("preview-close").addEventListener("click", () => {
      this.close();
      this.toggle.focus();
    });
  }

  isOpen() {
    return !this.panel.hidden;
  }

  open() {
    this.panel.hidden = false;
    this.toggle.setAttribute("aria-expanded", "true");
    this.panel.focus();
    return this.refresh();
  }

  close() {
    this.panel.hidden = true;
    this.toggle.setAttribute("aria-expanded", "false");
  }

  // The entry changed (a save, a publish...): the card's words, and the comparison if open.
  update(entry, trashed) {
    this.entry = entry;
    $("preview-card").hidden = trashed;
    if (trashed) this.close();
    $("preview-summary").textContent = summary(entry);
    if (this.isOpen()) this.refresh();
  }

  async read(version) {
    const expand = this.data.type.fields.filter((f) => f.type === "relation").map((f) => f.name);
    const params = new URLSearchParams();
    if (version) params.set("version", version);
    if (expand.length) params.set("expand", expand.join(","));
    return this.call("GET", this.entryUrl(`?${params}`), { exact: true });
  }

  async refresh() {
    const turn = ++this.loading;
    this.note.textContent = "Loading the live version and the draft…";
    let live = null;
    let draft;
    try {
      [draft, live] = await Promise.all([
        this.read(null),
        this.entry.status === "draft" ? null : this.read("published"),
      ]);
    } catch (error) {
      if (turn === this.loading) {
        this.note.textContent = error instanceof ApiError ? `Could not load the comparison: ${error.message}.` : String(error);
      }
      return;
    }
    if (turn === this.loading) this.draw(live, draft);
  }

  draw(live, draft) {
    const differs = [];
    this.rows.replaceChildren();
    const rows = this.data.type.fields.map((field) => ({
      label: field.label,
      same: live ? sameField(field, live, draft) : true,
      node: (entry) => valueNode(field, entry, this.data.targets[field.name]),
    }));
    if ("audiences" in draft) {
      rows.push({ label: "Audiences", same: live ? sameAudiences(live, draft) : true, node: audiencesNode });
    }
    for (const row of rows) {
      const tr = document.createElement("tr");
      const th = document.createElement("th");
      th.scope = "row";
      th.textContent = row.label;
      if (!row.same) {
        differs.push(row.label);
        tr.className = "differs";
        const badge = document.createElement("span");
        badge.className = "badge badge-warn";
        badge.textContent = "Differs";
        th.append(" ", badge);
      }
      tr.append(
        th,
        cell("Live", live ? row.node(live) : muted("Not published")),
        cell("Draft", row.node(draft)),
      );
      this.rows.append(tr);
    }
    const dirty = document.getElementById("entry-dirty").hidden ? "" : " Unsaved changes in the form are not shown.";
    let words;
    if (!live) words = "Not published: readers get nothing from this entry (the API answers 404). The draft is shown on the right.";
    else if (!differs.length) words = `The draft is the live version ${live.publishedVersion}: no field differs.`;
    else {
      const count = differs.length === 1 ? "1 field differs" : `${differs.length} fields differ`;
      words = `${count} between the live version ${live.publishedVersion} and the draft: ${differs.join(", ")}.`;
    }
    this.note.textContent = words + dirty;
  }
}
