// The endpoint page's delivery log, kept current: while the newest page is open, the log is
// polled through the JSON API every two seconds and new or changed deliveries are drawn from
// the page's <template>. Relative times ("3 min ago") are refreshed as they age. Service text
// goes into the page with textContent only.

import { api } from "./common.js";

const POLL_MS = 2000;
const STATUS_LABEL = {
  pending: "Pending",
  delivering: "Delivering",
  succeeded: "Succeeded",
  failed: "Failed, will retry",
  dead: "Dead",
};
const STATUS_TONE = { pending: "neutral", delivering: "info", succeeded: "ok", failed: "warn", dead: "danger" };
const LADDER_SECONDS = [10, 60, 300, 1800, 7200];

export function span(seconds) {
  const s = Math.abs(seconds);
  if (s < 60) return `${Math.round(s)} s`;
  if (s < 3600) return `${Math.round(s / 60)} min`;
  if (s < 86400) return `${(s / 3600).toFixed(1).replace(/\.0$/, "")} h`;
  return `${Math.round(s / 86400)} days`;
}

export function relative(iso, now = Date.now()) {
  const at = Date.parse(iso);
  if (Number.isNaN(at)) return "";
  const delta = (at - now) / 1000;
  if (Math.abs(delta) < 1) return "just now";
  return delta > 0 ? `in ${span(delta)}` : `${span(delta)} ago`;
}

export function refreshRelativeTimes(root = document) {
  for (const element of root.querySelectorAll("[data-relative]")) {
    const iso = element.dataset.relative;
    if (iso) element.textContent = relative(iso);
  }
}

