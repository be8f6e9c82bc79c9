// Field values shown read-only (a published version, the live entry beside the draft), and
// whether two versions of a field differ. Values come from reads made with `exact`, so an
// integer past 2^53 is its digits (a `Raw`), neither shown nor compared rounded. Service text is
// put into the page with textContent; rich text through Quill (`showRichText`).

import { Raw, serialize, when } from "./request.js";
import { showRichText } from "./rich_text.js";

function text(content, className) {
  const node = document.createElement(className === "json" ? "pre" : "span");
  node.className = `ro-value ${className || ""}`.trim();
  node.textContent = content;
  return node;
}

function notSet() {
  return text("Not set", "muted");
}

function linkedTitles(targets, target) {
  if (!targets || !targets.length) return notSet();
  const list = document.createElement("ul");
  list.className = "ro-links";
  for (const linked of targets) {
    const item = document.createElement("li");
    const title = target && target.titleField && linked.values ? linked.values[target.titleField] : "";
    item.textContent = title || "Untitled";
    if (linked.status === "draft") {
      const note = document.createElement("span");
      note.className = "muted small";
      note.textContent = " (not published: readers do not get it)";
      item.append(note);
    }
    list.append(item);
  }
  return list;
}

const SHOW = {
  boolean: (value) => text(value ? "Yes" : "No"),
  datetime: (value) => text(when(value)),
  json: (value) => text(serialize(value, 2), "json"),
  integer: (value) => text(value instanceof Raw ? value.text : String(value)),
  float: (value) => text(String(value)),
  text: (value) => text(value, "multiline"),
};

// The node showing one field's value. `entry` is an entry as the API answers it (its relations
// expanded where they are to be shown); `target` the relation's target type.
export function valueNode(field, entry, target) {
  if (field.type === "relation") return linkedTitles((entry.relations || {})[field.name], target);
  const value = (entry.values || {})[field.name];
  if (value === null || value === undefined || value === "") return notSet();
  if (field.type === "richtext") {
    const host = document.createElement("div");
    host.className = "ro-rich";
    showRichText(host, value);
    return host;
  }
  return (SHOW[field.type] || ((v) => text(String(v))))(value);
}

// The audiences of an audience-gated entry, as a node.
export function audiencesNode(entry) {
  const names = entry.audiences || [];
  return names.length ? text(names.join(", ")) : text("Everyone", "muted");
}

// What readers would get: a link to an entry that is not published reaches no reader, so it
// makes no difference between the live version and the draft.
function comparable(field, entry) {
  if (field.type === "relation") {
    return ((entry.relations || {})[field.name] || []).filter((t) => t.status !== "draft").map((t) => t.id);
  }
  const value = (entry.values || {})[field.name];
  return value === undefined ? null : value;
}

// Whether a field has the same value in both entries (relations: the same entries, in order).
export function sameField(field, one, other) {
  return serialize(comparable(field, one)) === serialize(comparable(field, other));
}

export function sameAudiences(one, other) {
  return serialize(one.audiences || []) === serialize(other.audiences || []);
}
