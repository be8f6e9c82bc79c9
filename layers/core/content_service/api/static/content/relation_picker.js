// Relation fields: the linked entries, each with Remove, and a search of the target type's
// entries (the content API's list, filtered by title) with a Link button per result. A to-one
// field (one-to-one, many-to-one) holds one entry: linking another replaces it. What the
// service refuses (a one-to-* target linked elsewhere) is shown under the field. An asset field
// is the same picker over the media library (`/api/v1/assets`, by file name), with thumbnails.

import { describe } from "../admin/common.js";
import { call } from "./request.js";

const SEARCH_DELAY_MS = 250;
const RESULTS = 10;

function statusWord(status) {
  return status === "published" ? "Published" : String(status || "").replace(/^./, (c) => c.toUpperCase());
}

function thumbnail(src) {
  const image = document.createElement("img");
  image.className = "thumb";
  image.src = src;
  image.alt = "";
  image.width = 48;
  image.height = 48;
  return image;
}

export class RelationField {
  constructor(wrap, { target, linked, workspaceId, workspaceQuery, locale, onChange, announce }) {
    this.wrap = wrap;
    this.name = wrap.dataset.field;
    this.type = "relation";
    this.required = wrap.hasAttribute("data-required");
    this.toOne = wrap.dataset.toOne === "true";
    this.label = wrap.querySelector("legend").childNodes[0].textContent.trim();
    this.target = target;
    this.asset = target.type === "asset";
    this.accept = (wrap.dataset.accept || "").split(",").filter(Boolean);
    this.workspaceId = workspaceId;
    this.workspaceQuery = workspaceQuery;
    this.locale = target.localized ? locale : "en";
    this.onChange = onChange;
    this.announce = announce;
    this.list = wrap.querySelector(".linked");
    this.empty = wrap.querySelector(".linked-empty");
    this.find = wrap.querySelector(".find");
    this.results = wrap.querySelector(".results");
    this.status = wrap.querySelector(".results-status");
    this.template = document.getElementById("linked-item-template");
    this.linked = linked.map((l) => ({ ...l }));
    this.baseline = this.linked.map((l) => l.id);
    this.timer = null;
    this.asked = 0;
    this.render();
    this.list.addEventListener("click", (event) => {
      const button = event.target.closest(".unlink");
      if (button) this.unlink(button.closest("li").dataset.id);
    });
    this.results.addEventListener("click", (event) => {
      const button = event.target.closest("button");
      if (button) this.link(JSON.parse(button.dataset.entry));
    });
    this.find.addEventListener("input", () => this.schedule());
    // The first focus lists the newest entries; later ones keep what was found (linking the
    // last result empties the list and takes the focus back: that needs no new search).
    this.find.addEventListener("focus", () => {
      if (this.lastFound === undefined) this.search();
    });
    this.find.disabled = false;
  }

  href(id) {
    const query = this.workspaceQuery ? `?${this.workspaceQuery}` : "";
    const base = this.asset ? "/media" : `/content/${encodeURIComponent(this.target.type)}`;
    return `${base}/${encodeURIComponent(id)}${query}`;
  }

  accepts(contentType) {
    const kind = String(contentType || "").toLowerCase();
    return !this.accept.length || this.accept.some((p) => kind === p || (p.endsWith("/*") && kind.startsWith(p.slice(0, -1))));
  }

  render() {
    this.list.replaceChildren(
      ...this.linked.map((entry) => {
        const item = this.template.content.firstElementChild.cloneNode(true);
        item.dataset.id = entry.id;
        const link = item.querySelector("a");
        link.href = this.href(entry.id);
        link.textContent = entry.title || "Untitled";
        item.querySelector("span.muted").textContent = statusWord(entry.status);
        item.querySelector(".unlink .visually-hidden").textContent = ` ${entry.title || "Untitled"}`;
        if (entry.thumb) item.prepend(thumbnail(entry.thumb));
        return item;
      }),
    );
    this.empty.hidden = this.linked.length > 0;
  }

  link(entry) {
    if (this.linked.some((l) => l.id === entry.id)) return;
    this.linked = this.toOne ? [entry] : [...this.linked, entry];
    this.render();
    this.showResults(this.lastFound || []);
    this.announce(`Linked ${entry.title || "an untitled entry"}.`);
    this.find.focus();
    this.onChange();
  }

  unlink(id) {
    const index = this.linked.findIndex((l) => l.id === id);
    if (index < 0) return;
    const [removed] = this.linked.splice(index, 1);
    this.render();
    const buttons = this.list.querySelectorAll(".unlink");
    (buttons[Math.min(index, buttons.length - 1)] || this.find).focus();
    this.announce(`Removed ${removed.title || "an untitled entry"}.`);
    this.onChange();
  }

