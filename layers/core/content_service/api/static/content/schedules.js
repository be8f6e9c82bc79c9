// Scheduled publishing in the editor: the entry's schedules with their status (and the reason
// of one that failed), **Schedule…** (publish or unpublish at a date and time, in UTC), and
// **Cancel** on a pending one. Each is one call: GET, POST and DELETE `.../{id}/schedules`.

import { ApiError, busy, describe, rowButton, setMessage } from "../admin/common.js";
import { EntryPanel } from "./entry_panel.js";
import { sentence, when } from "./request.js";

const $ = (id) => document.getElementById(id);
const STATUS = {
  scheduled: ["Scheduled", "info"],
  done: ["Done", "ok"],
  failed: ["Failed", "danger"],
  cancelled: ["Cancelled", "neutral"],
};
const ACTION = { publish: "Publish", unpublish: "Unpublish" };
const HOUR = 3600 * 1000;

// A `datetime-local` value (UTC, to the minute) an hour from now.
function inAnHour() {
  const at = new Date(Date.now() + HOUR);
  at.setUTCSeconds(0, 0);
  return at.toISOString().slice(0, 16);
}

function who(createdBy) {
  if (!createdBy) return "";
  if (createdBy.kind === "user") return createdBy.email || "a user";
  return createdBy.name ? `the API token ${createdBy.name}` : "an API token";
}

export class Schedules extends EntryPanel {
  constructor({ announce, ...context }) {
    super(context);
    this.announce = announce;
    this.list = $("schedules-list");
    this.status = $("schedules-status");
    this.dialog = $("schedule-dialog");
    this.form = $("schedule-form");
    this.at = $("schedule-at");
    this.action = $("schedule-action");
    this.error = $("schedule-error");
    this.alert = $("schedule-alert");
    this.form.addEventListener("submit", (event) => {
      event.preventDefault();
      busy($("schedule-submit"), "Scheduling…", () => this.create());
    });
    this.at.addEventListener("input", () => this.fieldError(""));
  }

  url(tail = "") {
    return this.entryUrl(`/schedules${tail}`);
  }

  update(entry, trashed) {
    this.entry = entry;
    $("schedules-card").hidden = trashed;
  }

  async load() {
    try {
      const page = await this.call("GET", this.url());
      this.draw(page.items);
    } catch (error) {
      this.status.textContent = `Could not load the schedules: ${describe(error)}`;
    }
  }

  draw(items) {
    this.list.replaceChildren(...items.map((s) => this.row(s)));
    const pending = items.filter((s) => s.status === "scheduled").length;
    this.status.textContent = items.length
      ? `${pending} pending of ${items.length}.`
      : "Nothing scheduled. Schedule… publishes or unpublishes at a time you choose.";
  }

  row(schedule) {
    const item = document.createElement("li");
    item.className = "schedule-item";
    item.dataset.id = schedule.id;
    const [label, tone] = STATUS[schedule.status] || [schedule.status, "neutral"];
    const head = document.createElement("p");
    head.className = "side-item-head";
    const what = document.createElement("strong");
    what.textContent = `${ACTION[schedule.action] || schedule.action} at ${when(schedule.at)}`;
    const badge = document.createElement("span");
    badge.className = `badge badge-${tone}`;
    badge.textContent = label;
    head.append(what, " ", badge);
    const by = document.createElement("p");
    by.className = "small muted";
    by.textContent = `By ${who(schedule.createdBy)}${schedule.ranAt && schedule.status !== "cancelled" ? `; ran ${when(schedule.ranAt)}` : ""}.`;
    item.append(head, by);
    if (schedule.reason) {
      const reason = document.createElement("p");
      reason.className = "reason";
      reason.textContent = sentence(schedule.reason);
      item.append(reason);
    }
    if (schedule.status === "scheduled") {
      const cancel = rowButton("Cancel", ` the ${schedule.action} at ${when(schedule.at)}`);
      cancel.addEventListener("click", () => busy(cancel, "Cancelling…", () => this.cancel(schedule)));
      item.append(cancel);
    }
    return item;
  }

  fieldError(text) {
    setMessage(this.error, text);
    if (text) this.at.setAttribute("aria-invalid", "true");
    else this.at.removeAttribute("aria-invalid");
  }

  // Opens the dialog: unpublish for a live entry, publish otherwise, an hour from now.
  open() {
    this.action.value = this.entry.status === "draft" ? "publish" : "unpublish";
    this.at.value = inAnHour();
    this.fieldError("");
    setMessage(this.alert, "");
    this.dialog.returnValue = "";
    this.dialog.showModal();
    this.action.focus();
  }

  async create() {
    this.fieldError("");
    setMessage(this.alert, "");
    if (this.at.validity.badInput || !this.at.value) {
      this.fieldError("Enter a complete date and time.");
      this.at.focus();
      return;
    }
    const at = this.at.value.length === 16 ? `${this.at.value}:00Z` : `${this.at.value}Z`;
    try {
      const schedule = await this.call("POST", this.url(), { body: { action: this.action.value, at } });
      this.dialog.close("done");
      await this.load();
      this.announce(`Scheduled: ${schedule.action} at ${when(schedule.at)}.`);
      $("action-schedule").focus();
    } catch (error) {
      const located = error instanceof ApiError && Array.isArray(error.details)
        ? error.details.find((d) => /^(body\.)?at$/.test(String(d.location || "")))
        : null;
      if (located) {
        this.fieldError(`The time ${located.problem}.`);
        this.at.focus();
      } else {
        setMessage(this.alert, describe(error));
        this.alert.focus();
      }
    }
  }

  async cancel(schedule) {
    try {
      await this.call("DELETE", this.url(`/${encodeURIComponent(schedule.id)}`));
      this.announce(`Cancelled: the ${schedule.action} at ${when(schedule.at)} will not run.`);
    } catch (error) {
      this.announce(`Not cancelled: ${describe(error)}`);
    }
    await this.load();
    this.status.focus();
  }
}
