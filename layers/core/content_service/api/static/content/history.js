// The entry's published versions in the editor: a list, newest first and paged
// (GET `.../versions`), one opened read-only (GET `.../versions/{n}`) and, after a
// confirmation, restored into the draft (POST `.../versions/{n}/restore`).

import { busy, confirmWith, describe, rowButton } from "../admin/common.js";
import { audiencesNode, valueNode } from "./read_only.js";
import { EntryPanel } from "./entry_panel.js";
import { when } from "./request.js";

const $ = (id) => document.getElementById(id);
const PAGE_SIZE = 5;

function byWhom(publishedBy) {
  return publishedBy && publishedBy.email ? publishedBy.email : "an API token";
}

export class History extends EntryPanel {
  // `restored(entry, number)` runs after a restore; `refused(error)` shows a refusal.
  constructor({ isDirty, restored, refused, ...context }) {
    super(context);
    this.isDirty = isDirty;
    this.restored = restored;
    this.refused = refused;
    this.page = 1;
    this.list = $("versions-list");
    this.status = $("versions-status");
    this.pager = $("versions-pager");
    this.dialog = $("version-dialog");
    $("versions-newer").addEventListener("click", () => this.load(this.page - 1));
    $("versions-older").addEventListener("click", () => this.load(this.page + 1));
  }

  url(tail = "") {
    return this.entryUrl(`/versions${tail}`);
  }

  update(entry, trashed) {
    const published = entry.publishedVersion !== this.entry.publishedVersion;
    this.entry = entry;
    $("versions-card").hidden = trashed;
    if (published && !trashed) this.load(1);
  }

  async load(page = this.page) {
    try {
      const found = await this.call("GET", `${this.url()}?page=${page}&pageSize=${PAGE_SIZE}`);
      this.page = page;
      this.draw(found);
    } catch (error) {
      this.status.textContent = `Could not load the versions: ${describe(error)}`;
    }
  }

  draw(found) {
    this.list.replaceChildren(...found.items.map((v) => this.row(v)));
    if (!found.total) {
      this.status.textContent = "Not published yet: each publish keeps a version here.";
    } else {
      const first = (found.page - 1) * found.pageSize + 1;
      const last = first + found.items.length - 1;
      const kept = found.total === 1 ? "1 published version" : `${found.total} published versions`;
      this.status.textContent = found.total > found.pageSize ? `${kept}, newest first (${first}–${last} shown).` : `${kept}, newest first.`;
    }
    const pages = Math.ceil(found.total / found.pageSize);
    this.pager.hidden = pages <= 1;
    $("versions-newer").hidden = found.page <= 1;
    $("versions-older").hidden = found.page >= pages;
  }

  row(version) {
    const item = document.createElement("li");
    item.className = "version-item";
    const head = document.createElement("p");
    head.className = "side-item-head";
    const number = document.createElement("strong");
    number.textContent = `Version ${version.version}`;
    head.append(number);
    if (version.version === this.entry.publishedVersion) {
      const live = document.createElement("span");
      live.className = "badge badge-ok";
      live.textContent = "Live";
      head.append(" ", live);
    }
    const title = document.createElement("p");
    title.className = "small version-title";
    title.textContent = version.title || "Untitled";
    const meta = document.createElement("p");
    meta.className = "small muted";
    meta.textContent = `Published ${when(version.publishedAt)} by ${byWhom(version.publishedBy)}`;
    const open = rowButton("Open", ` version ${version.version}`);
    open.addEventListener("click", () => this.open(version.version, open));
    item.append(head, title, meta, open);
    return item;
  }

  // Shows version `number` read-only; from there it can be restored into the draft.
  async open(number, button) {
    const version = await busy(button, "Opening…", async () => {
      try {
        return await this.call("GET", this.url(`/${number}`), { exact: true });
      } catch (error) {
        this.refused(error);
        return null;
      }
    });
    if (!version) return;
    $("version-title").textContent = `Version ${version.version}${version.version === this.entry.publishedVersion ? " (live)" : ""}`;
    $("version-meta").textContent = `Published ${when(version.publishedAt)} by ${byWhom(version.publishedBy)}. Read only.`;
    const values = $("version-values");
    values.replaceChildren();
    for (const field of this.data.type.fields) {
      if (field.type === "relation") continue;
      const term = document.createElement("dt");
      term.textContent = field.label;
      const value = document.createElement("dd");
      value.append(valueNode(field, version.entry, null));
      values.append(term, value);
    }
    if ("audiences" in version.entry) {
      const term = document.createElement("dt");
      term.textContent = "Audiences";
      const value = document.createElement("dd");
      value.append(audiencesNode(version.entry));
      values.append(term, value);
    }
    this.dialog.returnValue = "";
    const closed = new Promise((resolve) => this.dialog.addEventListener("close", resolve, { once: true }));
    this.dialog.showModal();
    this.dialog.querySelector('[data-close="cancel"]').focus();
    await closed;
    if (this.dialog.returnValue === "restore") await this.restore(version.version, button);
    else button.focus();
  }

  async restore(number, button) {
    const confirm = $("restore-version-dialog");
    $("restore-version-title").textContent = `Restore version ${number} into the draft?`;
    $("restore-version-text").textContent = `The draft takes version ${number}'s values and relations; the draft you have now is replaced. Readers keep the live version until you publish.`;
    confirm.querySelector(".dirty-warning").hidden = !this.isDirty();
    if (!(await confirmWith(confirm))) {
      button.focus();
      return;
    }
    try {
      const entry = await this.call("POST", this.url(`/${number}/restore`));
      this.restored(entry, number);
    } catch (error) {
      this.refused(error);
    }
  }
}