  schedule() {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.search(), SEARCH_DELAY_MS);
  }

  async searchAssets(wanted) {
    const params = new URLSearchParams({ pageSize: String(RESULTS * 2), sort: "-createdAt" });
    if (wanted) params.set("filter", JSON.stringify({ field: "fileName", op: "contains", value: wanted }));
    const page = await call("GET", `/api/v1/assets?${params}`, { workspaceId: this.workspaceId });
    const found = page.items
      .filter((item) => item.state === "ready" && this.accepts(item.contentType))
      .slice(0, RESULTS)
      .map((item) => ({
        id: item.id,
        title: item.title || item.fileName || "",
        status: item.status,
        thumb: String(item.contentType).startsWith("image/") ? item.previewUrl || null : null,
      }));
    return { found, total: found.length };
  }

  async search() {
    const asked = ++this.asked;
    const wanted = this.find.value.trim();
    if (this.asset) {
      this.status.textContent = "Searching…";
      try {
        const { found, total } = await this.searchAssets(wanted);
        if (asked !== this.asked) return;
        this.lastFound = found;
        this.showResults(found, total, wanted);
      } catch (error) {
        if (asked !== this.asked) return;
        this.results.replaceChildren();
        this.status.textContent = describe(error);
      }
      return;
    }
    const params = new URLSearchParams({ pageSize: String(RESULTS), locale: this.locale });
    const titleField = this.target.titleField;
    params.set("fields", titleField || "");
    if (wanted && titleField) {
      params.set("filter", JSON.stringify({ field: titleField, op: "contains", value: wanted }));
    }
    this.status.textContent = "Searching…";
    try {
      const page = await call("GET", `/api/v1/content/${encodeURIComponent(this.target.type)}?${params}`, {
        workspaceId: this.workspaceId,
      });
      if (asked !== this.asked) return;
      const found = page.items.map((item) => ({
        id: item.id,
        title: titleField ? item.values[titleField] || "" : "",
        status: item.status,
      }));
      this.lastFound = found;
      this.showResults(found, page.total, wanted);
    } catch (error) {
      if (asked !== this.asked) return;
      this.results.replaceChildren();
      this.status.textContent = describe(error);
    }
  }

  showResults(found, total, wanted) {
    const open = found.filter((f) => !this.linked.some((l) => l.id === f.id));
    this.results.replaceChildren(
      ...open.map((entry) => {
        const item = document.createElement("li");
        const button = document.createElement("button");
        button.type = "button";
        button.className = "button secondary small result";
        button.dataset.entry = JSON.stringify(entry);
        const verb = this.toOne && this.linked.length ? "Link instead" : "Link";
        if (entry.thumb) button.append(thumbnail(entry.thumb));
        button.append(`${verb} `);
        const title = document.createElement("strong");
        title.textContent = entry.title || `Untitled (${entry.id.slice(0, 8)})`;
        button.append(title);
        const state = document.createElement("span");
        state.className = "muted small";
        state.textContent = ` ${statusWord(entry.status)}`;
        button.append(state);
        item.append(button);
        return item;
      }),
    );
    if (total === undefined) return;
    const what = wanted ? `matching “${wanted}”` : "newest first";
    const [one, many] = this.asset ? ["asset", "assets"] : ["entry", "entries"];
    this.status.textContent = open.length
      ? `${total} ${total === 1 ? one : many} ${what}${total > open.length ? `; showing ${open.length}` : ""}.`
      : `No ${many} to link ${wanted ? `match “${wanted}”` : "yet"}.`;
  }

  ids() {
    return this.linked.map((l) => l.id);
  }

  // The write body's `relations.<field>`: what to link and unlink to go from the saved state
  // to this one; null when nothing changed.
  changes() {
    const now = this.ids();
    const before = this.baseline;
    const link = now.filter((id) => !before.includes(id));
    const unlink = before.filter((id) => !now.includes(id));
    if (this.toOne) {
      if (link.length) return { link };
      return unlink.length ? { unlink } : null;
    }
    return link.length || unlink.length ? { link, unlink } : null;
  }

  read() {
    if (this.required && !this.linked.length) return { problem: `${this.label} is required: link an entry.` };
    return { value: this.ids() };
  }

  raw() {
    return this.ids().join(",");
  }

  initial() {
    return this.baseline.join(",");
  }

  saved() {
    this.baseline = this.ids();
  }

  focus() {
    this.find.focus();
  }

  invalidElement() {
    return this.find;
  }

  enable(on) {
    this.find.disabled = !on;
    for (const button of this.wrap.querySelectorAll("button")) button.disabled = !on;
  }
}