function utc(iso) {
  if (!iso) return "";
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC`;
}

function pretty(body) {
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
}

function titleOf(body) {
  try {
    const data = JSON.parse(body).data;
    if (data && typeof data.title === "string") {
      return typeof data.contentType === "string" ? `${data.contentType}: ${data.title}` : data.title;
    }
  } catch {
    // not JSON: no title
  }
  return "";
}

function progress(d, max) {
  const n = d.attempts;
  if (d.status === "pending") return `Attempt 1 of ${max} not made yet`;
  if (d.status === "delivering") return `Attempt ${n} of ${max} in progress`;
  if (d.status === "succeeded") return `Attempt ${n} of ${max} succeeded`;
  if (d.status === "dead") return `Gave up after attempt ${n} of ${max}`;
  const later = LADDER_SECONDS.slice(n, max - 1).map(span);
  const tail = later.length
    ? `if it fails too, the ladder waits ${later.join(", then ")} before the next ones`
    : "it is the last attempt";
  return `Attempt ${n} of ${max} failed; attempt ${n + 1} is next; ${tail}`;
}

function prop(list, term, value, options = {}) {
  const dt = document.createElement("dt");
  dt.textContent = term;
  const dd = document.createElement("dd");
  if (options.code) {
    const code = document.createElement("code");
    code.textContent = value;
    dd.append(code);
  } else {
    dd.textContent = value;
  }
  if (options.relative) {
    const time = document.createElement("span");
    time.className = "relative";
    time.dataset.relative = options.relative;
    time.textContent = relative(options.relative);
    dd.append(" ", time);
  }
  if (options.className) dd.className = options.className;
  list.append(dt, dd);
}

function attemptsTable(d) {
  const log = d.attemptLog || [];
  if (!log.length) {
    const none = document.createElement("p");
    none.className = "muted";
    none.textContent = "No attempt yet.";
    return none;
  }
  const table = document.createElement("table");
  table.className = "attempts stack-on-phone";
  const head = table.createTHead().insertRow();
  for (const label of ["#", "At", "Status code", "Duration", "Error"]) {
    const th = document.createElement("th");
    th.scope = "col";
    th.textContent = label;
    head.append(th);
  }
  const body = table.createTBody();
  for (const a of log) {
    const row = body.insertRow();
    const cells = [
      ["Attempt", String(a.attempt)],
      ["At", utc(a.at)],
      ["Status code", a.statusCode === null ? "none" : String(a.statusCode)],
      ["Duration", a.durationMs === null ? "–" : `${a.durationMs} ms`],
      ["Error", a.error || "–"],
    ];
    for (const [label, text] of cells) {
      const cell = row.insertCell();
      cell.dataset.label = label;
      cell.textContent = text;
    }
  }
  return table;
}

// One log row, drawn from the delivery JSON (the detail form, with attemptLog).
export function renderRow(template, d, options) {
  const item = template.content.firstElementChild.cloneNode(true);
  item.dataset.deliveryId = d.id;
  item.dataset.status = d.status;
  item.dataset.updated = d.updatedAt;
  const badge = item.querySelector(".log-status .badge");
  badge.classList.add(`badge-${STATUS_TONE[d.status] || "neutral"}`);
  badge.textContent = STATUS_LABEL[d.status] || d.status;
  item.querySelector(".t-event").textContent = d.event;
  item.querySelector(".log-title").textContent = titleOf(d.requestBody);
  if (!d.redeliveryOf) item.querySelector(".t-redelivery").remove();
  item.querySelector(".t-code").textContent =
    d.lastStatusCode !== null ? `HTTP ${d.lastStatusCode}` : d.attempts ? "no response" : "not sent yet";
  item.querySelector(".t-duration").textContent = d.lastDurationMs !== null ? `${d.lastDurationMs} ms` : "";
  item.querySelector(".log-progress").textContent = `attempt ${d.attempts} of ${options.maxAttempts}`;
  const created = item.querySelector(".t-created");
  created.dateTime = d.createdAt;
  created.textContent = utc(d.createdAt);
  const createdRelative = item.querySelector(".log-time .relative");
  createdRelative.dataset.relative = d.createdAt;
  createdRelative.textContent = relative(d.createdAt);

  const props = item.querySelector("dl.props");
  prop(props, "Delivery id", d.id, { code: true });
  prop(props, "Event id", d.eventId, { code: true });
  prop(props, "Last update", utc(d.updatedAt));
  prop(props, "Progress", progress(d, options.maxAttempts), { className: "progress-text" });
  if (d.status === "failed" && d.nextAttemptAt) {
    prop(props, "Next attempt", utc(d.nextAttemptAt), { relative: d.nextAttemptAt });
  }
  if (d.redeliveryOf) prop(props, "Redelivery of", d.redeliveryOf, { code: true });
  if (d.recoveredBy) prop(props, "Recovered by", d.recoveredBy, { code: true });
  if (d.lastError) prop(props, "Last error", d.lastError, { className: "error-text" });
  item.querySelector(".t-attempts").append(attemptsTable(d));
  const body = item.querySelector(".t-body");
  body.textContent = pretty(d.requestBody);
  body.setAttribute("aria-label", `Request body of delivery ${d.id}`);
  const snippet = item.querySelector(".t-snippet");
  if (d.responseSnippet) {
    snippet.textContent = d.responseSnippet;
    snippet.setAttribute("aria-label", `Response snippet of delivery ${d.id}`);
  } else {
    const none = document.createElement("p");
    none.className = "muted";
    none.textContent = "No response body recorded.";
    snippet.replaceWith(none);
  }
  const actions = item.querySelector(".row-actions");
  if (options.canManage) {
    if (d.status === "failed") {
      actions.append(actionButton("Retry now", "button primary retry-now", d.id), " ");
    }
    actions.append(actionButton("Redeliver", "button secondary redeliver", d.id));
  } else {
    actions.remove();
  }
  return item;
}

function actionButton(label, className, deliveryId) {
  const button = document.createElement("button");
  button.type = "button";
  button.className = className;
  button.dataset.deliveryId = deliveryId;
  button.textContent = label;
  return button;
}

// Polls the newest page of the log and redraws what is new or changed; `wire` attaches the
// page's handlers to a drawn row. Returns a function that polls at once.
export function startLiveLog(section, base, wire) {
  const list = section.querySelector("#log-rows");
  const template = document.getElementById("log-row-template");
  const announce = section.querySelector("#log-live");
  const options = {
    maxAttempts: Number(section.dataset.maxAttempts || 6),
    canManage: section.dataset.canManage === "yes",
  };
  const query = new URLSearchParams(section.dataset.query || "");
  query.set("limit", section.dataset.limit || "25");
  let busy = false;

  async function poll() {
    if (busy || document.hidden) return;
    busy = true;
    try {
      const page = await api("GET", `${base}/deliveries?${query}`);
      const shown = new Map([...list.querySelectorAll(":scope > .log-row")].map((li) => [li.dataset.deliveryId, li]));
      const fresh = page.items.filter((d) => !shown.has(d.id));
      const changed = page.items.filter((d) => shown.has(d.id) && shown.get(d.id).dataset.updated !== d.updatedAt);
      for (const d of [...fresh, ...changed]) {
        const detail = await api("GET", `${base}/deliveries/${encodeURIComponent(d.id)}`);
        const row = renderRow(template, detail, options);
        const old = shown.get(d.id);
        if (old) {
          const opened = old.querySelector(":scope > details").open;
          row.querySelector(":scope > details").open = opened;
          old.replaceWith(row);
        } else {
          insertInOrder(list, row, d.createdAt);
        }
        wire(row);
      }
      if (fresh.length) {
        list.hidden = false;
        const empty = section.querySelector(".empty-log");
        if (empty) empty.remove();
        announce.textContent = `${fresh.length} new deliver${fresh.length === 1 ? "y" : "ies"} in the log.`;
      }
    } catch {
      // A failed poll (network, session ended) is retried at the next tick.
    } finally {
      busy = false;
    }
  }

  if (section.dataset.live === "on") window.setInterval(poll, POLL_MS);
  window.setInterval(() => refreshRelativeTimes(), 15000);
  return poll;
}

function insertInOrder(list, row, createdAt) {
  for (const existing of list.querySelectorAll(":scope > .log-row")) {
    const time = existing.querySelector("time");
    if (time && time.dateTime && time.dateTime < createdAt) {
      existing.before(row);
      return;
    }
  }
  list.append(row);
}
